package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/stdio"
)

// withTenant is an application's own middleware: it puts the tenant named
// by the X-Tenant header in the request's context.
func withTenant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), tenantKey{}, r.Header.Get("X-Tenant"))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// tenantServer has one tool every tenant sees and one only acme sees.
func tenantServer(t *testing.T) *mcp.Server {
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "status"}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "session_id"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) { return c.SessionID, nil })
	mcp.AddTool(s, mcp.Tool{Name: "acme_report", CanAccess: func(ctx context.Context, _ any) bool {
		return ctx.Value(tenantKey{}) == "acme"
	}}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "acme numbers", nil })
	return s
}

// rpcResult is one JSON-RPC response.
type rpcResult struct {
	Result json.RawMessage `json:"result"`
	Error  *mcp.Error      `json:"error"`
}

func toolNames(t *testing.T, r rpcResult) []string {
	t.Helper()
	require.Nil(t, r.Error)
	var res struct {
		Tools []mcp.Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

const (
	initMsg     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1.0.0"}}}`
	initedMsg   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listMsg     = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	callAcmeMsg = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"acme_report","arguments":{}}}`
)

// checkTenantView asserts what a tenant sees: acme lists and calls
// acme_report; any other tenant neither lists it nor can call it.
func checkTenantView(t *testing.T, tenant string, list, call rpcResult) {
	t.Helper()
	if tenant == "acme" {
		assert.Equal(t, []string{"status", "session_id", "acme_report"}, toolNames(t, list))
		require.Nil(t, call.Error)
		var res mcp.ContentResult
		require.NoError(t, json.Unmarshal(call.Result, &res))
		assert.Equal(t, "acme numbers", res.Text())
		return
	}
	assert.Equal(t, []string{"status", "session_id"}, toolNames(t, list))
	require.NotNil(t, call.Error, "a hidden tool cannot be called")
	assert.EqualValues(t, mcp.CodeInvalidParams, call.Error.Code)
	assert.Contains(t, call.Error.Message, `Unknown tool: "acme_report"`)
}

func TestTenantCanAccessOverHTTP(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(tenantServer(t), nil)
	t.Cleanup(func() { _ = h.Close() })
	ts := httptest.NewServer(withTenant(h))
	t.Cleanup(ts.Close)

	post := func(t *testing.T, tenant, sid, body string) (rpcResult, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Tenant", tenant)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Less(t, resp.StatusCode, 300, string(b))
		var r rpcResult
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, line := range strings.Split(string(b), "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"id"`) {
					b = []byte(data)
				}
			}
		}
		if len(bytes.TrimSpace(b)) > 0 {
			require.NoError(t, json.Unmarshal(b, &r), string(b))
		}
		return r, resp.Header.Get("Mcp-Session-Id")
	}
	for _, tenant := range []string{"acme", "globex"} {
		t.Run(tenant, func(t *testing.T) {
			t.Parallel()
			_, sid := post(t, tenant, "", initMsg)
			require.NotEmpty(t, sid)
			post(t, tenant, sid, initedMsg)
			list, _ := post(t, tenant, sid, listMsg)
			call, _ := post(t, tenant, sid, callAcmeMsg)
			checkTenantView(t, tenant, list, call)
		})
	}
}

func TestTenantCanAccessOverStdio(t *testing.T) {
	t.Parallel()
	srv := tenantServer(t)
	for _, tenant := range []string{"acme", "globex"} {
		t.Run(tenant, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(srv, nil)
			t.Cleanup(func() { _ = h.Close() })
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := stdio.Serve(context.Background(), withTenant(h), inR, outW,
					&stdio.Options{Header: http.Header{"X-Tenant": {tenant}}})
				_ = outW.Close()
				done <- err
			}()
			lines := bufio.NewScanner(outR)
			send := func(msg string) {
				_, err := fmt.Fprintln(inW, msg)
				require.NoError(t, err)
			}
			recv := func() rpcResult {
				t.Helper()
				for lines.Scan() {
					var r struct {
						ID json.RawMessage `json:"id"`
						rpcResult
					}
					require.NoError(t, json.Unmarshal(lines.Bytes(), &r), lines.Text())
					if r.ID != nil { // skip notifications
						return r.rpcResult
					}
				}
				t.Fatalf("stdio output ended: %v", lines.Err())
				return rpcResult{}
			}
			send(initMsg)
			require.Nil(t, recv().Error)
			send(initedMsg)
			send(listMsg)
			list := recv()
			send(callAcmeMsg)
			call := recv()
			checkTenantView(t, tenant, list, call)
			send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"session_id","arguments":{}}}`)
			var sid mcp.ContentResult
			require.NoError(t, json.Unmarshal(recv().Result, &sid))
			assert.NotEmpty(t, sid.Text(), "Context.SessionID is set on stdio")

			require.NoError(t, inW.Close())
			go func() { _, _ = io.Copy(io.Discard, outR) }()
			select {
			case err := <-done:
				assert.NoError(t, err)
			case <-time.After(5 * time.Second):
				t.Fatal("stdio.Serve did not return at end of input")
			}
		})
	}
}

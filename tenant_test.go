package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
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

func toolNames(t *testing.T, r wiretest.Msg) []string {
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
func checkTenantView(t *testing.T, tenant string, list, call wiretest.Msg) {
	t.Helper()
	if tenant == "acme" {
		assert.Equal(t, []string{"status", "session_id", "acme_report"}, toolNames(t, list))
		assert.Equal(t, "acme numbers", wiretest.ToolResult(t, call).Text())
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

	post := func(t *testing.T, tenant, sid, body string) (wiretest.Msg, string) {
		t.Helper()
		header := []string{"X-Tenant", tenant}
		if sid != "" {
			header = append(header, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		}
		resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body, header...))
		require.NoError(t, err)
		require.Less(t, resp.StatusCode, 300, string(b))
		var last wiretest.Msg
		if msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b); len(msgs) > 0 {
			last = msgs[len(msgs)-1]
		}
		return last, resp.Header.Get("Mcp-Session-Id")
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
			recv := func() wiretest.Msg {
				t.Helper()
				for lines.Scan() {
					var m wiretest.Msg
					require.NoError(t, json.Unmarshal(lines.Bytes(), &m), lines.Text())
					if m.ID != nil { // skip notifications
						return m
					}
				}
				t.Fatalf("stdio output ended: %v", lines.Err())
				return wiretest.Msg{}
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
			assert.NotEmpty(t, wiretest.ToolResult(t, recv()).Text(), "Context.SessionID is set on stdio")

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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/stdio"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
const callBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tenant"}}`

// post sends body in session sid ("" for none) as tenant ("" for none).
func post(t *testing.T, url, sid, tenant, body string) (*http.Response, string) {
	t.Helper()
	resp, b, err := wiretest.Do(http.DefaultClient, wiretest.NewRequest(t.Context(), http.MethodPost, url, body,
		"Mcp-Session-Id", sid, "X-Tenant", tenant))
	require.NoError(t, err)
	return resp, string(b)
}

func TestMountedOverHTTP(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(NewServer(), nil)
	defer h.Close()
	ts := httptest.NewServer(NewApp(h))
	defer ts.Close()

	// The app's own routes are untouched.
	resp, err := http.Get(ts.URL + "/")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "the app's home page\n", string(b))
	resp, err = http.Get(ts.URL + "/api/users/42")
	require.NoError(t, err)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.JSONEq(t, `{"id":"42"}`, string(b))

	// MCP answers under the prefix, and the tool sees the app's middleware value.
	resp, body := post(t, ts.URL+"/api/mcp", "", "acme", initBody)
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	_, body = post(t, ts.URL+"/api/mcp", sid, "acme", callBody)
	require.Contains(t, body, `"text":"tenant: acme"`)
	_, body = post(t, ts.URL+"/api/mcp", sid, "", callBody)
	require.Contains(t, body, `"text":"tenant: public"`)

	// Not at the unprefixed path.
	resp, _ = post(t, ts.URL+"/mcp", "", "acme", initBody)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestMountedOverStdio(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(NewServer(), nil)
	defer h.Close()
	chain := alice.New(middleware.Recover(nil), Tenant)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(ctx, chain.Then(h), inR, outW, &stdio.Options{Header: http.Header{"X-Tenant": {"stdio-tenant"}}})
		outW.Close()
	}()
	rd := bufio.NewReader(outR)
	_, err := io.WriteString(inW, initBody+"\n"+callBody+"\n")
	require.NoError(t, err)
	var got string
	for got == "" {
		line, err := rd.ReadBytes('\n')
		require.NoError(t, err)
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(line, &m), string(line))
		if m.ID == 2 {
			got = m.Result.Content[0].Text
		}
	}
	require.Equal(t, "tenant: stdio-tenant", got)
	inW.Close()
	require.NoError(t, <-done)
}

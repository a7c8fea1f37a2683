package codemode_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// An interceptor inside codemode's (as telemetry and rate limits are
// installed) sees each call a script makes as a tools/call of its tool,
// and a refusal it returns reaches the script as that tool's error.
func TestScriptCallsPassInterceptors(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	limiter := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method == "tools/call" {
				var p struct {
					Name string `json:"name"`
				}
				require.NoError(t, json.Unmarshal(c.Params, &p))
				mu.Lock()
				seen = append(seen, p.Name)
				mu.Unlock()
				if p.Name == "weather" {
					return nil, &mcp.Error{Code: -32000, Message: "rate limited"}
				}
			}
			return next(ctx, c)
		}
	}
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	inner := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(w, req.WithContext(mcp.WithInterceptor(req.Context(), limiter)))
	})
	c, err := client.Connect(t.Context(), client.InProcess(r.Middleware(inner), nil), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	res := run(t, c, `
a = call("echo", {"text": "one"})
b = try_call("weather", {"city": "Oslo"})
result = [a, b]
`)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"result":["one",{"ok":false,"error":"weather: rate limited"}]}`, structured(t, res))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{codemode.DefaultTool, "echo", "weather"}, seen)
}

// A tool called from a script reports progress against the script
// call's progress token: the client sees it.
func TestScriptProgressReachesClient(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "work"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "done", c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: "half way"})
	})
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, r, nil, "")
	var mu sync.Mutex
	var got []string
	res, err := c.CallTool(t.Context(), codemode.DefaultTool, map[string]any{"script": `result = call("work")`},
		&client.CallOptions{Progress: func(p mcp.Progress) {
			mu.Lock()
			got = append(got, p.Message)
			mu.Unlock()
		}})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Contains(t, res.Text(), "done")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"half way"}, got)
}

// Behind toolsearch, the script tool is reached through call_tool as
// well as directly, and its calls still pass the access checks.
func TestScriptThroughCallTool(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, r, s, "bob")
	res, err := c.CallTool(t.Context(), toolsearch.DefaultCallTool, map[string]any{"name": codemode.DefaultTool,
		"arguments": map[string]any{"script": `result = [call("echo", {"text": "via"}), try_call("wipe")["ok"]]`}}, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"result":["via",false]}`, structured(t, res))
}

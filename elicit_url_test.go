package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

// hostileURLs are URLs no user may be asked to open: a script, a
// document, a local file, a host disguised by user information, and http
// to a host that is not this machine.
var hostileURLs = map[string]string{
	"javascript": "javascript:alert(document.cookie)",
	"data":       "data:text/html,<script>alert(1)</script>",
	"file":       "file:///etc/passwd",
	"userinfo":   "https://bank.example@evil.example/login",
	"http":       "http://example.com/login",
}

// urlServer has a tool for each way a URL-mode elicitation leaves a
// server: Context.ElicitURL, Context.Elicit in URL mode, Context.Ask,
// and a URLElicitationRequired error (done once the client's handler
// accepted one).
func urlServer(opened func() bool) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "urls", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	type in struct {
		URL string `json:"url"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "elicit-url"}, func(ctx context.Context, c *mcp.Context, a in) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e-1", URL: a.URL, Message: "Open it"})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "elicit"}, func(ctx context.Context, c *mcp.Context, a in) (string, error) {
		res, err := elicit.Create(ctx, c, &elicit.Params{Mode: "url", ElicitationID: "e-2", URL: a.URL, Message: "Open it"})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, a in) (string, error) {
		_, err := c.Ask(ctx, map[string]mcp.InputRequest{"k": {Method: "elicitation/create",
			Params: map[string]any{"mode": "url", "elicitationId": "e-3", "url": a.URL, "message": "Open it"}}})
		if err != nil {
			return "", err
		}
		return "accept", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "required"}, func(ctx context.Context, c *mcp.Context, a in) (string, error) {
		if opened() {
			return "accept", nil
		}
		return "", elicit.URLRequired(elicit.URLRequest{ID: "e-4", URL: a.URL, Message: "Open it"})
	})
	return srv
}

// TestElicitationURLsChecked: every way a server asks
// the user to open a URL checks it (internal/eliciturl): ElicitURL,
// Elicit in URL mode, Ask, and URLElicitationRequired, at both revisions.
// A hostile URL never reaches the client's handler and the call fails
// saying why; an https URL and http to this machine are asked.
func TestElicitationURLsChecked(t *testing.T) {
	t.Parallel()
	tools := []string{"elicit-url", "elicit", "ask", "required"}
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		for _, tool := range tools {
			t.Run(string(version)+"/"+tool, func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var handed []string
				opened := func() bool { mu.Lock(); defer mu.Unlock(); return len(handed) > 0 }
				h := mcphttp.New(urlServer(opened), nil)
				t.Cleanup(func() { _ = h.Close() })
				ctx := context.Background()
				c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{ProtocolVersion: version,
					ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
						mu.Lock()
						handed = append(handed, p.URL)
						mu.Unlock()
						return &elicit.Result{Action: elicit.ActionAccept}, nil
					}})
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })

				for name, u := range hostileURLs {
					res, err := c.CallTool(ctx, tool, map[string]any{"url": u}, nil)
					var msg string
					if err != nil {
						msg = err.Error()
					} else {
						require.True(t, res.IsError, "%s: %s was asked: %s", name, u, res.Text())
						msg = res.Text()
					}
					assert.Contains(t, msg, "elicitation URL", name)
				}
				mu.Lock()
				assert.Empty(t, handed, "no hostile URL reached the client")
				mu.Unlock()

				for _, u := range []string{"https://example.com/connect?id=1", "http://127.0.0.1:8080/connect"} {
					mu.Lock()
					handed = nil
					mu.Unlock()
					res, err := c.CallTool(ctx, tool, map[string]any{"url": u}, nil)
					var je *mcp.Error
					if tool == "required" && version == "2025-11-25" && errors.As(err, &je) {
						// The -32042 error itself: the application shows its URLs.
						assert.Equal(t, mcp.CodeURLElicitationRequired, int(je.Code))
						assert.Contains(t, string(je.Data.(json.RawMessage)), u)
						continue
					}
					require.NoError(t, err, u)
					require.False(t, res.IsError, "%s: %s", u, res.Text())
					assert.Equal(t, "accept", res.Text())
					mu.Lock()
					assert.Equal(t, []string{u}, handed)
					mu.Unlock()
				}
			})
		}
	}
}

// TestURLElicitationHandWrittenError: a -32042 error a tool builds by hand
// is read from its data as the wire has it; one without elicitations, or
// with an elicitation lacking its URL, is an internal error naming the
// tool.
func TestURLElicitationHandWrittenError(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for name, data := range map[string]any{
		"by-hand": map[string]any{"elicitations": []any{map[string]any{"mode": "url", "elicitationId": "x", "url": "https://a.example/x", "message": "Go"}}},
		"empty":   map[string]any{},
		"no-url":  map[string]any{"elicitations": []any{map[string]any{"mode": "url", "elicitationId": "x", "message": "Go"}}},
	} {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "", &mcp.Error{Code: mcp.CodeURLElicitationRequired, Message: "needed", Data: data}
		})
	}
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	// A 2025-11-25 client that declares elicitation.url: the -32042 error
	// reaches it as it is.
	c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{ProtocolVersion: mcp.Version20251125, Logger: quietLogger(),
		ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	for _, tc := range []struct{ name, code, msg string }{
		{"by-hand", "-32042", "needed"},
		{"empty", "-32603", `tool "empty" returned a URL elicitation required error (-32042) without data.elicitations`},
		{"no-url", "-32603", `tool "no-url": mcp: elicitation URL "" is not an absolute URL with a host`},
	} {
		_, err := c.CallTool(t.Context(), tc.name, map[string]any{}, nil)
		var je *mcp.Error
		require.ErrorAs(t, err, &je, tc.name)
		assert.Equal(t, tc.code, fmt.Sprint(je.Code), tc.name)
		assert.Equal(t, tc.msg, je.Message, tc.name)
	}
}

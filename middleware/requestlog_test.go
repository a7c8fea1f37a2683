package middleware_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/lmittmann/tint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

func TestRequestLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		method    string
		header    map[string]string
		handler   http.HandlerFunc
		wantLevel string
		wantAttrs map[string]any
		absent    []string
	}{
		{
			name:   "POST with MCP headers",
			method: http.MethodPost,
			header: map[string]string{"Mcp-Session-Id": "s-1", "Mcp-Method": "tools/call", "Mcp-Name": "echo"},
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0"}`)
			},
			wantLevel: "INFO",
			wantAttrs: map[string]any{"method": "POST", "path": "/mcp", "status": 200.0, "bytes": 17.0,
				"session": "s-1", "rpc": "tools/call", "tool": "echo"},
		},
		{
			name:   "session issued by the response (initialize)",
			method: http.MethodPost,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Mcp-Session-Id", "new-session")
				_, _ = io.WriteString(w, "{}")
			},
			wantLevel: "INFO",
			wantAttrs: map[string]any{"status": 200.0, "bytes": 2.0, "session": "new-session"},
			absent:    []string{"rpc", "tool"},
		},
		{
			name:      "nothing written logs 200",
			method:    http.MethodDelete,
			handler:   func(http.ResponseWriter, *http.Request) {},
			wantLevel: "INFO",
			wantAttrs: map[string]any{"method": "DELETE", "status": 200.0, "bytes": 0.0},
			absent:    []string{"session", "rpc", "tool"},
		},
		{
			name:   "first status wins",
			method: http.MethodPost,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusAccepted)
				w.WriteHeader(http.StatusTeapot) // superfluous, ignored by net/http too
			},
			wantLevel: "INFO",
			wantAttrs: map[string]any{"status": 202.0},
		},
		{
			name:   "informational headers are not the status",
			method: http.MethodPost,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusNotFound)
			},
			wantLevel: "INFO",
			wantAttrs: map[string]any{"status": 404.0},
		},
		{
			name:   "5xx logs at error level",
			method: http.MethodPost,
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "down", http.StatusServiceUnavailable)
			},
			wantLevel: "ERROR",
			wantAttrs: map[string]any{"status": 503.0, "bytes": 5.0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := newLogger()
			h := middleware.RequestLog(logger)(tt.handler)
			req := httptest.NewRequest(tt.method, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			lines := logs.lines(t)
			require.Len(t, lines, 1)
			line := lines[0]
			assert.Equal(t, tt.wantLevel, line["level"])
			assert.Equal(t, "mcp request", line["msg"])
			assert.Contains(t, line, "duration")
			for k, v := range tt.wantAttrs {
				assert.Equal(t, v, line[k], "attribute %q", k)
			}
			for _, k := range tt.absent {
				assert.NotContains(t, line, k)
			}
		})
	}
}

func TestRequestLogDisabledLevel(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	logger := slogAtLevel(logs, 12) // above error: nothing is enabled
	called := false
	h := middleware.RequestLog(logger)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
	assert.True(t, called)
	assert.Empty(t, logs.lines(t))
}

// TestSSEFlushesThroughWrappers checks that each middleware that wraps the
// ResponseWriter lets an SSE stream flush: the client reads the first
// event while the handler is still running.
func TestSSEFlushesThroughWrappers(t *testing.T) {
	t.Parallel()
	logger, _ := newLogger()
	tests := []struct {
		name  string
		chain alice.Chain
		flush func(w http.ResponseWriter) error
	}{
		{name: "RequestLog, ResponseController", chain: alice.New(middleware.RequestLog(logger)),
			flush: func(w http.ResponseWriter) error { return http.NewResponseController(w).Flush() }},
		{name: "RequestLog, http.Flusher", chain: alice.New(middleware.RequestLog(logger)),
			flush: func(w http.ResponseWriter) error {
				f, ok := w.(http.Flusher)
				if !ok {
					return http.ErrNotSupported
				}
				f.Flush()
				return nil
			}},
		{name: "Recover", chain: alice.New(middleware.Recover(logger)),
			flush: func(w http.ResponseWriter) error { return http.NewResponseController(w).Flush() }},
		{name: "whole chain", chain: alice.New(middleware.Recover(logger), middleware.RequestLog(logger),
			middleware.CORS(nil), middleware.SessionID, middleware.FixedAuth("local"),
			middleware.RestrictAccess(func(context.Context, access.Query) bool { return true }),
			middleware.Timeout(time.Minute)),
			flush: func(w http.ResponseWriter) error { return http.NewResponseController(w).Flush() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			releaseCh := make(chan struct{})
			release := sync.OnceFunc(func() { close(releaseCh) })
			flushErr := make(chan error, 1)
			srv := httptest.NewServer(tt.chain.ThenFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, "event: message\ndata: {\"first\":true}\n\n")
				flushErr <- tt.flush(w)
				select {
				case <-releaseCh:
				case <-r.Context().Done():
				}
				_, _ = io.WriteString(w, "event: message\ndata: {\"last\":true}\n\n")
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(release) // runs first: a failing test must not leave the handler blocked

			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
			require.NoError(t, err)
			req.Header.Set("Mcp-Session-Id", "abc")
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.NoError(t, <-flushErr)
			// The handler is blocked on release: only a flush can have sent the first event.
			br := bufio.NewReader(resp.Body)
			line, err := br.ReadString('\n')
			require.NoError(t, err)
			assert.Equal(t, "event: message\n", line)
			line, err = br.ReadString('\n')
			require.NoError(t, err)
			assert.Equal(t, "data: {\"first\":true}\n", line)
			release()
			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			assert.Equal(t, "\nevent: message\ndata: {\"last\":true}\n\n", string(rest))
		})
	}
}

func TestRequestLogPanicInsideRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus float64
	}{
		{name: "panic before writing", wantStatus: 500,
			handler: func(http.ResponseWriter, *http.Request) { panicInTool() }},
		{name: "panic after the status", wantStatus: 202,
			handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted); panicInTool() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := newLogger()
			h := alice.New(middleware.Recover(logger), middleware.RequestLog(logger)).Then(tt.handler)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			assert.EqualValues(t, tt.wantStatus, rec.Code)
			lines := logs.lines(t)
			require.Len(t, lines, 2)
			assert.Equal(t, "mcp request", lines[0]["msg"])
			assert.Equal(t, "ERROR", lines[0]["level"])
			assert.Equal(t, tt.wantStatus, lines[0]["status"])
			assert.Equal(t, true, lines[0]["panicked"])
			assert.Equal(t, "panic serving MCP request", lines[1]["msg"])
			assert.Contains(t, lines[1]["stack"], "panicInTool", "RequestLog must not cut the panic's stack")
		})
	}
}

//go:noinline
func panicInTool() { panic("tool bug") }

// TestRequestLogClientValues: header values a client sent are logged
// capped, and whole up to the cap even past a U+FFFD or an invalid byte
// (tint, the default handler, stops printing a value at the first one).
func TestRequestLogClientValues(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	logger := slog.New(tint.NewTextHandler(&buf, &tint.Options{NoColor: true}))
	h := middleware.RequestLog(logger)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Mcp-Method", "visible\uFFFDHIDDEN1")
	r.Header.Set("Mcp-Name", "visible\xffHIDDEN2")
	r.Header.Set("Mcp-Session-Id", strings.Repeat("s", 900<<10))
	h.ServeHTTP(httptest.NewRecorder(), r)
	out := buf.String()
	assert.Contains(t, out, `visible\\ufffdHIDDEN1`)
	assert.Contains(t, out, `visible\\xffHIDDEN2`)
	assert.Contains(t, out, "…")
	assert.Less(t, len(out), 1<<10, "%.300s", out)
}

// engineForLog is a stateful server with a tool that fails, a prompt and a
// resource, logging to its own logger, behind RequestLog(nil).
func engineForLog(t *testing.T) (http.Handler, *logBuffer) {
	t.Helper()
	logger, logs := newLogger()
	srv := mcp.NewServer(mcp.Options{Name: "log", Version: "1.0.0", Logger: logger})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(ctx context.Context, c *mcp.Context, in struct{ A, B int }) (int, error) {
		return in.A + in.B, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "broken"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		return "", errors.New("disk full")
	})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("hello"), nil
	}})
	srv.AddResource(mcp.Resource{URI: "file:///readme", Name: "readme", Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "hi"}}, nil
	}})
	engine := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = engine.Close() })
	return middleware.RequestLog(nil)(engine), logs
}

// TestRequestLogNamesWhatWasAsked: the line names the JSON-RPC method and
// the tool, prompt or resource the engine decoded, over HTTP and over the
// in-process transports (in their own terms), in the server's logger when
// RequestLog is given none.
func TestRequestLogNamesWhatWasAsked(t *testing.T) {
	t.Parallel()
	// 2025-03-26, the last revision with batches.
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	calls := []struct {
		body  string
		attrs map[string]any
		level string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"A":1,"B":2}}}`,
			map[string]any{"rpc": "tools/call", "tool": "add"}, "INFO"},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"broken","arguments":{}}}`,
			map[string]any{"rpc": "tools/call", "tool": "broken", "tool_error": true}, "INFO"},
		{`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet"}}`,
			map[string]any{"rpc": "prompts/get", "prompt": "greet"}, "INFO"},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///readme"}}`,
			map[string]any{"rpc": "resources/read", "resource": "file:///readme"}, "INFO"},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			map[string]any{"rpc": "tools/call", "tool": "nope", "rpc_error": float64(mcp.CodeInvalidParams)}, "INFO"},
		{`[{"jsonrpc":"2.0","id":6,"method":"tools/list"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
			map[string]any{"calls": 2.0}, "INFO"}, // rpc: both methods, in the order they finished
	}

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		h, logs := engineForLog(t)
		post := func(body, sid string) *httptest.ResponseRecorder {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				r.Header.Set("Mcp-Session-Id", sid)
				r.Header.Set("Mcp-Protocol-Version", "2025-03-26")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		sid := post(initialize, "").Header().Get("Mcp-Session-Id")
		require.NotEmpty(t, sid)
		for _, c := range calls {
			post(c.body, sid)
		}
		lines := requestLines(t, logs)
		require.Len(t, lines, 1+len(calls), "one line per HTTP request: %v", lines)
		assert.Equal(t, "initialize", lines[0]["rpc"])
		assert.Equal(t, sid, lines[0]["session"], "the session initialize issued")
		for i, c := range calls {
			line := lines[i+1]
			assert.Equal(t, "mcp request", line["msg"])
			assert.Equal(t, c.level, line["level"], "%s", c.body)
			assert.Equal(t, "POST", line["method"])
			assert.Equal(t, 200.0, line["status"])
			assert.Equal(t, sid, line["session"])
			for k, v := range c.attrs {
				assert.Equal(t, v, line[k], "%s: attribute %q in %v", c.body, k, line)
			}
		}
	})

	for _, transport := range []string{inproc.TransportStdio, inproc.TransportEmbedded} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			h, logs := engineForLog(t)
			c := inproc.New(h, nil)
			if transport == inproc.TransportEmbedded {
				c.Transport = transport
			}
			ctx := t.Context()
			send := func(body string) { c.Send(ctx, []byte(body), func([]byte) {}) }
			send(initialize)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			listening := make(chan struct{})
			lctx, stop := context.WithCancel(ctx)
			go func() { defer close(listening); c.Listen(lctx, func([]byte) {}) }()
			for _, call := range calls {
				send(call.body)
			}
			stop()
			<-listening
			c.Close(ctx)
			lines := requestLines(t, logs)
			require.Len(t, lines, 2+len(calls), "one line per message, none for the GET stream or DELETE: %v", lines)
			assert.Equal(t, "initialize", lines[0]["rpc"])
			assert.Equal(t, "notifications/initialized", lines[1]["rpc"])
			for i, call := range calls {
				line := lines[i+2]
				assert.Equal(t, transport, line["transport"])
				for _, k := range []string{"method", "path", "status", "bytes"} {
					assert.NotContains(t, line, k, "no HTTP terms over %s", transport)
				}
				assert.Equal(t, c.ID(), line["session"])
				for k, v := range call.attrs {
					assert.Equal(t, v, line[k], "%s: attribute %q in %v", call.body, k, line)
				}
			}
		})
	}
}

// requestLines are RequestLog's lines among the server's.
func requestLines(t *testing.T, logs *logBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range logs.lines(t) {
		if l["msg"] == "mcp request" {
			out = append(out, l)
		}
	}
	return out
}

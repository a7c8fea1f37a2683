package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/sampling"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLegacySSEEndpointEvent(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"", "/api", "/deep/er"} {
		t.Run("prefix "+prefix, func(t *testing.T) {
			t.Parallel()
			ts, _ := newLegacyServer(t, newEngineServer(t, nil), nil, prefix)
			req, err := http.NewRequest(http.MethodGet, ts.URL+prefix+"/sse", nil)
			require.NoError(t, err)
			req.Header.Set("Accept", "text/event-stream")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := ts.Client().Do(req.WithContext(ctx))
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			require.Equal(t, "no-cache, no-transform", resp.Header.Get("Cache-Control"))
			require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "the legacy stream has no Streamable HTTP session header")

			br := bufio.NewReader(resp.Body)
			line1, err := br.ReadString('\n')
			require.NoError(t, err)
			line2, err := br.ReadString('\n')
			require.NoError(t, err)
			line3, err := br.ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "event: endpoint\n", line1, "the first event is endpoint")
			data, ok := strings.CutPrefix(line2, "data: ")
			require.True(t, ok, line2)
			require.Equal(t, "\n", line3)
			data = strings.TrimSuffix(data, "\n")
			require.Regexp(t, `^messages\?sessionId=[A-Za-z0-9_-]{22}$`, data, "a reference relative to the stream's URL")
			u, err := url.Parse(ts.URL + prefix + "/sse")
			require.NoError(t, err)
			ep, err := u.Parse(data)
			require.NoError(t, err)
			require.Equal(t, prefix+"/messages", ep.Path, "resolved against the stream's URL it names the messages endpoint under the same prefix")
			require.NotEmpty(t, ep.Query().Get("sessionId"))
		})
	}
}

func TestLegacySSEOffByDefault(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(newEngineServer(t, nil), nil)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	for _, tt := range []struct{ method, path string }{{"GET", "/sse"}, {"POST", "/messages"}} {
		resp, body := fetch(t, tt.method, ts.URL+tt.path, "")
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "%s %s: %s", tt.method, tt.path, body)
	}
}

func TestLegacySSEFullSession(t *testing.T) {
	t.Parallel()
	srv := newLegacyTestServer(t)
	var hooks hookLog
	ts, h := newLegacyServer(t, srv, &mcphttp.Options{Hooks: hooks.hooks()}, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")

	init := c.initialize()
	var ir struct {
		ProtocolVersion string             `json:"protocolVersion"`
		ServerInfo      mcp.Implementation `json:"serverInfo"`
	}
	require.NoError(t, json.Unmarshal(init.Result, &ir))
	require.Equal(t, "2024-11-05", ir.ProtocolVersion)
	require.Equal(t, "mcphttp-test", ir.ServerInfo.Name)
	info := hooks.waitStart(t)
	require.Equal(t, "legacy", info.Client.Name, "the OnStart hook hears of the legacy session")
	require.Equal(t, 1, h.SessionCount())

	t.Run("tools/list", func(t *testing.T) {
		m, _ := c.call(1, "tools/list", "")
		var r struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &r))
		var names []string
		for _, tl := range r.Tools {
			names = append(names, tl.Name)
		}
		require.Contains(t, names, "add")
		require.Contains(t, names, "ask")
	})
	t.Run("tools/call", func(t *testing.T) {
		m, _ := c.call(2, "tools/call", `{"name":"add","arguments":{"a":2,"b":3}}`)
		r := wiretest.ToolResult(t, m)
		require.False(t, r.IsError)
		require.Equal(t, mcp.Text("5"), r.Content[0])
	})
	t.Run("unknown tool is a JSON-RPC answer on the stream", func(t *testing.T) {
		m, _ := c.call(3, "tools/call", `{"name":"nope","arguments":{}}`)
		require.NotNil(t, m.Error)
		require.Contains(t, m.Error.Message, "nope")
	})
	t.Run("progress notifications precede the result", func(t *testing.T) {
		m, before := c.call(4, "tools/call", `{"name":"progress","arguments":{},"_meta":{"progressToken":"p1"}}`)
		require.Equal(t, mcp.Text("progressed"), wiretest.ToolResult(t, m).Content[0])
		var progress int
		for _, b := range before {
			if b.Method == "notifications/progress" {
				progress++
			}
		}
		require.Equal(t, 3, progress, "%+v", before)
	})
	t.Run("logs reach the stream", func(t *testing.T) {
		m, _ := c.call(5, "logging/setLevel", `{"level":"debug"}`)
		require.Nil(t, m.Error)
		m, before := c.call(6, "tools/call", `{"name":"log","arguments":{}}`)
		require.Equal(t, mcp.Text("logged"), wiretest.ToolResult(t, m).Content[0])
		var logs []string
		for _, b := range before {
			if b.Method == "notifications/message" {
				logs = append(logs, string(b.Params))
			}
		}
		require.Len(t, logs, 3)
		require.Contains(t, logs[0], "debug message")
	})
	t.Run("sampling: a server request on the stream, the answer by POST", func(t *testing.T) {
		c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"q":"hi"}}}`)
		req := c.nextMessage()
		require.Equal(t, "sampling/createMessage", req.Method)
		require.NotEmpty(t, req.ID)
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"sampled hi"},"model":"m"}}`, req.ID))
		m := c.nextMessage()
		require.Equal(t, "7", string(m.ID))
		require.Equal(t, mcp.Text("sampled hi"), wiretest.ToolResult(t, m).Content[0])
	})
	t.Run("list changes come through the session's own stream", func(t *testing.T) {
		mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "late", nil })
		m := c.nextMessage()
		require.Equal(t, "notifications/tools/list_changed", m.Method)
	})
	t.Run("a ping from the client", func(t *testing.T) {
		m, _ := c.call(8, "ping", "")
		require.JSONEq(t, `{}`, string(m.Result))
	})
	t.Run("a second initialize is refused on the stream", func(t *testing.T) {
		m, _ := c.call(9, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"again","version":"1"}}`)
		require.NotNil(t, m.Error)
		require.Contains(t, m.Error.Message, "already initialized")
	})
}

func TestLegacySSERootsThroughTheSessionStream(t *testing.T) {
	t.Parallel()
	ts, h := newLegacyServer(t, newEngineServer(t, nil), nil, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")
	m, _ := c.call(0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"r","version":"1"}}`)
	require.Nil(t, m.Error)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// After initialized the engine asks for the roots on the session's
	// GET stream, which the legacy stream relays.
	req := c.nextMessage()
	require.Equal(t, "roots/list", req.Method)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":"file:///work","name":"work"}]}}`, req.ID))
	require.Eventually(t, func() bool {
		s := h.Sessions()
		return len(s) == 1 && len(s[0].Roots) == 1 && s[0].Roots[0].URI == "file:///work"
	}, 5*time.Second, 10*time.Millisecond)
}

// TestLegacySSENotificationHandledBeforeAccepted: the 202 of a POSTed
// notification comes once the engine has acted on it, as on Streamable
// HTTP, so a list change the server makes right after the 202 of
// notifications/initialized reaches the client. Each round checks, on the
// server, that the engine had handled notifications/initialized when the
// 202 was written, then changes the tool list and waits for the
// notification on the stream.
func TestLegacySSENotificationHandledBeforeAccepted(t *testing.T) {
	t.Parallel()
	srv := newEngineServer(t, nil)
	var handled atomic.Int64 // notifications/initialized the engine has acted on
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := mcp.WithInterceptor(r.Context(), func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					res, err := next(ctx, c)
					if c.Method == "notifications/initialized" {
						handled.Add(1)
					}
					return res, err
				}
			})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true})
	mux := mcphttp.NewMux(h, &mcphttp.MuxOptions{Middleware: []func(http.Handler) http.Handler{count}})
	// atAccept receives, for each 202 of the messages endpoint, how many
	// notifications/initialized the engine had handled when it was written.
	atAccept := make(chan int64, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == mcphttp.LegacyMessagesPath {
			w = &statusHook{ResponseWriter: w, onStatus: func(status int) {
				if status == http.StatusAccepted {
					atAccept <- handled.Load()
				}
			}}
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { _ = h.Close(); ts.Close() })

	for round := range int64(20) {
		c := openLegacy(t, ts.Client(), ts.URL+"/sse")
		m, _ := c.call(0, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"legacy","version":"1.0.0"}}`)
		require.Nil(t, m.Error, "%+v", m.Error)
		<-atAccept
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		require.Equal(t, round+1, <-atAccept, "round %d: the 202 of notifications/initialized was written before the engine handled it", round)
		mcp.AddTool(srv, mcp.Tool{Name: fmt.Sprintf("late%d", round)}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "late", nil })
		require.Equal(t, "notifications/tools/list_changed", c.nextMessage().Method, "round %d: a list change right after the 202 reaches the stream", round)
		c.close()
	}
}

// statusHook calls onStatus with the status a handler writes.
type statusHook struct {
	http.ResponseWriter
	onStatus func(int)
	wrote    bool
}

func (w *statusHook) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		w.onStatus(status)
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusHook) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusHook) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestLegacySSEAuthentication(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "auth", Version: "1.0.0", Logger: discardLogger(),
		Authenticate: func(r *http.Request) (any, error) {
			name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || (name != "alice" && name != "bob") {
				return nil, fmt.Errorf("%w: no valid token", mcp.ErrUnauthorized)
			}
			return name, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return fmt.Sprint(c.Session), nil
	})
	ts, _ := newLegacyServer(t, srv, nil, "")

	t.Run("stream without a token", func(t *testing.T) {
		c, resp, body := dialLegacy(t, ts.Client(), ts.URL+"/sse")
		require.Nil(t, c)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")
	})

	c := openLegacy(t, ts.Client(), ts.URL+"/sse", "Authorization", "Bearer alice")
	tests := []struct {
		name   string
		token  string
		status int
		body   string
	}{
		{"no token", "", http.StatusUnauthorized, "Unauthorized"},
		{"unknown token", "Bearer mallory", http.StatusUnauthorized, "Unauthorized"},
		{"another caller's token", "Bearer bob", http.StatusForbidden, "belongs to another caller"},
	}
	for _, tt := range tests {
		t.Run("POST with "+tt.name, func(t *testing.T) {
			resp, body := c.post(legacyInit, "Authorization", tt.token)
			require.Equal(t, tt.status, resp.StatusCode, body)
			require.Contains(t, body, tt.body)
			if tt.status == http.StatusUnauthorized {
				require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer", "the challenge reaches the legacy client")
			}
		})
	}
	t.Run("the stream's caller", func(t *testing.T) {
		c.initialize()
		m, _ := c.call(1, "tools/call", `{"name":"whoami","arguments":{}}`)
		require.Equal(t, mcp.Text("alice"), wiretest.ToolResult(t, m).Content[0], "the tool sees the caller's auth data")
		resp, body := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Authorization", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "every POST is authenticated, not just the first: %s", body)
	})
}

func TestLegacySSEBadRequests(t *testing.T) {
	t.Parallel()
	ts, _ := newLegacyServer(t, newEngineServer(t, nil), &mcphttp.Options{MaxBodyBytes: 512}, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")
	c.initialize()
	messages := ts.URL + "/messages"
	tests := []struct {
		name   string
		url    string
		body   string
		header []string
		status int
		code   int64
		msg    string
	}{
		{"no sessionId", messages, legacyInit, nil, 400, -32000, "missing the sessionId query parameter"},
		{"unknown sessionId", messages + "?sessionId=nope", legacyInit, nil, 404, -32001, `no open SSE stream has sessionId "nope"`},
		{"wrong content type", c.endpoint, legacyInit, []string{"Content-Type", "text/plain"}, 415, -32000, `Content-Type must be application/json, not "text/plain"`},
		{"body too large", c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 600) + `"}}`, nil, 413, -32600, "exceeds 512 bytes"},
		{"invalid JSON", c.endpoint, `{"jsonrpc":`, nil, 400, -32700, "Parse error"},
		{"not JSON-RPC", c.endpoint, `{"id":1,"method":"ping"}`, nil, 400, -32600, "jsonrpc"},
		{"batch", c.endpoint, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, -32600, "one JSON-RPC message per POST"},
		{"unsupported protocol version", c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "1999-01-01"}, 400, -32000, `unsupported MCP-Protocol-Version "1999-01-01"`},
		{"foreign Origin", c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Origin", "https://evil.example"}, 403, 0, "Origin"},
		{"foreign Host", c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Host", "evil.example"}, 403, 0, "Host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tt.url, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tt.header); i += 2 {
				if tt.header[i] == "Host" {
					req.Host = tt.header[i+1]
				} else {
					req.Header.Set(tt.header[i], tt.header[i+1])
				}
			}
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			require.Equal(t, tt.status, resp.StatusCode, "%s", b)
			if tt.code == 0 {
				require.Contains(t, string(b), tt.msg)
				return
			}
			var m msg
			require.NoError(t, json.Unmarshal(b, &m), "%s", b)
			require.NotNil(t, m.Error)
			require.Equal(t, tt.code, m.Error.Code)
			require.Contains(t, m.Error.Message, tt.msg)
		})
	}
	t.Run("the stream still works after the refusals", func(t *testing.T) {
		m, _ := c.call(20, "ping", "")
		require.Nil(t, m.Error)
	})

	streamTests := []struct {
		name   string
		header []string
		status int
	}{
		{"stream from a foreign Origin", []string{"Origin", "https://evil.example"}, 403},
		{"stream that accepts only JSON", []string{"Accept", "application/json"}, 406},
	}
	for _, tt := range streamTests {
		t.Run(tt.name, func(t *testing.T) {
			sc, resp, body := dialLegacy(t, ts.Client(), ts.URL+"/sse", tt.header...)
			require.Nil(t, sc)
			require.Equal(t, tt.status, resp.StatusCode, body)
		})
	}
}

func TestLegacySSESessionEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   mcphttp.Options
		server func(t *testing.T) *mcp.Server
		end    func(t *testing.T, c *legacyClient, h *mcphttp.Handler, sid string)
		reason mcphttp.EndReason
	}{
		{
			name: "the client closes the stream",
			end: func(t *testing.T, c *legacyClient, _ *mcphttp.Handler, _ string) {
				c.close()
			},
			reason: mcphttp.EndDeleted,
		},
		{
			name: "the server ends the session",
			end: func(t *testing.T, c *legacyClient, h *mcphttp.Handler, sid string) {
				h.EndSession(sid)
				c.waitClosed()
			},
			reason: mcphttp.EndServer,
		},
		{
			name: "the client stops answering pings",
			server: func(t *testing.T) *mcp.Server {
				return mcp.NewServer(mcp.Options{Name: "ping", Version: "1.0.0", Logger: discardLogger()})
			},
			opts: mcphttp.Options{Ping: &middleware.PingOptions{Interval: 20 * time.Millisecond}},
			end: func(t *testing.T, c *legacyClient, _ *mcphttp.Handler, _ string) {
				// The pings arrive on the stream; this client never answers.
				for {
					ev, ok := <-c.events
					if !ok {
						return
					}
					require.Contains(t, ev.data, `"method":"ping"`)
				}
			},
			reason: mcphttp.EndLost,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var srv *mcp.Server
			if tt.server != nil {
				srv = tt.server(t)
			} else {
				srv = newEngineServer(t, nil)
			}
			var hooks hookLog
			o := tt.opts
			o.Hooks = hooks.hooks()
			ts, h := newLegacyServer(t, srv, &o, "")
			c := openLegacy(t, ts.Client(), ts.URL+"/sse")
			c.initialize()
			sid := hooks.waitStart(t).ID
			require.Equal(t, 1, h.SessionCount())

			tt.end(t, c, h, sid)
			require.Equal(t, tt.reason, hooks.waitEnd(t).reason)
			require.Eventually(t, func() bool { return h.SessionCount() == 0 }, 5*time.Second, 10*time.Millisecond)
			_, ends, _ := hooks.snapshot()
			require.Len(t, ends, 1, "OnEnd called twice")
			// The stream is gone, so its endpoint is too.
			require.Eventually(t, func() bool {
				resp, _ := legacyPost(t, ts.Client(), c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				return resp.StatusCode == http.StatusNotFound
			}, 5*time.Second, 10*time.Millisecond)
		})
	}
}

func TestLegacySSEStreamClosedEndsCallsInFlight(t *testing.T) {
	t.Parallel()
	probe := mcptest.NewProbe()
	ts, _ := newLegacyServer(t, newEngineServer(t, probe), nil, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-probe.Started
	c.close()
	select {
	case err := <-probe.Stopped:
		require.Error(t, err, "the call was cancelled, not run to its end")
	case <-time.After(5 * time.Second):
		t.Fatal("closing the stream did not cancel the call in flight")
	}
}

func TestLegacySSEStateless(t *testing.T) {
	t.Parallel()
	ts, h := newLegacyServer(t, newEngineServer(t, nil), &mcphttp.Options{Stateless: true}, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")
	c.initialize()
	m, _ := c.call(1, "tools/call", `{"name":"add","arguments":{"a":1,"b":1}}`)
	require.Equal(t, mcp.Text("2"), wiretest.ToolResult(t, m).Content[0])
	require.Equal(t, 0, h.SessionCount(), "a stateless engine keeps no session; the stream alone carries the answers")
}

func TestLegacySSEConcurrentCalls(t *testing.T) {
	t.Parallel()
	probe := mcptest.NewProbe()
	ts, _ := newLegacyServer(t, newEngineServer(t, probe), nil, "")
	c := openLegacy(t, ts.Client(), ts.URL+"/sse")
	c.initialize()
	// A call that runs until cancelled must not hold up the next POST:
	// the 202 comes once the chain admitted the message.
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-probe.Started
	var wg sync.WaitGroup
	for i := 2; i < 6; i++ {
		wg.Go(func() {
			resp, body := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":0}}}`, i, i))
			assert.Equal(t, http.StatusAccepted, resp.StatusCode, body)
		})
	}
	wg.Wait()
	got := map[string]bool{}
	for len(got) < 4 {
		m := c.nextMessage()
		require.True(t, m.IsResponse())
		got[string(m.ID)] = true
	}
	require.Equal(t, map[string]bool{"2": true, "3": true, "4": true, "5": true}, got)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	select {
	case err := <-probe.Stopped:
		require.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not reach the call")
	}
}

func TestLegacySSEGracefulShutdownFinishesCallsInFlight(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "drain", Version: "1.0.0", Logger: discardLogger()})
	started := make(chan struct{})
	mcp.AddTool(srv, mcp.Tool{Name: "nap"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		close(started)
		select {
		case <-time.After(300 * time.Millisecond):
			return "rested", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportHTTPStream,
		Host: "127.0.0.1", Port: -1, Handler: &mcphttp.Options{LegacySSE: true}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Close() })
	c := openLegacy(t, http.DefaultClient, "http://"+inst.Addr()+"/sse")
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nap","arguments":{}}}`)
	<-started
	closed := make(chan error, 1)
	go func() { closed <- inst.Close() }()
	m := c.nextMessage()
	require.Equal(t, "1", string(m.ID))
	require.Equal(t, mcp.Text("rested"), wiretest.ToolResult(t, m).Content[0], "the call in flight finished and its answer reached the stream")
	c.waitClosed()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

func TestLegacySSEMuxMiddlewareRunsOncePerMessage(t *testing.T) {
	t.Parallel()
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "tenant"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		v, _ := ctx.Value(legacyTenantKey{}).(string)
		return v, nil
	})
	var mu sync.Mutex
	seen := map[string]int{} // method + path -> requests the middleware saw
	tenant := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Block") != "" {
				http.Error(w, "Too Many Requests: slow down", http.StatusTooManyRequests)
				return
			}
			mu.Lock()
			seen[r.Method+" "+r.URL.Path]++
			mu.Unlock()
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), legacyTenantKey{}, r.Header.Get("X-Tenant"))))
		})
	}
	h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true})
	ts := httptest.NewServer(mcphttp.NewMux(h, &mcphttp.MuxOptions{Middleware: []func(http.Handler) http.Handler{tenant}}))
	t.Cleanup(func() { _ = h.Close(); ts.Close() })

	c := openLegacy(t, ts.Client(), ts.URL+"/sse", "X-Tenant", "acme")
	c.initialize()
	m, _ := c.call(1, "tools/call", `{"name":"tenant","arguments":{}}`)
	require.Equal(t, mcp.Text("acme"), wiretest.ToolResult(t, m).Content[0], "a value the mux's middleware stored reaches the tool")

	resp, body := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "X-Block", "1")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the middleware's refusal is the legacy POST's answer: %s", body)
	require.Contains(t, body, "slow down")

	// The stream opens the session's own GET on a goroutine of its own
	// once initialize is answered, so nothing above waited for it. A ping
	// from the engine goes out on that GET alone: once it reaches the
	// legacy stream, the GET has passed the whole chain, the middleware
	// included.
	sessions := h.Sessions()
	require.Len(t, sessions, 1)
	ctx, cancel := context.WithCancel(context.Background())
	pinged := make(chan error, 1)
	go func() { pinged <- h.PingSession(ctx, sessions[0].ID) }()
	require.Equal(t, "ping", c.nextMessage().Method)
	cancel() // the ping needs no answer: another POST would change the counts
	<-pinged

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 3, seen["POST /messages"], "once per message: initialize, initialized, tools/call")
	require.Equal(t, 2, seen["GET /sse"], "the stream itself, and the session's own GET stream it relays, opened after initialize")
}

// legacyEvent is one event of a legacy stream.
type legacyEvent struct{ name, data string }

// legacyClient is a client of the legacy HTTP+SSE transport, written from
// the 2024-11-05 transport spec: a GET stream whose first event names the
// URL to POST messages to.
type legacyClient struct {
	t        testing.TB
	hc       *http.Client
	header   http.Header
	endpoint string
	events   chan legacyEvent // closed when the stream ends
	cancel   context.CancelFunc
	done     chan struct{}
}

// dialLegacy opens a legacy stream at sseURL with extra headers (in
// pairs). It returns the client when the server answered 200 and sent the
// endpoint event, else nil with the refused response and its body.
func dialLegacy(t testing.TB, hc *http.Client, sseURL string, header ...string) (*legacyClient, *http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sseURL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return nil, resp, string(b)
	}
	c := &legacyClient{t: t, hc: hc, header: req.Header.Clone(), events: make(chan legacyEvent, 256), cancel: cancel, done: make(chan struct{})}
	c.header.Del("Accept")
	go c.read(resp.Body)
	t.Cleanup(c.close)
	ev := c.next()
	require.Equal(t, "endpoint", ev.name, "the first event names the messages endpoint")
	base, err := url.Parse(sseURL)
	require.NoError(t, err)
	ep, err := base.Parse(ev.data)
	require.NoError(t, err)
	c.endpoint = ep.String()
	return c, resp, ""
}

// openLegacy is dialLegacy that must succeed.
func openLegacy(t testing.TB, hc *http.Client, sseURL string, header ...string) *legacyClient {
	t.Helper()
	c, resp, body := dialLegacy(t, hc, sseURL, header...)
	require.NotNil(t, c, "GET %s: %d %s", sseURL, resp.StatusCode, body)
	return c
}

func (c *legacyClient) read(body io.ReadCloser) {
	defer close(c.done)
	defer close(c.events)
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	var ev legacyEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 || ev.name != "" {
				ev.data = strings.Join(data, "\n")
				c.events <- ev
			}
			ev, data = legacyEvent{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// close ends the stream from the client side and waits for its reader.
func (c *legacyClient) close() {
	c.cancel()
	<-c.done
}

// next returns the next event; it fails the test after 5 s or when the
// stream ended.
func (c *legacyClient) next() legacyEvent {
	c.t.Helper()
	select {
	case ev, ok := <-c.events:
		require.True(c.t, ok, "the stream ended")
		return ev
	case <-time.After(5 * time.Second):
		c.t.Fatal("no event within 5 s")
	}
	return legacyEvent{}
}

// nextMessage returns the next message on the stream.
func (c *legacyClient) nextMessage() msg {
	c.t.Helper()
	ev := c.next()
	require.Equal(c.t, "message", ev.name)
	var m msg
	require.NoError(c.t, json.Unmarshal([]byte(ev.data), &m), ev.data)
	return m
}

// waitClosed requires the server to end the stream within 5 s.
func (c *legacyClient) waitClosed() {
	c.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-c.events:
			if !ok {
				return
			}
		case <-deadline:
			c.t.Fatal("the server did not close the stream within 5 s")
		}
	}
}

// post sends body to the messages endpoint with the stream's headers (and
// extra ones in pairs; an empty value deletes one).
func (c *legacyClient) post(body string, header ...string) (*http.Response, string) {
	c.t.Helper()
	return legacyPost(c.t, c.hc, c.endpoint, body, append(headerPairs(c.header), header...)...)
}

func headerPairs(h http.Header) []string {
	var out []string
	for k, v := range h {
		out = append(out, k, v[0])
	}
	return out
}

func legacyPost(t testing.TB, hc *http.Client, u, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// send posts one message and requires 202 Accepted.
func (c *legacyClient) send(body string) {
	c.t.Helper()
	resp, b := c.post(body)
	require.Equal(c.t, http.StatusAccepted, resp.StatusCode, b)
	require.Equal(c.t, "Accepted", b)
}

// call sends a request and returns its response from the stream, with the
// messages that came before it.
func (c *legacyClient) call(id int, method, params string) (msg, []msg) {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		body += `,"params":` + params
	}
	c.send(body + "}")
	var before []msg
	for {
		m := c.nextMessage()
		if m.IsResponse() && string(m.ID) == fmt.Sprint(id) {
			return m, before
		}
		before = append(before, m)
	}
}

const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"legacy","version":"1.0.0"}}}`

// initialize runs the handshake and returns the initialize result.
func (c *legacyClient) initialize() msg {
	c.t.Helper()
	m, before := c.call(0, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"legacy","version":"1.0.0"}}`)
	require.Empty(c.t, before)
	require.Nil(c.t, m.Error, "%+v", m.Error)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// newLegacyServer serves srv through NewMux with the legacy transport on,
// under prefix when it is not empty.
func newLegacyServer(t testing.TB, srv *mcp.Server, opts *mcphttp.Options, prefix string) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	var o mcphttp.Options
	if opts != nil {
		o = *opts
	}
	o.LegacySSE = true
	h := mcphttp.New(srv, &o)
	var handler http.Handler = mcphttp.NewMux(h, nil)
	if prefix != "" {
		parent := http.NewServeMux()
		parent.Handle(prefix+"/", http.StripPrefix(prefix, handler))
		handler = parent
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return ts, h
}

// newLegacyTestServer is the engine test server plus tools that reach the
// client: sampling, and a tool that logs at every level.
func newLegacyTestServer(t testing.TB) *mcp.Server {
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, in struct {
		Q string `json:"q"`
	}) (string, error) {
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 10,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text(in.Q)}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	return srv
}

type legacyTenantKey struct{}

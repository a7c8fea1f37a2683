package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of Options.Resumable: the transport spec's "Resumability and
// Redelivery" and the SSE polling of revision 2025-11-25 (SEP-1699).

// logText is the message of a notifications/message a tool sent with
// c.Log.
func logText(t testing.TB, m msg) string {
	t.Helper()
	require.Equal(t, "notifications/message", m.Method)
	var p struct {
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	return p.Data.Message
}

// resumeProbe watches the resume tests' tools.
type resumeProbe struct {
	gate     chan struct{} // chatty waits for it after its first notification
	finished chan error    // context.Cause(ctx) when a tool ended; nil: it ran to completion
	closeErr chan error    // what CloseSSEStream returned to poll
}

type resumeArgs struct {
	Tag   string `json:"tag,omitempty"`
	Block bool   `json:"block,omitempty"`
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// newResumeServer is the engine server plus the tools the resume tests
// call.
func newResumeServer(t testing.TB, p *resumeProbe) *mcp.Server {
	srv := newEngineServer(t, nil)
	// chatty sends three notifications, sleeping between them; the
	// second waits for the probe's gate.
	mcp.AddTool(srv, mcp.Tool{Name: "chatty"}, func(ctx context.Context, c *mcp.Context, in resumeArgs) (string, error) {
		c.Log.Info(in.Tag + " 1")
		select {
		case <-p.gate:
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		sleepCtx(ctx, 20*time.Millisecond)
		c.Log.Info(in.Tag + " 2")
		sleepCtx(ctx, 20*time.Millisecond)
		c.Log.Info(in.Tag + " 3")
		sleepCtx(ctx, 20*time.Millisecond)
		p.finished <- context.Cause(ctx)
		return in.Tag + " done", ctx.Err()
	})
	// hold sends a notification and waits for its context.
	mcp.AddTool(srv, mcp.Tool{Name: "hold"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("holding")
		select {
		case <-ctx.Done():
			p.finished <- context.Cause(ctx)
			return "", context.Cause(ctx)
		case <-time.After(10 * time.Second):
			p.finished <- nil
			return "held", nil
		}
	})
	// poll closes its SSE connection mid-call, like the conformance
	// fixture's test_reconnection; with block it then waits for its
	// context.
	mcp.AddTool(srv, mcp.Tool{Name: "poll"}, func(ctx context.Context, c *mcp.Context, in resumeArgs) (string, error) {
		c.Log.Info("before close")
		err := mcphttp.CloseSSEStream(ctx)
		p.closeErr <- err
		if in.Block {
			select {
			case <-ctx.Done():
				p.finished <- context.Cause(ctx)
				return "", context.Cause(ctx)
			case <-time.After(10 * time.Second):
			}
		}
		sleepCtx(ctx, 50*time.Millisecond)
		c.Log.Info("after close")
		p.finished <- context.Cause(ctx)
		if err != nil {
			return "polled: " + err.Error(), nil
		}
		return "polled: closed", nil
	})
	return srv
}

// resumeEnv is a session's client of an engine serving newResumeServer.
type resumeEnv struct {
	c      *httpClient
	srv    *mcp.Server
	p      *resumeProbe
	served chan string // X-Test-Tag of each request whose handler returned
}

// newResumeEnv serves the resume tools with opts, behind wrap (when not
// nil).
func newResumeEnv(t *testing.T, opts *mcphttp.Options, wrap func(http.Handler) http.Handler) *resumeEnv {
	t.Helper()
	p := &resumeProbe{gate: make(chan struct{}), finished: make(chan error, 8), closeErr: make(chan error, 8)}
	srv := newResumeServer(t, p)
	h := mcphttp.New(srv, opts)
	var inner http.Handler = h
	if wrap != nil {
		inner = wrap(h)
	}
	served := make(chan string, 64)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r)
		if tag := r.Header.Get("X-Test-Tag"); tag != "" {
			served <- tag
		}
	}))
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return &resumeEnv{c: &httpClient{t: t, url: ts.URL, hc: ts.Client()}, srv: srv, p: p, served: served}
}

// waitServed waits until the handler of the request tagged tag returned.
func (e *resumeEnv) waitServed(tag string) {
	e.c.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case got := <-e.served:
			if got == tag {
				return
			}
		case <-timeout:
			e.c.t.Fatalf("the handler of request %q did not return", tag)
		}
	}
}

// waitFinished returns what ended a tool (nil: it ran to completion).
func (e *resumeEnv) waitFinished() error {
	e.c.t.Helper()
	return receive(e.c.t, e.p.finished, 5*time.Second, "the tool did not end")
}

// waitCloseErr returns what CloseSSEStream returned to the tool.
func (e *resumeEnv) waitCloseErr() error {
	e.c.t.Helper()
	return receive(e.c.t, e.p.closeErr, 5*time.Second, "the tool did not call CloseSSEStream")
}

// requireNewIDs checks that every event has an ID none of seen has, and
// adds them.
func requireNewIDs(t testing.TB, seen map[string]bool, evs ...sseEvent) {
	t.Helper()
	for _, ev := range evs {
		require.True(t, ev.HasID && ev.ID != "", "an event of a resumable stream has no ID: %+v", ev)
		require.False(t, seen[ev.ID], "event ID %q is used twice in the session", ev.ID)
		seen[ev.ID] = true
	}
}

func TestResumableEventIDs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		version string
		primed  bool
	}{
		{"2025-11-25", true},
		{"2025-06-18", false},
		{"2025-03-26", false},
	} {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			e := newResumeEnv(t, &mcphttp.Options{Resumable: true, RetryInterval: 250 * time.Millisecond}, nil)
			e.c.initialize(tt.version)
			seen := map[string]bool{}
			for id, tc := range []struct {
				tool, args string
				notifs     int
			}{{"log", `{}`, 3}, {"add", `{"a":1,"b":2}`, 0}, {"log", `{}`, 3}} {
				evs := e.c.sse(http.MethodPost, toolCall(id+1, tc.tool, tc.args))
				if tt.primed {
					require.NotEmpty(t, evs)
					prime := evs[0]
					require.True(t, prime.isPriming(), "a 2025-11-25 client is first sent a priming event (an ID and empty data), got %+v", prime)
					require.True(t, prime.HasRetry, "the priming event carries the retry interval")
					require.Equal(t, "250", prime.Retry)
					requireNewIDs(t, seen, prime)
					evs = evs[1:]
				}
				require.Len(t, evs, tc.notifs+1, "%d notifications and the response", tc.notifs)
				for _, ev := range evs {
					require.False(t, ev.isPriming() || ev.Data == "", "a %s client gets no priming event, got %+v", tt.version, ev)
					require.False(t, ev.HasRetry, "no retry field on a stream that is not closed early")
					ev.msg(t)
				}
				requireNewIDs(t, seen, evs...)
				last := evs[len(evs)-1].msg(t)
				require.True(t, last.IsResponse())
				require.Equal(t, strconv.Itoa(id+1), string(last.ID))
			}
			wantIDs := 3 + 3 + 0 + 3 // three responses, six notifications
			if tt.primed {
				wantIDs += 3
			}
			require.Len(t, seen, wantIDs)
		})
	}
}

func TestResumableResumeAfterDisconnect(t *testing.T) {
	t.Parallel()
	e := newResumeEnv(t, &mcphttp.Options{Resumable: true}, nil)
	e.c.initialize("2025-11-25")
	seen := map[string]bool{}

	ctx, drop := context.WithTimeout(context.Background(), 10*time.Second)
	defer drop()
	s := e.c.open(ctx, http.MethodPost, toolCall(2, "chatty", `{"tag":"A"}`), "X-Test-Tag", "A")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	prime := s.mustNext()
	require.True(t, prime.isPriming(), "%+v", prime)
	first := s.mustNext()
	require.Equal(t, "A 1", logText(t, first.msg(t)))
	requireNewIDs(t, seen, prime, first)

	// The connection breaks; the server notices.
	drop()
	e.waitServed("A")
	// The request goes on: the tool sends the rest while nobody listens,
	// and runs to completion.
	close(e.p.gate)
	require.NoError(t, e.waitFinished(), "a broken connection must not cancel a resumable request")

	// Meanwhile another request runs on its own stream, and a message is
	// queued for the session's GET stream.
	other := e.c.sse(http.MethodPost, toolCall(3, "log", `{}`))
	require.Len(t, other, 5, "priming, 3 notifications, the response")
	requireNewIDs(t, seen, other...)
	require.Equal(t, "3", string(other[4].msg(t).ID))
	mcp.AddTool(e.srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })

	// Resuming from the last event seen replays what was missed, the
	// response last, and nothing else.
	resumed := e.c.sse(http.MethodGet, "", "Last-Event-ID", first.ID)
	require.Len(t, resumed, 3, "the two missed notifications and the response: %+v", resumed)
	requireNewIDs(t, seen, resumed...)
	require.Equal(t, "A 2", logText(t, resumed[0].msg(t)))
	require.Equal(t, "A 3", logText(t, resumed[1].msg(t)))
	res := resumed[2].msg(t)
	require.True(t, res.IsResponse())
	require.Equal(t, "2", string(res.ID))
	require.Equal(t, "A done", wiretest.ToolResult(t, res).Text())

	// The stream was delivered: resuming it again gets a stream that ends
	// at once, empty.
	resp, body := e.c.do(http.MethodGet, "", "Last-Event-ID", first.ID)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Empty(t, body)

	// The GET stream's message was left for the GET stream.
	gctx, gcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer gcancel()
	g := e.c.open(gctx, http.MethodGet, "")
	require.Equal(t, http.StatusOK, g.resp.StatusCode)
	require.Equal(t, "notifications/tools/list_changed", g.mustNext().msg(t).Method)
}

func TestResumableBadLastEventID(t *testing.T) {
	t.Parallel()
	e := newResumeEnv(t, &mcphttp.Options{Resumable: true}, nil)
	e.c.initialize("2025-11-25")

	// A delivered stream's ID.
	done := e.c.sse(http.MethodPost, toolCall(2, "add", `{"a":1,"b":2}`))
	require.Len(t, done, 2)
	require.True(t, done[1].HasID)

	// A stream of another session, closed early and not yet resumed: its
	// own session can resume it, this one cannot.
	c2 := &httpClient{t: t, url: e.c.url, hc: e.c.hc}
	c2.initialize("2025-11-25")
	parked := c2.sse(http.MethodPost, toolCall(2, "poll", `{}`))
	require.Len(t, parked, 3, "priming, a notification, the retry field: %+v", parked)
	require.NoError(t, e.waitCloseErr())
	require.NoError(t, e.waitFinished())

	// An ID this server cannot have made is a client's mistake: 400.
	for _, tt := range []struct{ name, id string }{
		{"no separator", "garbage"},
		{"no stream", "_3"},
		{"not a number", "0123456789abcdef_x"},
		{"negative", "0123456789abcdef_-1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := *e.c
			c.t = t
			resp, body := c.do(http.MethodGet, "", "Last-Event-ID", tt.id)
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.Contains(t, string(body), "Last-Event-ID is not an event ID of this server")
		})
	}
	// A stream that is gone, or not this session's, resumes as a stream
	// that ends at once: an error status would end the whole connection
	// of a client that reconnects after a network failure.
	for _, tt := range []struct{ name, id string }{
		{"unknown stream", "0123456789abcdef_1"},
		{"delivered stream", done[1].ID},
		{"another session's stream", parked[1].ID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := *e.c
			c.t = t
			resp, body := c.do(http.MethodGet, "", "Last-Event-ID", tt.id)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			require.Empty(t, body)
		})
	}

	rest := c2.sse(http.MethodGet, "", "Last-Event-ID", parked[1].ID)
	require.Len(t, rest, 2, "%+v", rest)
	require.Equal(t, "polled: closed", wiretest.ToolResult(t, rest[1].msg(t)).Text())
}

func TestResumableCloseSSEStream(t *testing.T) {
	t.Parallel()
	require.ErrorIs(t, mcphttp.CloseSSEStream(context.Background()), mcphttp.ErrNotResumable)

	t.Run("resumed", func(t *testing.T) {
		t.Parallel()
		e := newResumeEnv(t, &mcphttp.Options{Resumable: true, RetryInterval: 150 * time.Millisecond}, nil)
		e.c.initialize("2025-11-25")
		seen := map[string]bool{}
		// The POST's connection ends after the retry field, without the
		// response.
		evs := e.c.sse(http.MethodPost, toolCall(2, "poll", `{}`))
		require.NoError(t, e.waitCloseErr())
		require.Len(t, evs, 3, "priming, a notification, the retry field: %+v", evs)
		require.True(t, evs[0].isPriming())
		require.Equal(t, "before close", logText(t, evs[1].msg(t)))
		requireNewIDs(t, seen, evs[0], evs[1])
		require.True(t, evs[2].HasRetry, "the connection is closed after a retry field: %+v", evs[2])
		require.Equal(t, "150", evs[2].Retry)
		require.False(t, evs[2].HasData)

		// The client comes back (after the retry interval, in a real
		// client) and gets the rest, replayed or live.
		rest := e.c.sse(http.MethodGet, "", "Last-Event-ID", evs[1].ID)
		require.Len(t, rest, 2, "%+v", rest)
		requireNewIDs(t, seen, rest...)
		require.Equal(t, "after close", logText(t, rest[0].msg(t)))
		res := rest[1].msg(t)
		require.Equal(t, "2", string(res.ID))
		require.Equal(t, "polled: closed", wiretest.ToolResult(t, res).Text())
		require.NoError(t, e.waitFinished(), "closing the stream does not cancel the request")
	})

	for _, tt := range []struct {
		name      string
		resumable bool
		version   string
	}{
		{"2025-03-26 client", true, "2025-03-26"},
		{"2025-06-18 client", true, "2025-06-18"},
		{"resumable off", false, "2025-11-25"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newResumeEnv(t, &mcphttp.Options{Resumable: tt.resumable}, nil)
			e.c.initialize(tt.version)
			// The client could not resume: the stream stays open and
			// the response follows on it.
			evs := e.c.sse(http.MethodPost, toolCall(2, "poll", `{}`))
			require.ErrorIs(t, e.waitCloseErr(), mcphttp.ErrNotResumable)
			require.Len(t, evs, 3, "%+v", evs)
			for _, ev := range evs {
				require.False(t, ev.HasRetry, "no retry field: %+v", ev)
				require.False(t, ev.isPriming(), "no priming event: %+v", ev)
			}
			require.Equal(t, "before close", logText(t, evs[0].msg(t)))
			require.Equal(t, "after close", logText(t, evs[1].msg(t)))
			res := evs[2].msg(t)
			require.Equal(t, "2", string(res.ID))
			require.Equal(t, "polled: "+mcphttp.ErrNotResumable.Error(), wiretest.ToolResult(t, res).Text())
		})
	}
}

func TestResumableTimeout(t *testing.T) {
	t.Parallel()
	const limit = 200 * time.Millisecond
	timeout := middleware.Timeout(limit)

	// While the connection is open, the deadline cancels the tool and the
	// client gets the failure on the POST, as without Resumable.
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run("connected "+version, func(t *testing.T) {
			t.Parallel()
			e := newResumeEnv(t, &mcphttp.Options{Resumable: true}, timeout)
			e.c.initialize(version)
			start := time.Now()
			evs := e.c.sse(http.MethodPost, toolCall(2, "hold", `{}`))
			cause := e.waitFinished()
			require.ErrorIs(t, cause, middleware.ErrTimeout)
			require.GreaterOrEqual(t, time.Since(start), limit)
			require.NotEmpty(t, evs)
			last := evs[len(evs)-1]
			require.True(t, last.HasData && last.Data != "", "the stream ends with the response: %+v", evs)
			res := last.msg(t)
			require.True(t, res.IsResponse(), "the stream ends with the response: %+v", evs)
			require.Equal(t, "2", string(res.ID))
			r := wiretest.ToolResult(t, res)
			require.True(t, r.IsError)
			require.Contains(t, r.Text(), "ran out of time")
		})
	}

	// The deadline outlives the connection: a resumable request is not
	// cancelled by a disconnect, but its time limit still holds.
	t.Run("disconnected", func(t *testing.T) {
		t.Parallel()
		e := newResumeEnv(t, &mcphttp.Options{Resumable: true}, timeout)
		e.c.initialize("2025-11-25")
		ctx, drop := context.WithTimeout(context.Background(), 10*time.Second)
		defer drop()
		start := time.Now()
		s := e.c.open(ctx, http.MethodPost, toolCall(2, "hold", `{}`), "X-Test-Tag", "hold")
		require.True(t, s.mustNext().isPriming())
		require.Equal(t, "holding", logText(t, s.mustNext().msg(t)))
		drop()
		e.waitServed("hold")
		cause := e.waitFinished()
		require.True(t, errors.Is(cause, middleware.ErrTimeout) || errors.Is(cause, context.DeadlineExceeded),
			"the time limit cancels the request, got %v", cause)
		require.NotErrorIs(t, cause, context.Canceled, "the disconnect does not cancel the request")
		require.GreaterOrEqual(t, time.Since(start), limit)
	})
	t.Run("after CloseSSEStream", func(t *testing.T) {
		t.Parallel()
		e := newResumeEnv(t, &mcphttp.Options{Resumable: true}, timeout)
		e.c.initialize("2025-11-25")
		start := time.Now()
		evs := e.c.sse(http.MethodPost, toolCall(2, "poll", `{"block":true}`))
		require.NoError(t, e.waitCloseErr())
		require.Len(t, evs, 3, "%+v", evs)
		cause := e.waitFinished()
		require.True(t, errors.Is(cause, middleware.ErrTimeout) || errors.Is(cause, context.DeadlineExceeded),
			"the time limit cancels the request, got %v", cause)
		require.GreaterOrEqual(t, time.Since(start), limit)
		rest := e.c.sse(http.MethodGet, "", "Last-Event-ID", evs[1].ID)
		require.Len(t, rest, 1, "%+v", rest)
		require.True(t, wiretest.ToolResult(t, rest[0].msg(t)).IsError)
	})
}

// Without Options.Resumable (the default) a request's SSE stream is plain:
// its events carry no ID, so the client has nothing to resume from, and a
// broken POST connection cancels the request (the engine takes the
// disconnect as the client giving up, as before resumability existed).
func TestResumableOff(t *testing.T) {
	t.Parallel()
	t.Run("no event IDs", func(t *testing.T) {
		t.Parallel()
		e := newResumeEnv(t, nil, nil)
		e.c.initialize("2025-11-25")
		evs := e.c.sse(http.MethodPost, toolCall(2, "log", `{}`))
		require.Len(t, evs, 4, "3 notifications and the response, no priming event: %+v", evs)
		for _, ev := range evs {
			require.False(t, ev.HasID, "an event carries an ID: %+v", ev)
			require.False(t, ev.HasRetry, "an event carries a retry field: %+v", ev)
			ev.msg(t)
		}
	})
	t.Run("disconnect cancels", func(t *testing.T) {
		t.Parallel()
		e := newResumeEnv(t, nil, nil)
		e.c.initialize("2025-11-25")
		ctx, drop := context.WithTimeout(context.Background(), 10*time.Second)
		defer drop()
		s := e.c.open(ctx, http.MethodPost, toolCall(2, "hold", `{}`))
		ev := s.mustNext()
		require.False(t, ev.HasID)
		require.Equal(t, "holding", logText(t, ev.msg(t)))
		drop()
		cause := e.waitFinished()
		require.ErrorIs(t, cause, context.Canceled, "a broken connection cancels a request that is not resumable")
	})
}

// TestStreamResumesOnAnotherReplica: with a shared event store
// (Options.Events), a client whose connection to replica A broke mid-call
// resumes the stream with Last-Event-ID on replica B, which replays what
// it missed and follows the stream, while A runs the call, until the
// response; the delivered stream cannot be resumed again. In memory and on
// a real redis-server.
func TestStreamResumesOnAnotherReplica(t *testing.T) {
	t.Parallel()
	type stores struct {
		sessions session.Store
		events   session.EventStore
	}
	backends := map[string]func(t *testing.T) stores{
		"memory": func(*testing.T) stores {
			return stores{session.NewMemoryStore(), session.NewMemoryEventStore(time.Minute)}
		},
		"redis": func(t *testing.T) stores {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return stores{redisstore.New(c, nil), redisstore.NewEventStore(c, "", time.Minute)}
		},
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := backend(t)
			opts := &mcphttp.Options{Resumable: true, Sessions: st.sessions, Events: st.events}
			a := newResumeEnv(t, opts, nil)
			b := newResumeEnv(t, opts, nil)
			a.c.initialize("2025-11-25")
			b.c.sid, b.c.version = a.c.sid, a.c.version

			ctx, drop := context.WithTimeout(context.Background(), 10*time.Second)
			defer drop()
			s := a.c.open(ctx, http.MethodPost, toolCall(2, "chatty", `{"tag":"X"}`), "X-Test-Tag", "X")
			require.Equal(t, http.StatusOK, s.resp.StatusCode)
			prime := s.mustNext()
			require.True(t, prime.isPriming(), "%+v", prime)
			first := s.mustNext()
			require.Equal(t, "X 1", logText(t, first.msg(t)))
			drop()
			a.waitServed("X")

			gctx, gcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer gcancel()
			g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", first.ID)
			require.Equal(t, http.StatusOK, g.resp.StatusCode)
			require.Equal(t, a.c.sid, g.resp.Header.Get("Mcp-Session-Id"))
			close(a.p.gate) // the call on A goes on while B follows it
			resumed := g.all()
			require.Len(t, resumed, 3, "the missed notifications and the response: %+v", resumed)
			assert.Equal(t, "X 2", logText(t, resumed[0].msg(t)))
			assert.Equal(t, "X 3", logText(t, resumed[1].msg(t)))
			res := resumed[2].msg(t)
			require.True(t, res.IsResponse())
			assert.Equal(t, "2", string(res.ID))
			assert.Equal(t, "X done", wiretest.ToolResult(t, res).Text())
			for i, ev := range resumed {
				assert.NotEqual(t, first.ID, ev.ID, "event %d has its own ID", i)
			}
			require.NoError(t, a.waitFinished())

			resp, body := b.c.do(http.MethodGet, "", "Last-Event-ID", first.ID)
			assert.Equal(t, http.StatusOK, resp.StatusCode, "delivered: %s", body)
			assert.Empty(t, body, "a delivered stream resumes empty")
		})
	}
}

// TestResumedStreamOfAStoppedReplica: a replica following, from the shared
// event store, a stream another replica runs tells a running request from
// one whose replica stopped by the heartbeats the running replica stores.
// A request held for 6 s is followed to its response, with heartbeats on
// the way; a stream nobody stores events for any more (its replica was
// killed) is answered with -32603 and the request's ID after 5 s, instead
// of being followed until the client gives up.
func TestResumedStreamOfAStoppedReplica(t *testing.T) {
	t.Parallel()
	newPair := func(t *testing.T) (a, b *resumeEnv, events session.EventStore) {
		events = session.NewMemoryEventStore(time.Minute)
		opts := &mcphttp.Options{Resumable: true, Sessions: session.NewMemoryStore(), Events: events}
		a, b = newResumeEnv(t, opts, nil), newResumeEnv(t, opts, nil)
		a.c.initialize("2025-11-25")
		b.c.sid, b.c.version = a.c.sid, a.c.version
		return a, b, events
	}

	t.Run("running", func(t *testing.T) {
		t.Parallel()
		a, b, _ := newPair(t)
		ctx, drop := context.WithTimeout(context.Background(), 20*time.Second)
		defer drop()
		s := a.c.open(ctx, http.MethodPost, toolCall(2, "chatty", `{"tag":"H"}`), "X-Test-Tag", "H")
		require.Equal(t, http.StatusOK, s.resp.StatusCode)
		require.True(t, s.mustNext().isPriming())
		first := s.mustNext()
		drop()
		a.waitServed("H")

		gctx, gcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer gcancel()
		g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", first.ID)
		require.Equal(t, http.StatusOK, g.resp.StatusCode)
		time.AfterFunc(6*time.Second, func() { close(a.p.gate) }) // longer than the 5 s without events
		evs := g.all()
		require.NotEmpty(t, evs)
		heartbeats := 0
		for _, ev := range evs[:len(evs)-1] {
			if ev.isPriming() {
				heartbeats++
			}
		}
		assert.GreaterOrEqual(t, heartbeats, 2, "a heartbeat every 2 s while the call was held: %+v", evs)
		res := evs[len(evs)-1].msg(t)
		require.True(t, res.IsResponse(), "%+v", evs)
		assert.Equal(t, "H done", wiretest.ToolResult(t, res).Text())
		require.NoError(t, a.waitFinished())
	})

	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		_, b, events := newPair(t)
		// What a replica killed mid-call leaves in the store: the priming
		// event with the request's ID, a notification, then nothing.
		ctx := context.Background()
		require.NoError(t, events.Append(ctx, b.c.sid, "deadreplica00001", session.Event{N: 0, Data: []byte(`7`)}))
		require.NoError(t, events.Append(ctx, b.c.sid, "deadreplica00001", session.Event{N: 1,
			Data: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)}))

		gctx, gcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer gcancel()
		start := time.Now()
		g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", "deadreplica00001_1")
		require.Equal(t, http.StatusOK, g.resp.StatusCode)
		evs := g.all()
		took := time.Since(start)
		require.Len(t, evs, 1, "%+v", evs)
		m := evs[0].msg(t)
		require.True(t, m.IsResponse(), "%+v", evs)
		assert.Equal(t, "7", string(m.ID))
		require.NotNil(t, m.Error, "%+v", m)
		assert.Equal(t, int64(-32603), m.Error.Code)
		assert.Contains(t, m.Error.Message, "replica running this request stopped")
		assert.GreaterOrEqual(t, took, 5*time.Second)
		assert.Less(t, took, 8*time.Second)
	})
}

package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/middleware"
)

var (
	errNoAnswer = errors.New("client returned an error")
	errHang     = errors.New("hang until the ping's context ends") // a fakePinger script value
)

// fakePinger stands in for the MCP engine. Each session has a stream
// channel, closed by EndSession, that the fake GET handler waits on.
type fakePinger struct {
	// answer decides the outcome of the n-th ping (1-based) of a session;
	// nil answers every ping.
	answer func(n int) error

	mu      sync.Mutex
	pings   map[string]int
	ended   []string
	streams map[string]chan struct{}
}

func newFakePinger(answer func(n int) error) *fakePinger {
	return &fakePinger{answer: answer, pings: map[string]int{}, streams: map[string]chan struct{}{}}
}

func (f *fakePinger) PingSession(ctx context.Context, id string) error {
	f.mu.Lock()
	f.pings[id]++
	n := f.pings[id]
	f.mu.Unlock()
	if f.answer == nil {
		return nil
	}
	err := f.answer(n)
	if err == errHang {
		<-ctx.Done()
		return context.Cause(ctx)
	}
	return err
}

func (f *fakePinger) EndSession(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = append(f.ended, id)
	if ch, ok := f.streams[id]; ok {
		close(ch)
		delete(f.streams, id)
	}
}

func (f *fakePinger) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pings[id]
}

func (f *fakePinger) endedSessions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ended...)
}

// stream is the fake GET handler: it holds the stream open until the
// session is ended or the request goes away.
func (f *fakePinger) stream(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	f.mu.Lock()
	ch, ok := f.streams[id]
	if !ok {
		ch = make(chan struct{})
		f.streams[id] = ch
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	select {
	case <-ch:
	case <-r.Context().Done():
	}
}

// openStream serves a GET for session id through pg in a goroutine. close
// ends the request (the client hangs up) and waits for the handler;
// done reports when the handler has returned on its own.
func openStream(pg *middleware.Ping, f *fakePinger, method, id string) (closeFn func(), done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, method, "/mcp", nil)
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		pg.Middleware(http.HandlerFunc(f.stream)).ServeHTTP(httptest.NewRecorder(), req)
	}()
	return func() { cancel(); <-ch }, ch
}

func TestPing(t *testing.T) {
	t.Parallel()
	failAll := func(int) error { return errNoAnswer }
	tests := []struct {
		name       string
		opts       middleware.PingOptions
		answer     func(n int) error
		run        time.Duration // how long the stream stays open (if not ended)
		wantPings  int
		wantEndAt  time.Duration // when the session is ended; 0: never
		wantLevel  string
		wantLogged int // ping lines (answered or failed) at wantLevel
	}{
		{name: "answered pings every 5s by default, logged at debug", run: 16 * time.Second,
			wantPings: 3, wantLevel: "DEBUG", wantLogged: 3},
		{name: "interval and level", opts: middleware.PingOptions{Interval: time.Second, LogLevel: slog.LevelInfo},
			run: 3500 * time.Millisecond, wantPings: 3, wantLevel: "INFO", wantLogged: 3},
		{name: "three failures in a row end the session", answer: failAll, run: time.Minute,
			wantPings: 3, wantEndAt: 15 * time.Second, wantLevel: "DEBUG", wantLogged: 3},
		{name: "unanswered pings time out and count", answer: func(int) error { return errHang },
			opts: middleware.PingOptions{Timeout: 2 * time.Second}, run: time.Minute,
			wantPings: 3, wantEndAt: 3 * (5 + 2) * time.Second, wantLevel: "DEBUG", wantLogged: 3},
		{name: "timeout defaults to the interval", answer: func(int) error { return errHang }, run: time.Minute,
			wantPings: 3, wantEndAt: 3 * (5 + 5) * time.Second, wantLevel: "DEBUG", wantLogged: 3},
		{name: "an answer resets the count",
			answer: func(n int) error {
				if n == 3 {
					return nil
				}
				return errNoAnswer
			},
			run: time.Minute, wantPings: 6, wantEndAt: 30 * time.Second, wantLevel: "DEBUG", wantLogged: 6},
		{name: "MaxFailures 1", answer: failAll, opts: middleware.PingOptions{MaxFailures: 1}, run: time.Minute,
			wantPings: 1, wantEndAt: 5 * time.Second, wantLevel: "DEBUG", wantLogged: 1},
		{name: "negative MaxFailures only logs", answer: failAll, opts: middleware.PingOptions{MaxFailures: -1},
			run: 61 * time.Second, wantPings: 12, wantLevel: "DEBUG", wantLogged: 12},
		{name: "Disabled pings nothing", answer: failAll, opts: middleware.PingOptions{Disabled: true}, run: time.Minute,
			wantPings: 0, wantLevel: "DEBUG", wantLogged: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				logger, logs := newLogger()
				opts := tt.opts
				opts.Logger = logger
				f := newFakePinger(tt.answer)
				pg := middleware.NewPing(f, &opts)
				defer pg.Close()

				start := time.Now()
				closeStream, done := openStream(pg, f, http.MethodGet, "s1")
				var endedAt time.Duration
				select {
				case <-done:
					endedAt = time.Since(start)
				case <-time.After(tt.run):
				}
				closeStream()
				synctest.Wait()
				assert.Equal(t, tt.wantPings, f.count("s1"), "pings")
				if tt.wantEndAt == 0 {
					assert.Empty(t, f.endedSessions())
				} else {
					assert.Equal(t, []string{"s1"}, f.endedSessions())
					assert.Equal(t, tt.wantEndAt, endedAt, "session ended at")
				}

				// Nothing more once the stream is gone.
				time.Sleep(time.Minute)
				assert.Equal(t, tt.wantPings, f.count("s1"), "pings after the stream closed")

				var pingLines, warnLines int
				for _, l := range logs.lines(t) {
					assert.Equal(t, "s1", l["session"])
					switch l["msg"] {
					case "mcp ping answered", "mcp ping failed":
						pingLines++
						assert.Equal(t, tt.wantLevel, l["level"])
					case "mcp session ended: its client did not answer pings":
						warnLines++
						assert.Equal(t, "WARN", l["level"])
					default:
						t.Errorf("unexpected log line %v", l)
					}
				}
				assert.Equal(t, tt.wantLogged, pingLines)
				if tt.wantEndAt != 0 {
					assert.Equal(t, 1, warnLines)
				}
			})
		})
	}
}

func TestPingOnlyGETStreamsWithASession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		id     string
		want   int
	}{
		{name: "GET with a session", method: http.MethodGet, id: "s1", want: 2},
		{name: "GET without a session", method: http.MethodGet},
		{name: "POST with a session", method: http.MethodPost, id: "s1"},
		{name: "DELETE with a session", method: http.MethodDelete, id: "s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				logger, _ := newLogger()
				f := newFakePinger(nil)
				pg := middleware.NewPing(f, &middleware.PingOptions{Logger: logger})
				defer pg.Close()
				closeStream, _ := openStream(pg, f, tt.method, tt.id)
				time.Sleep(11 * time.Second)
				closeStream()
				assert.Equal(t, tt.want, f.count(tt.id))
			})
		})
	}
}

func TestPingOncePerSession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		logger, _ := newLogger()
		f := newFakePinger(nil)
		pg := middleware.NewPing(f, &middleware.PingOptions{Logger: logger})
		defer pg.Close()

		close1, _ := openStream(pg, f, http.MethodGet, "s1")
		close2, _ := openStream(pg, f, http.MethodGet, "s1") // a second stream replaces the first, as in the engine
		other, _ := openStream(pg, f, http.MethodGet, "s2")
		time.Sleep(21 * time.Second)
		assert.Equal(t, 4, f.count("s1"), "one loop for s1")
		assert.Equal(t, 4, f.count("s2"))

		// The replaced stream closing leaves the loop alone; once the
		// second closes, a reconnect starts a new one at once.
		close1()
		close2()
		reconnect, _ := openStream(pg, f, http.MethodGet, "s1")
		time.Sleep(6 * time.Second)
		assert.Equal(t, 5, f.count("s1"))
		reconnect()
		other()
	})
}

func TestPingStreamClosedDuringPing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		logger, logs := newLogger()
		f := newFakePinger(func(int) error { return errHang })
		pg := middleware.NewPing(f, &middleware.PingOptions{Logger: logger, MaxFailures: 1})
		defer pg.Close()
		closeStream, _ := openStream(pg, f, http.MethodGet, "s1")
		time.Sleep(6 * time.Second) // the first ping is waiting for its answer
		synctest.Wait()
		require.Equal(t, 1, f.count("s1"))
		closeStream()
		synctest.Wait()
		assert.Empty(t, f.endedSessions(), "a ping cut short by the stream closing is no failure")
		assert.Empty(t, logs.lines(t))
	})
}

func TestPingClose(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		logger, _ := newLogger()
		f := newFakePinger(nil)
		pg := middleware.NewPing(f, &middleware.PingOptions{Logger: logger})
		closeStream, _ := openStream(pg, f, http.MethodGet, "s1")
		time.Sleep(6 * time.Second)
		require.Equal(t, 1, f.count("s1"))

		pg.Close() // returns once the loop has stopped
		time.Sleep(time.Minute)
		assert.Equal(t, 1, f.count("s1"), "no ping after Close")

		closeStream()
		after, _ := openStream(pg, f, http.MethodGet, "s2")
		time.Sleep(time.Minute)
		assert.Equal(t, 0, f.count("s2"), "no loop starts after Close")
		after()
		pg.Close() // idempotent
	})
}

func TestNewPingPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    middleware.Pinger
		opts *middleware.PingOptions
	}{
		{name: "nil Pinger", p: nil},
		{name: "negative interval", p: newFakePinger(nil), opts: &middleware.PingOptions{Interval: -time.Second}},
		{name: "negative timeout", p: newFakePinger(nil), opts: &middleware.PingOptions{Timeout: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Panics(t, func() { middleware.NewPing(tt.p, tt.opts) })
		})
	}
}

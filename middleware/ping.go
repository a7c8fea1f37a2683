package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchain/mcp/internal/inproc"
)

// Pinger is what [Ping] needs from the MCP engine; *mcphttp.Handler
// implements it. Its methods are called from Ping's goroutines,
// concurrently with serving.
type Pinger interface {
	// PingSession sends a ping request to the session's client, on its
	// GET stream, and waits for the answer. It must return promptly once
	// ctx is done.
	PingSession(ctx context.Context, sessionID string) error
	// EndSession ends the session as a DELETE would, closing its streams.
	EndSession(sessionID string)
}

// PingOptions configure server-to-client pings: the one ping
// configuration, read by the engine from mcphttp.Options.Ping and by
// [NewPing]. A session is pinged while its stream for
// server-initiated messages is open: the GET stream of a stateful HTTP
// session (and of a legacy HTTP+SSE one), and with Stdio that of a stdio
// session. Stateless HTTP sessions have no such stream, and embedded
// sessions are never pinged (their client is the program itself). A
// session whose client leaves MaxFailures pings in a row unanswered is
// ended.
type PingOptions struct {
	// Disabled turns pings off. Default: on.
	Disabled bool
	// Stdio pings the client of a stdio session too. Default: off, since
	// a stdio client that goes away closes the server's stdin, which ends
	// the session at once; turn it on for a client that may hang with
	// the pipe open. A stdio session ended for its failures ends the
	// transport: stdio.Serve returns stdio.ErrSessionEnded.
	Stdio bool
	// Interval between the end of one ping and the start of the next.
	// Default: 5 s.
	Interval time.Duration
	// Timeout is how long a ping waits for its answer before it counts
	// as failed. Default: Interval.
	Timeout time.Duration
	// MaxFailures is the number of consecutive failed pings after which
	// the session is ended. Default: 3; negative: never end a session,
	// only log.
	MaxFailures int
	// LogLevel of the line logged for each ping, answered or not.
	// Default (nil): debug. Ending a session is logged at warn.
	LogLevel slog.Leveler
	// Logger receives the lines. Default: the handler's logger (for
	// NewPing, one in the format a server logs in by default).
	Logger *slog.Logger
}

// The defaults NewPing applies to an [PingOptions].
const (
	DefaultPingInterval    = 5 * time.Second
	DefaultPingMaxFailures = 3
)

// Ping keeps an eye on the clients of a stateful MCP server. The engine
// (mcphttp.New) runs one itself, configured by mcphttp.Options.Ping, however
// it is served; build one with NewPing only for another [Pinger].
//
// While a session's GET stream (the channel for server-initiated
// messages) is open through [Ping.Middleware], it sends the client a ping every
// Interval, and ends the session when MaxFailures pings in a row go
// unanswered, so a vanished client does not hold its session until the
// idle timeout. Sessions without an open GET stream are not pinged: they
// would have no way to receive the ping, and failing them would end the
// sessions of healthy clients that never open one.
//
// Design: one goroutine per pinged session, started when a GET request
// carrying Mcp-Session-Id enters the middleware and stopped when that
// request returns (the stream closed, or the session ended), when the
// session is ended for its failures, or on [Ping.Close]. A session is
// pinged once however many GET requests name it: a second GET stream
// replaces the first in the MCP handler, and its loop replaces the
// first one's. A request for an unknown session is
// answered 404 by the MCP handler before the first ping is due.
//
// Ping is safe for concurrent use. Call Close when the server shuts down.
type Ping struct {
	p           Pinger
	disabled    bool
	interval    time.Duration
	timeout     time.Duration
	maxFailures int
	level       slog.Leveler
	log         *slog.Logger

	mu     sync.Mutex
	active map[string]*pingLoop
	closed bool
	wg     sync.WaitGroup
}

type pingLoop struct {
	cancel context.CancelFunc
}

// transportOf names the transport of r for the log: stdio or embedded
// (internal/inproc), else http.
func transportOf(r *http.Request) string {
	if t := inproc.Transport(r); t != "" {
		return t
	}
	return "http"
}

// errPingTimeout is the cause of a ping's context when it expires.
var errPingTimeout = errors.New("middleware: the client did not answer the ping in time")

// NewPing returns a Ping that pings through p, configured as opts says
// (nil: every 5 s, logged at debug level in the default format, a session
// ended after 3 unanswered pings in a row; with opts.Disabled its
// Middleware pings nothing). It panics if p is nil or an option is
// negative where that has no meaning.
func NewPing(p Pinger, opts *PingOptions) *Ping {
	if p == nil {
		panic("middleware: NewPing needs a non-nil Pinger (an *mcphttp.Handler)")
	}
	var o PingOptions
	if opts != nil {
		o = *opts
	}
	if o.Interval < 0 || o.Timeout < 0 {
		panic(fmt.Sprintf("middleware: PingOptions.Interval and Timeout must not be negative, got %v and %v", o.Interval, o.Timeout))
	}
	if o.Interval == 0 {
		o.Interval = DefaultPingInterval
	}
	if o.Timeout == 0 {
		o.Timeout = o.Interval
	}
	if o.MaxFailures == 0 {
		o.MaxFailures = DefaultPingMaxFailures
	}
	if o.LogLevel == nil {
		o.LogLevel = slog.LevelDebug
	}
	if o.Logger == nil {
		o.Logger = defaultLogger()
	}
	return &Ping{p: p, disabled: o.Disabled, interval: o.Interval, timeout: o.Timeout, maxFailures: o.MaxFailures,
		level: o.LogLevel, log: o.Logger, active: map[string]*pingLoop{}}
}

// Middleware pings the session of each GET request that carries an
// Mcp-Session-Id (read from [SessionIDFromContext] when [SessionID] ran
// before it, else from the header) while the handlers it wraps serve it. Other requests
// pass through untouched. It has the func(http.Handler) http.Handler
// shape: alice.New(ping.Middleware).
func (pg *Ping) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !pg.disabled {
			id := SessionIDFromContext(r.Context())
			if id == "" {
				id = r.Header.Get(sessionIDHeader)
			}
			if id != "" {
				if stop := pg.start(r.Context(), id, transportOf(r)); stop != nil {
					defer stop()
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Close stops every ping loop and waits for them to return. Requests
// served after Close are not pinged. It is safe to call more than once.
func (pg *Ping) Close() {
	pg.mu.Lock()
	pg.closed = true
	for id, l := range pg.active {
		l.cancel()
		delete(pg.active, id)
	}
	pg.mu.Unlock()
	pg.wg.Wait()
}

// start begins pinging session id on the stream of ctx, unless pg is
// closed (then it returns nil). A loop already pinging id stops: a second
// GET stream replaces the first in the engine, so the newest stream is
// the live one. The returned func stops the loop without
// waiting for it: the loop may be inside EndSession, which closes the
// very stream whose handler calls stop.
func (pg *Ping) start(ctx context.Context, id, transport string) (stop func()) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.closed {
		return nil
	}
	if old := pg.active[id]; old != nil {
		old.cancel()
	}
	// The loop's context is the request's: it carries the request's
	// values (auth, trace IDs) and ends with the stream.
	ctx, cancel := context.WithCancel(ctx)
	l := &pingLoop{cancel: cancel}
	pg.active[id] = l
	pg.wg.Go(func() { pg.run(ctx, id, transport) })
	return func() {
		pg.mu.Lock()
		if pg.active[id] == l {
			delete(pg.active, id)
		}
		pg.mu.Unlock()
		cancel()
	}
}

// run pings session id, whose client is on transport, until ctx is done
// or the session is ended.
func (pg *Ping) run(ctx context.Context, id, transport string) {
	t := time.NewTimer(pg.interval)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeoutCause(ctx, pg.timeout, errPingTimeout)
		start := time.Now()
		err := pg.p.PingSession(pctx, id)
		cancel()
		if ctx.Err() != nil {
			return // the stream closed, or Close: nobody's failure
		}
		level := pg.level.Level()
		if err == nil {
			failures = 0
			pg.log.LogAttrs(ctx, level, "mcp ping answered",
				slog.String("session", id), slog.Duration("rtt", time.Since(start)))
		} else {
			failures++
			pg.log.LogAttrs(ctx, level, "mcp ping failed",
				slog.String("session", id), slog.Int("failures", failures), slog.Any("error", err))
			if pg.maxFailures > 0 && failures >= pg.maxFailures {
				pg.log.LogAttrs(ctx, slog.LevelWarn, "mcp session ended: its client did not answer pings",
					slog.String("session", id), slog.String("transport", transport), slog.Int("failures", failures), slog.Any("error", err))
				pg.p.EndSession(id)
				return
			}
		}
		t.Reset(pg.interval)
	}
}

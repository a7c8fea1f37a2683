package proxy

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/sampling"
)

// kind says whose an upstream connection is, which decides with which
// downstream caller it is opened and to which downstream call the
// upstream's own requests may go.
type kind uint8

const (
	// gatewayConn is the gateway's own connection: it lists the upstream
	// and subscribes to its resources, and serves the anonymous callers
	// without a session (and, with Options.SingleSession, every request).
	// It is opened, and opened again, only with Options.Upstream(nil):
	// never with a caller's Context.
	gatewayConn kind = iota
	// sessionConn is one downstream session's own (key: its session ID),
	// opened with that session's caller.
	sessionConn
	// callerConn is the pooled connection of one caller with a subject
	// (key: identity.Key), for its requests without a session, opened
	// only with a request of that caller.
	callerConn
	// requestConn serves one request of an opaque caller (auth data
	// without a subject, which shares nothing) and is closed after it.
	requestConn
)

// upstream is one upstream connection (an upstream session over HTTP).
// Its client is opened on first use and again after it failed, each time
// with a downstream request of the caller it belongs to.
type upstream struct {
	g    *Gateway
	kind kind
	key  string // the session ID (sessionConn) or identity key (callerConn)
	// owner is the auth data of the caller the connection was opened
	// for; a sessionConn's later requests must be the same caller
	// (identity.Same), a callerConn's have its key by construction.
	owner any

	dial sync.Mutex // held while connecting

	// Guarded by g.mu: the calls using it (not counted for gatewayConn),
	// and a callerConn's place in the pool.
	refs    int
	elem    *list.Element // in g.pool.lru while pooled
	evicted bool          // out of the pool: closed once refs is 0
	idle    *time.Timer   // closes an unused callerConn
	idleGen uint64        // the use the idle timer was started after

	mu     sync.Mutex
	cl     *client.Client
	calls  []*mcp.Context // the downstream calls in flight, oldest first
	ctxs   []context.Context
	closed bool
	// With SingleSession, the one downstream session the gateway's own
	// connection has served, while it has served only one (many: more).
	only string
	many bool
}

func (g *Gateway) newUpstream(k kind, key string) *upstream {
	return &upstream{g: g, kind: k, key: key}
}

// open reports whether the upstream connection is open.
func (u *upstream) open() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.cl != nil && u.cl.Err() == nil
}

// get returns the open connection, connecting when there is none (or it
// ended). c is the downstream request that needs it (nil: the gateway's
// own). The gateway's own connection is opened with Options.Upstream(nil)
// whoever needs it; any other with c, whose caller upstreamFor checked is
// the connection's.
func (u *upstream) get(ctx context.Context, c *mcp.Context) (*client.Client, error) {
	if u.kind == gatewayConn {
		c = nil
	}
	u.mu.Lock()
	cl, closed := u.cl, u.closed
	u.mu.Unlock()
	if closed {
		return nil, &unavailableError{name: u.g.name, what: "connect", err: errors.New("the gateway is closed")}
	}
	if cl != nil && cl.Err() == nil {
		return cl, nil
	}
	u.dial.Lock()
	defer u.dial.Unlock()
	u.mu.Lock()
	if u.cl != nil && u.cl.Err() == nil {
		cl = u.cl
		u.mu.Unlock()
		return cl, nil
	}
	stale := u.cl
	u.cl = nil
	u.mu.Unlock()
	if stale != nil {
		_ = stale.Close()
	}
	cl, err := u.connect(ctx, c)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		_ = cl.Close()
		return nil, &unavailableError{name: u.g.name, what: "connect", err: errors.New("the gateway is closed")}
	}
	u.cl = cl
	u.mu.Unlock()
	if u.kind == gatewayConn && stale != nil && u.g.live.Load() != nil {
		u.g.resync() // the upstream may have restarted with other lists
	}
	return cl, nil
}

// drop forgets cl, which failed: the next call connects again.
func (u *upstream) drop(cl *client.Client) {
	u.mu.Lock()
	mine := u.cl == cl
	if mine {
		u.cl = nil
	}
	u.mu.Unlock()
	if mine {
		go func() { _ = cl.Close() }()
	}
}

// close ends the upstream session for good.
func (u *upstream) close() error {
	u.dial.Lock()
	defer u.dial.Unlock()
	u.mu.Lock()
	cl := u.cl
	u.cl, u.closed = nil, true
	u.mu.Unlock()
	if cl == nil {
		return nil
	}
	return cl.Close()
}

// track records the downstream call c as in flight on this upstream
// session until done is called: the upstream's requests to its client
// are asked of it.
func (u *upstream) track(ctx context.Context, c *mcp.Context) (done func()) {
	if c == nil {
		return func() {}
	}
	u.mu.Lock()
	u.calls = append(u.calls, c)
	u.ctxs = append(u.ctxs, ctx)
	if u.kind == gatewayConn && u.g.opts.SingleSession {
		switch {
		case c.SessionID == "" || u.many:
		case u.only == "":
			u.only = c.SessionID
		case u.only != c.SessionID:
			u.many = true
		}
	}
	u.mu.Unlock()
	return func() {
		u.mu.Lock()
		if i := slices.Index(u.calls, c); i >= 0 {
			u.calls = slices.Delete(u.calls, i, i+1)
			u.ctxs = slices.Delete(u.ctxs, i, i+1)
		}
		u.mu.Unlock()
	}
}

// errNoCall is the answer to an upstream request that no downstream call
// can take.
var errNoCall = errors.New("proxy: no downstream request in flight to forward this request to")

// errSeveral is the answer to an upstream request on a connection that
// several downstream requests use at once: it could reach the wrong one.
var errSeveral = errors.New("proxy: several downstream requests without a session are in flight; the upstream's request cannot be routed to one")

// current returns the downstream call the upstream's request (or log
// message) belongs to, with its context. On a session's own connection
// it is the latest call in flight; on a connection several requests use
// (the gateway's own, a caller's pooled one), only a call alone in
// flight, since the upstream's request could belong to any of them. With
// Options.SingleSession, the gateway's connection forwards to the latest
// call while every call in flight is of one downstream session and
// caller.
func (u *upstream) current() (*mcp.Context, context.Context, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := len(u.calls)
	if n == 0 {
		return nil, nil, errNoCall
	}
	last := u.calls[n-1]
	switch {
	case n == 1 || u.kind == sessionConn:
	case u.kind == gatewayConn && u.g.opts.SingleSession:
		for _, c := range u.calls[:n-1] {
			if c.SessionID != last.SessionID || !identity.Same(c.Session, last.Session) {
				return nil, nil, errors.New("proxy: requests of several downstream sessions are in flight on the single upstream session; the upstream's request cannot be routed to one")
			}
		}
	default:
		return nil, nil, errSeveral
	}
	return last, u.ctxs[n-1], nil
}

// knownLevels are the log levels of the protocol (RFC 5424's).
var knownLevels = map[mcp.LogLevel]bool{
	mcp.LevelDebug: true, mcp.LevelInfo: true, mcp.LevelNotice: true, mcp.LevelWarning: true,
	mcp.LevelError: true, mcp.LevelCritical: true, mcp.LevelAlert: true, mcp.LevelEmergency: true,
}

// forward runs ask with the downstream call the upstream's request
// belongs to, under a context that ends with either the upstream's
// request (cancelled upstream) or the downstream call.
func forward[R any](u *upstream, ctx context.Context, ask func(ctx context.Context, c *mcp.Context) (R, error)) (R, error) {
	var zero R
	c, cctx, err := u.current()
	if err != nil {
		return zero, err
	}
	fctx, cancel := context.WithCancel(cctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return ask(fctx, c)
}

// options are the client options of an upstream connection opened for
// the downstream request c (nil: the gateway's own): it declares the
// capabilities the downstream client declared (all of them for a
// connection whose callers' requests vary: the gateway's own and a
// caller's pooled one; each request's own capabilities are checked when
// the upstream asks it), and passes what the upstream sends on to the
// downstream call it belongs to, and to nothing else.
func (u *upstream) options(c *mcp.Context) *client.Options {
	g := u.g
	o := &client.Options{
		Info:               g.opts.ClientInfo,
		Logger:             g.log,
		OnToolsChanged:     g.resync,
		OnResourcesChanged: g.resync,
		OnPromptsChanged:   g.resync,
		OnResourceUpdated:  u.onResourceUpdated,
		OnLog:              u.onLog,
		OnNotification:     u.onNotification,
	}
	u.peerHandlers(o, c)
	return o
}

// onResourceUpdated tells the gateway's clients of an upstream resource
// update. Only the gateway's own connection subscribes upstream: what it
// hears is the gateway's view, the one the mirror shows every caller. A
// connection opened for a caller is that caller's view; an update there
// is not told to the others.
func (u *upstream) onResourceUpdated(uri string) {
	g := u.g
	if u.kind != gatewayConn {
		g.log.Debug("proxy: a resources/updated on a caller's upstream connection is dropped", "upstream", g.name, "uri", uri)
		return
	}
	if srv := g.live.Load(); srv != nil {
		srv.ResourceUpdated(uri)
	}
}

// onLog passes an upstream log message to the downstream request in
// flight, named after the upstream.
func (u *upstream) onLog(m mcp.LogMessage) {
	if !knownLevels[m.Level] {
		return // a level the downstream client may refuse the message for
	}
	dc, _, err := u.current()
	if err != nil {
		return // no request of the downstream session to carry it
	}
	from := u.g.name
	if m.Logger != "" {
		from += "/" + m.Logger
	}
	if text, ok := m.Data.(string); ok {
		dc.Log.Log(m.Level, from+": "+text)
		return
	}
	dc.Log.Log(m.Level, from, m.Data)
}

// peerHandlers sets the handlers of the upstream's requests to the
// client (sampling, elicitation, roots), which forward them downstream:
// all of them for the gateway's own and a caller's connection, and for a
// session's connection those its downstream client declared (c).
func (u *upstream) peerHandlers(o *client.Options, c *mcp.Context) {
	all := c == nil || u.kind == callerConn
	var caps mcp.ClientCapabilities
	if !all {
		caps = c.ClientCapabilities
	}
	if all || caps.Sampling != nil {
		o.Sample = func(ctx context.Context, p *sampling.Request) (*sampling.Result, error) {
			return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) (*sampling.Result, error) {
				return sampling.Create(ctx, dc, p)
			})
		}
		o.SamplingTools = all || caps.Sampling.Tools != nil
	}
	if all || caps.Elicitation != nil {
		if all || caps.Elicitation.Form != nil || caps.Elicitation.URL == nil {
			o.Elicit = u.elicit
		}
		if all || caps.Elicitation.URL != nil {
			o.ElicitURL = u.elicit
		}
	}
	if all || caps.Roots != nil {
		o.Roots = func(ctx context.Context) ([]mcp.Root, error) {
			return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) ([]mcp.Root, error) {
				return dc.Roots(ctx)
			})
		}
	}
}

// elicit forwards an upstream elicitation downstream. A URL goes to the
// downstream client's "open this link" handler: only one a user may be
// asked to open (whatever mode names it: a client may read the url of
// any).
func (u *upstream) elicit(ctx context.Context, p *elicit.Params) (*elicit.Result, error) {
	if p.Mode == "url" || p.URL != "" {
		if err := eliciturl.Check(p.URL); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "the gateway refuses to relay this URL-mode elicitation: " + err.Error()}
		}
	}
	return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) (*elicit.Result, error) {
		return elicit.Create(ctx, dc, p)
	})
}

// onNotification passes notifications/elicitation/complete on to the
// downstream session the elicitation came from.
func (u *upstream) onNotification(method string, params json.RawMessage) {
	if method != "notifications/elicitation/complete" {
		return
	}
	srv := u.g.live.Load()
	sid := u.downstreamSession()
	if srv == nil || sid == "" {
		return // no one downstream session to tell
	}
	var p struct {
		ElicitationID string `json:"elicitationId"`
	}
	if json.Unmarshal(params, &p) == nil && p.ElicitationID != "" {
		elicit.Complete(srv, sid, p.ElicitationID)
	}
}

// downstreamSession is the one downstream session this connection
// serves, or "": a session's connection's own; with SingleSession the
// gateway's connection's session of the call in flight, or when none is
// (the user finished the page later), the one session served, while
// there has been only one.
func (u *upstream) downstreamSession() string {
	switch {
	case u.kind == sessionConn:
		return u.key
	case u.kind == gatewayConn && u.g.opts.SingleSession:
		if dc, _, err := u.current(); err == nil {
			return dc.SessionID
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		if !u.many {
			return u.only
		}
	}
	return ""
}

// connect opens a new connection to the upstream for c (nil: the
// gateway's own), within Options.ConnectTimeout, asking an upstream that
// logs for everything: each downstream request's Context.Log filters by
// the downstream level.
func (u *upstream) connect(ctx context.Context, c *mcp.Context) (*client.Client, error) {
	t := u.g.opts.Upstream(c)
	if t == nil {
		return nil, &unavailableError{name: u.g.name, what: "connect", err: errors.New("Options.Upstream returned no transport")}
	}
	cctx, cancel := context.WithTimeout(ctx, u.g.opts.ConnectTimeout)
	defer cancel()
	cl, err := client.Connect(cctx, t, u.options(c))
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no connection within %v: %w", u.g.opts.ConnectTimeout, err)
		}
		return nil, &unavailableError{name: u.g.name, what: "connect", err: err}
	}
	if caps := cl.Initialize().Capabilities; caps.Logging != nil {
		_ = cl.SetLogLevel(cctx, mcp.LevelDebug)
	}
	return cl, nil
}

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// upstream is one upstream session: a downstream session's (key its
// session ID), or the shared one (key ""). Its connection is opened on
// first use and again after it failed.
type upstream struct {
	g   *Gateway
	key string

	dial sync.Mutex // held while connecting

	refs int // the calls using it; guarded by g.mu (a session's only)

	mu     sync.Mutex
	cl     *client.Client
	calls  []*mcp.Context // the downstream calls in flight, oldest first
	ctxs   []context.Context
	closed bool
}

func (g *Gateway) newUpstream(key string) *upstream { return &upstream{g: g, key: key} }

// open reports whether the upstream connection is open.
func (u *upstream) open() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.cl != nil && u.cl.Err() == nil
}

// get returns the open connection, connecting when there is none (or it
// ended). c is the downstream request that needs it (nil: the gateway's
// own).
func (u *upstream) get(ctx context.Context, c *mcp.Context) (*client.Client, error) {
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
	t := u.g.opts.Upstream(c)
	if t == nil {
		return nil, &unavailableError{name: u.g.name, what: "connect", err: errors.New("Options.Upstream returned no transport")}
	}
	cctx, cancel := context.WithTimeout(ctx, u.g.opts.ConnectTimeout)
	defer cancel()
	cl, err := client.Connect(cctx, t, u.options(c))
	if err != nil {
		what := "connect"
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no connection within %v: %w", u.g.opts.ConnectTimeout, err)
		}
		return nil, &unavailableError{name: u.g.name, what: what, err: err}
	}
	if caps := cl.Initialize().Capabilities; caps.Logging != nil {
		// Everything the upstream logs comes back: each downstream
		// request's Context.Log filters by the downstream level.
		_ = cl.SetLogLevel(cctx, mcp.LevelDebug)
	}
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		_ = cl.Close()
		return nil, &unavailableError{name: u.g.name, what: "connect", err: errors.New("the gateway is closed")}
	}
	u.cl = cl
	u.mu.Unlock()
	if u.key == "" && stale != nil && u.g.live.Load() != nil {
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

// current returns the downstream call the upstream's request is asked
// of, with its context: the latest call in flight on a session's
// upstream; on the shared connection, which callers of many sessions
// use, only a call alone in flight (else the request could reach another
// caller).
func (u *upstream) current() (*mcp.Context, context.Context, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := len(u.calls)
	switch {
	case n == 0:
		return nil, nil, errNoCall
	case u.key == "" && n > 1 && !u.g.opts.SingleSession:
		return nil, nil, errors.New("proxy: several downstream requests without a session are in flight; the upstream's request cannot be routed to one")
	}
	return u.calls[n-1], u.ctxs[n-1], nil
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

// options are the client options of an upstream connection for the
// downstream request c (nil: the shared connection): it declares the
// capabilities the downstream client declared (all of them for the
// shared one, whose callers vary), and passes what the upstream sends on.
func (u *upstream) options(c *mcp.Context) *client.Options {
	g := u.g
	o := &client.Options{
		Info:               g.opts.ClientInfo,
		Logger:             g.log,
		OnToolsChanged:     g.resync,
		OnResourcesChanged: g.resync,
		OnPromptsChanged:   g.resync,
		OnResourceUpdated: func(uri string) {
			if srv := g.live.Load(); srv != nil {
				srv.ResourceUpdated(uri)
			}
		},
		OnLog: func(m mcp.LogMessage) {
			dc, _, err := u.current()
			if err != nil {
				return // no request of the downstream session to carry it
			}
			from := g.name
			if m.Logger != "" {
				from += "/" + m.Logger
			}
			if text, ok := m.Data.(string); ok {
				dc.Log.Log(m.Level, from+": "+text)
				return
			}
			dc.Log.Log(m.Level, from, m.Data)
		},
	}
	var caps mcp.ClientCapabilities
	if c != nil {
		caps = c.ClientCapabilities
	}
	all := c == nil
	if all || caps.Sampling != nil {
		o.Sample = func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) (*mcp.CreateMessageResult, error) {
				return dc.Sample(ctx, p)
			})
		}
		o.SamplingTools = all || caps.Sampling.Tools != nil
	}
	if all || caps.Elicitation != nil {
		elicit := func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) (*mcp.ElicitResult, error) {
				return dc.Elicit(ctx, p)
			})
		}
		if all || caps.Elicitation.Form != nil || caps.Elicitation.URL == nil {
			o.Elicit = elicit
		}
		if all || caps.Elicitation.URL != nil {
			o.ElicitURL = elicit
		}
	}
	if all || caps.Roots != nil {
		o.Roots = func(ctx context.Context) ([]mcp.Root, error) {
			return forward(u, ctx, func(ctx context.Context, dc *mcp.Context) ([]mcp.Root, error) {
				return dc.Roots(ctx)
			})
		}
	}
	o.OnNotification = func(method string, params json.RawMessage) {
		srv := g.live.Load()
		sid := u.key
		if sid == "" && g.opts.SingleSession {
			if dc, _, err := u.current(); err == nil {
				sid = dc.SessionID
			}
		}
		if method != "notifications/elicitation/complete" || srv == nil || sid == "" {
			return // the shared connection has no downstream session to tell
		}
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		if json.Unmarshal(params, &p) == nil && p.ElicitationID != "" {
			srv.CompleteElicitation(sid, p.ElicitationID)
		}
	}
	return o
}

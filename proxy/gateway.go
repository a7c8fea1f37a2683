package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// Options configure a [Gateway].
type Options struct {
	// Upstream returns the transport to the upstream server for a new
	// upstream connection. Required. downstream is the Context of the
	// downstream request that opens it, whose caller the connection
	// then serves alone: a downstream session's first call (or the call
	// that reconnects it, of the same caller), a request without a
	// session of a caller with a subject (its pooled connection) or of an
	// opaque caller (a connection for that request). It is nil for the
	// gateway's own connection, which lists the upstream and serves the
	// anonymous callers without a session (every request with
	// SingleSession), and is opened and reopened with nil only. The
	// gateway forwards none of the downstream caller's credentials:
	// whatever the upstream connection carries (its own token, a header
	// derived from downstream.Session) is what this function puts in the
	// transport, for example in client.HTTPOptions.Header.
	Upstream func(downstream *mcp.Context) client.Transport
	// Server configures the gateway's server (its Auth, Logger, …).
	// Name defaults to the upstream's name, Version to "0.0.0",
	// Instructions to the upstream's.
	Server mcp.Options
	// Name names the upstream in errors and logs. Default: the name the
	// upstream gave in initialize.
	Name string
	// ClientInfo is the clientInfo the gateway sends upstream. Default:
	// name "mcpchain-gateway".
	ClientInfo mcp.Implementation
	// ConnectTimeout bounds the opening of an upstream connection (the
	// handshake included): with the upstream down, a call fails after at
	// most this long. Default 10 s.
	ConnectTimeout time.Duration
	// CallTimeout bounds each upstream request; zero means no bound
	// other than the downstream request's own.
	CallTimeout time.Duration
	// SingleSession routes the requests of every downstream session
	// through the shared upstream connection (the one that lists), which
	// then forwards the upstream's requests to its client to the latest
	// downstream call in flight, as a session's own upstream session
	// does. It saves the second upstream session when the gateway has
	// exactly one downstream session at a time (a stdio transport:
	// ServeStdio sets it). Leave it off when several clients share the
	// gateway: the upstream's requests could reach another client's call.
	// The shared connection declares every client capability upstream,
	// and is opened with Upstream(nil): the downstream caller's identity
	// does not reach the upstream.
	SingleSession bool
	// MaxCallers bounds the upstream connections kept for callers with
	// a subject (mcp.Subject) whose requests have no session (stateless
	// HTTP, revision 2026-07-28): each such caller has one, opened with
	// its own request; beyond MaxCallers the least recently used is
	// closed (once its calls are done). It bounds too the connections
	// open at once for opaque callers' requests (one each). Default 64.
	MaxCallers int
	// CallerIdleTimeout closes a caller's pooled upstream connection
	// that no request used for this long. Default 5 minutes.
	CallerIdleTimeout time.Duration
	// MaxMirrorItems and MaxMirrorBytes bound what the gateway mirrors of
	// the upstream: its tools, resources, resource templates and prompts
	// together, by count and by the size of their listed JSON. An
	// upstream that lists more fails New, or a later listing (logged; the
	// mirror keeps its last lists), with an error naming the option: the
	// gateway's memory is not the upstream's to fill. Defaults 20,000 and
	// 64 MiB.
	MaxMirrorItems int
	MaxMirrorBytes int
}

// Options' defaults.
const (
	defaultConnectTimeout    = 10 * time.Second
	defaultMaxCallers        = 64
	defaultCallerIdleTimeout = 5 * time.Minute
	defaultMaxMirrorItems    = 20000
	defaultMaxMirrorBytes    = 64 << 20
)

// Gateway is a running gateway: its [Gateway.Server] mirrors the
// upstream and forwards every call to it. Serve the server with any
// mcpchain transport; Close the gateway when done.
type Gateway struct {
	opts Options
	srv  *mcp.Server
	// live is srv once New has made it, for the upstream connections'
	// callbacks, which may run before.
	live atomic.Pointer[mcp.Server]
	log  *slog.Logger
	name string // the upstream's, for errors

	shared *upstream // the gateway's own connection (gatewayConn)

	mu       sync.Mutex
	sessions map[string]*upstream // sessionConn, by downstream session ID
	pool     callerPool           // callerConn, by identity key
	// inUse are the connections out of those maps that close when their
	// last call is done: each requestConn, and a callerConn evicted
	// while in use.
	inUse  map[*upstream]bool
	closed bool
	// slots bounds the requestConn open at once (Options.MaxCallers).
	slots chan struct{}

	mirror   mirror // what the gateway registered (mirror.go)
	kick     chan struct{}
	ctx      context.Context // ends with Close
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopEnds func()
}

// New connects to the upstream (bounded by ctx and
// Options.ConnectTimeout), lists its tools, resources, resource templates
// and prompts, and returns a gateway whose server mirrors them. The
// upstream must answer at this point: its lists make the server.
func New(ctx context.Context, opts Options) (*Gateway, error) {
	if opts.Upstream == nil {
		return nil, errors.New("proxy: Options.Upstream is required")
	}
	opts.setDefaults()
	log := opts.Server.Logger
	if log == nil {
		log = slog.Default()
	}
	gctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{opts: opts, log: log, sessions: map[string]*upstream{}, inUse: map[*upstream]bool{},
		slots: make(chan struct{}, opts.MaxCallers), kick: make(chan struct{}, 1), ctx: gctx, cancel: cancel}
	g.pool.init()
	g.name = opts.Name
	g.shared = g.newUpstream(gatewayConn, "")
	cl, err := g.shared.get(ctx, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	init := cl.Initialize()
	if g.name == "" {
		g.name = init.ServerInfo.Name
	}
	if g.name == "" {
		g.name = "upstream"
	}
	srv, err := newServer(mirrorServerOptions(opts.Server, &init))
	if err != nil {
		_ = g.shared.close()
		cancel()
		return nil, err
	}
	g.srv = srv
	g.live.Store(srv)
	if err := g.sync(ctx, cl); err != nil {
		_ = g.shared.close()
		cancel()
		return nil, err
	}
	stopEnds, stopUnmounts := srv.OnSessionEnd(g.sessionEnded), srv.OnUnmount(g.sweep)
	g.stopEnds = func() { stopEnds(); stopUnmounts() }
	g.wg.Add(1)
	go g.resyncLoop()
	return g, nil
}

// newServer is mcp.NewServer, with its panic on bad options an error.
func newServer(o mcp.Options) (s *mcp.Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("proxy: the gateway's server options: %v", r)
		}
	}()
	return mcp.NewServer(o), nil
}

// Server is the gateway's server: serve it with mcphttp or stdio, reach it
// in process (client.InProcess), or mount it in a parent server.
func (g *Gateway) Server() *mcp.Server { return g.srv }

// UpstreamName is the name the gateway gives the upstream in errors.
func (g *Gateway) UpstreamName() string { return g.name }

// Sessions is the number of upstream sessions open for downstream
// sessions (the gateway's own connection and those of callers without a
// session not counted).
func (g *Gateway) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, u := range g.sessions {
		if u.open() {
			n++
		}
	}
	return n
}

// Refresh lists the upstream's tools, resources, templates and prompts
// again and updates the mirror, as a list_changed from the upstream
// does.
func (g *Gateway) Refresh(ctx context.Context) error {
	cl, err := g.shared.get(ctx, nil)
	if err != nil {
		return err
	}
	return g.sync(ctx, cl)
}

// Close closes every upstream connection and waits for the gateway's
// goroutines. Serve the server no longer after it.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	open := make([]*upstream, 0, len(g.sessions)+len(g.pool.byKey)+len(g.inUse))
	for _, u := range g.sessions {
		open = append(open, u)
	}
	open = append(open, g.pool.drain()...)
	for u := range g.inUse {
		open = append(open, u)
	}
	g.sessions, g.inUse = map[string]*upstream{}, map[*upstream]bool{}
	g.mu.Unlock()
	if g.stopEnds != nil {
		g.stopEnds()
	}
	g.cancel()
	for _, u := range open {
		_ = u.close()
	}
	err := g.shared.close()
	g.wg.Wait()
	return err
}

// closeLater closes u on a goroutine of its own (closing an HTTP
// session sends DELETE), unless the gateway is closed (its Close closes
// what is open). Called with g.mu held.
func (g *Gateway) closeLater(u *upstream) {
	if g.closed {
		return
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		_ = u.close()
	}()
}

// sessionEnded closes the upstream session of a downstream session that
// ended (the mcp.Server.OnSessionEnd hook).
func (g *Gateway) sessionEnded(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if u := g.sessions[id]; u != nil {
		delete(g.sessions, id)
		g.closeLater(u)
	}
}

// errClosed is what a request gets once the gateway is closed.
func (g *Gateway) errClosed() error {
	return fmt.Errorf("proxy: the gateway to %s is closed", strconv.Quote(g.name))
}

// upstreamFor returns the upstream connection of the downstream request
// c, counted in use until release is called. Whose it is follows the
// identity rule (package internal/identity): the downstream session's
// own; without a session, the gateway's own for an anonymous caller, the
// caller's pooled one for a caller with a subject, and one for this
// request alone for an opaque caller, who shares nothing. With
// SingleSession, every request uses the gateway's own.
func (g *Gateway) upstreamFor(ctx context.Context, c *mcp.Context) (u *upstream, release func(), err error) {
	if c == nil || g.opts.SingleSession {
		return g.shared, func() {}, nil
	}
	if c.SessionID != "" {
		return g.sessionUpstream(c)
	}
	switch identity.Of(c.Session) {
	case identity.Anonymous:
		return g.shared, func() {}, nil
	case identity.Subject:
		return g.callerUpstream(c)
	}
	return g.requestUpstream(ctx, c)
}

// sessionUpstream returns the upstream session of c's downstream
// session, opening one for it the first time. A request of another
// caller with the same session ID is refused: the connection was opened
// with the session's caller and serves no one else.
func (g *Gateway) sessionUpstream(c *mcp.Context) (*upstream, func(), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, nil, g.errClosed()
	}
	u := g.sessions[c.SessionID]
	if u == nil {
		u = g.newUpstream(sessionConn, c.SessionID)
		u.owner = c.Session
		g.sessions[c.SessionID] = u
	} else if !identity.Same(u.owner, c.Session) {
		g.log.Warn("proxy: a request of another caller named a downstream session; refused", "upstream", g.name,
			"caller", identity.Of(c.Session).String(), "session_caller", identity.Of(u.owner).String())
		return nil, nil, &mcp.Error{Code: jsonrpc.CodeInvalidRequest, Message: "proxy: this downstream session belongs to another caller"}
	}
	u.refs++
	return u, func() { g.release(u) }, nil
}

// requestUpstream returns a connection for c alone (an opaque caller's
// request), closed when released. At most Options.MaxCallers are open
// at once; a request beyond waits for one within ConnectTimeout.
func (g *Gateway) requestUpstream(ctx context.Context, c *mcp.Context) (*upstream, func(), error) {
	wait, cancel := context.WithTimeout(ctx, g.opts.ConnectTimeout)
	defer cancel()
	select {
	case g.slots <- struct{}{}:
	case <-wait.Done():
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, &unavailableError{name: g.name, what: "connect", err: fmt.Errorf(
			"%d upstream connections for callers without a subject are in use (Options.MaxCallers); none freed within %v", g.opts.MaxCallers, g.opts.ConnectTimeout)}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		<-g.slots
		return nil, nil, g.errClosed()
	}
	u := g.newUpstream(requestConn, "")
	u.owner = c.Session
	g.inUse[u] = true
	return u, func() {
		g.mu.Lock()
		g.closeUnused(u)
		g.mu.Unlock()
		<-g.slots
	}, nil
}

// closeUnused closes u, one of g.inUse, now that its last call is done
// (unless Close took it). Called with g.mu held.
func (g *Gateway) closeUnused(u *upstream) {
	if g.inUse[u] {
		delete(g.inUse, u)
		g.closeLater(u)
	}
}

// release ends a use of u, a session's upstream. The last one closes u
// when its downstream session is no longer live: a call that ran on
// after its session ended (whose end closed the session's upstream
// session before this call opened another) leaves none open. A session
// that moved to another replica and comes back opens a new one at its
// next call.
func (g *Gateway) release(u *upstream) {
	g.mu.Lock()
	u.refs--
	idle := u.refs == 0 && g.sessions[u.key] == u
	g.mu.Unlock()
	if !idle || g.srv.SessionLive(u.key) {
		return
	}
	g.closeIfIdle(u)
}

// closeIfIdle closes u, when no call uses it and it is still the
// session's.
func (g *Gateway) closeIfIdle(u *upstream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if u.refs != 0 || g.sessions[u.key] != u {
		return
	}
	delete(g.sessions, u.key)
	g.closeLater(u)
}

// sweep closes the upstream sessions, with no call in flight, of the
// downstream sessions no longer live (the mcp.Server.OnUnmount hook: the
// end of a former parent's sessions is not reported one by one).
func (g *Gateway) sweep() {
	g.mu.Lock()
	var idle []*upstream
	for _, u := range g.sessions {
		if u.refs == 0 {
			idle = append(idle, u)
		}
	}
	g.mu.Unlock()
	for _, u := range idle {
		if !g.srv.SessionLive(u.key) {
			g.closeIfIdle(u)
		}
	}
}

// do runs fn against the upstream session of the downstream request c,
// connecting it first if needed. A connection that failed is dropped, so
// that the next call connects again; a session the upstream no longer
// knows (HTTP 404: it restarted) is connected again at once and fn
// retried, once, since the upstream never ran it. what names the request
// in errors.
func (g *Gateway) do(ctx context.Context, c *mcp.Context, what string, fn func(ctx context.Context, cl *client.Client) error) error {
	if g.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, g.opts.CallTimeout, errCallTimeout)
		defer cancel()
	}
	u, release, err := g.upstreamFor(ctx, c)
	if err != nil {
		return err
	}
	defer release()
	for attempt := 0; ; attempt++ {
		cl, err := u.get(ctx, c)
		if err != nil {
			return err
		}
		done := u.track(ctx, c)
		err = fn(ctx, cl)
		done()
		if err == nil {
			return nil
		}
		var re *mcp.Error
		status := httpStatus(err)
		expired := upstreamForgot(ctx, cl, err, status)
		switch {
		case status == 0 && !expired && errors.As(err, &re):
			return &upstreamError{name: g.name, rpc: re}
		case ctx.Err() != nil:
			if errors.Is(context.Cause(ctx), errCallTimeout) {
				return &unavailableError{name: g.name, what: what, err: fmt.Errorf("no answer within %v", g.opts.CallTimeout)}
			}
			return ctx.Err()
		}
		u.drop(cl)
		if attempt == 0 && expired {
			continue // the upstream restarted and forgot the session: it never ran the request
		}
		return &unavailableError{name: g.name, what: what, err: err}
	}
}

// upstreamForgot reports whether a request on cl failed with err (HTTP
// status, 0 for none) because the upstream forgot the session (it
// restarted, or the session expired): HTTP 404, or its JSON-RPC form
// -32001 (what an in-process handler's 404 answer reads as) when a ping
// on the same connection meets it too; a tool's own -32001 error is its
// answer, and is not sent again.
func upstreamForgot(ctx context.Context, cl *client.Client, err error, status int) bool {
	var re *mcp.Error
	return errors.Is(err, mcp.ErrNoSession) || status == http.StatusNotFound ||
		(status == 0 && errors.As(err, &re) && re.Code == jsonrpc.CodeSessionNotFound && sessionGone(ctx, cl))
}

// sessionGone reports whether the upstream no longer knows cl's session:
// a ping is refused as the session's requests are.
func sessionGone(ctx context.Context, cl *client.Client) bool {
	err := cl.Ping(ctx)
	var re *mcp.Error
	return errors.Is(err, mcp.ErrNoSession) || httpStatus(err) == http.StatusNotFound ||
		(errors.As(err, &re) && re.Code == jsonrpc.CodeSessionNotFound)
}

// httpStatus is the HTTP error status a request was refused with, or 0:
// an *client.HTTPError's, or that of the JSON-RPC error (-32000 with
// data {"status": …}) by which client.InProcess reports one.
func httpStatus(err error) int {
	var he *client.HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	var re *mcp.Error
	if !errors.As(err, &re) || re.Code != mcp.CodeServerError {
		return 0
	}
	raw, ok := re.Data.(json.RawMessage) // as package client reports the server's data
	if !ok {
		return 0
	}
	var d struct {
		Status int `json:"status"`
	}
	if json.Unmarshal(raw, &d) != nil || d.Status < 300 {
		return 0
	}
	return d.Status
}

// errCallTimeout is the cause of a request's context when
// Options.CallTimeout passed.
var errCallTimeout = errors.New("proxy: the upstream call timed out")

// upstreamError is a JSON-RPC error the upstream answered with: the
// downstream client gets the same code and data, the message prefixed
// with the upstream's name.
type upstreamError struct {
	name string
	rpc  *mcp.Error
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("upstream %s: %s", strconv.Quote(e.name), e.rpc.Message)
}

func (e *upstreamError) Unwrap() error { return e.rpc }

// rpcError is e as the JSON-RPC error the downstream client gets. A
// URLElicitationRequired error (-32042) carries URLs the downstream
// client shows the user: it passes only when each is one a user may be
// asked to open (eliciturl.Check), else it becomes -32603 without them.
func (e *upstreamError) rpcError() *mcp.Error {
	if e.rpc.Code == mcp.CodeURLElicitationRequired {
		if err := eliciturl.CheckRequired(rawData(e.rpc.Data)); err != nil {
			return &mcp.Error{Code: mcp.CodeInternalError, Message: fmt.Sprintf(
				"upstream %s asked for a URL elicitation the gateway refuses to relay: %v", strconv.Quote(e.name), err)}
		}
	}
	return &mcp.Error{Code: e.rpc.Code, Message: e.Error(), Data: e.rpc.Data}
}

// rawData is the data member of an upstream's error as JSON: the client
// gives the json.RawMessage the upstream sent.
func rawData(d any) json.RawMessage {
	if raw, ok := d.(json.RawMessage); ok {
		return raw
	}
	b, _ := json.Marshal(d)
	return b
}

// unavailableError is a failure to reach the upstream: it is down, the
// connection broke, or it did not answer in time.
type unavailableError struct {
	name, what string
	err        error
}

func (e *unavailableError) Error() string {
	return fmt.Sprintf("upstream %s unavailable (%s): %v", strconv.Quote(e.name), e.what, e.err)
}

func (e *unavailableError) Unwrap() error { return e.err }

// ErrUnavailable is matched (errors.Is) by the error of [New] and
// [Gateway.Refresh] when the upstream cannot be reached, and by what the
// gateway's own requests upstream fail with when it is down, the
// connection broke, or it did not answer within Options.CallTimeout (the
// downstream client gets those as an isError result of tools/call, or a
// -32603 error naming the upstream).
var ErrUnavailable = errors.New("proxy: upstream unavailable")

// Is makes an unavailableError match ErrUnavailable.
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

// toolError maps the failure of a forwarded tools/call: the upstream's
// JSON-RPC error stays one (same code), and an unreachable upstream is a
// tool error (an isError result naming the upstream), which the model
// reads and may retry.
func toolError(err error) error {
	var ue *upstreamError
	var ne *unavailableError
	switch {
	case errors.As(err, &ue):
		return ue.rpcError()
	case errors.As(err, &ne):
		return &mcp.UserError{Message: ne.Error()}
	}
	return err
}

// requestError maps the failure of a forwarded resources/read,
// prompts/get or completion/complete: the upstream's JSON-RPC error
// stays one (same code), and an unreachable upstream is an internal
// error (-32603) naming it.
func requestError(err error) error {
	var ue *upstreamError
	var ne *unavailableError
	switch {
	case errors.As(err, &ue):
		return ue.rpcError()
	case errors.As(err, &ne):
		return &mcp.Error{Code: mcp.CodeInternalError, Message: ne.Error()}
	}
	return err
}

// setDefaults fills in the defaults of the options left unset.
func (o *Options) setDefaults() {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = defaultConnectTimeout
	}
	if o.MaxCallers <= 0 {
		o.MaxCallers = defaultMaxCallers
	}
	if o.MaxMirrorItems <= 0 {
		o.MaxMirrorItems = defaultMaxMirrorItems
	}
	if o.MaxMirrorBytes <= 0 {
		o.MaxMirrorBytes = defaultMaxMirrorBytes
	}
	if o.CallerIdleTimeout <= 0 {
		o.CallerIdleTimeout = defaultCallerIdleTimeout
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "mcpchain-gateway", Version: "0.0.0"}
	}
}

// mirrorServerOptions are the options of the mirroring server: so, its
// name, version and instructions, when unset, the upstream's (init).
func mirrorServerOptions(so mcp.Options, init *mcp.InitializeResult) mcp.Options {
	if so.Name == "" {
		so.Name = init.ServerInfo.Name
		if so.Name == "" {
			so.Name = "mcpchain-gateway"
		}
	}
	if so.Version == "" {
		so.Version = "0.0.0"
	}
	if so.Instructions == "" {
		so.Instructions = init.Instructions
	}
	return so
}

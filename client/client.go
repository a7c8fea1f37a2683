package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/sampling"
)

// Options configure a [Client]. The zero value is usable: a client named
// "mcpchain-client" that declares no capabilities.
type Options struct {
	// Info is the clientInfo sent in initialize. Default: name
	// "mcpchain-client", version "0.0.0".
	Info mcp.Implementation
	// ProtocolVersion is the revision asked for in initialize; the
	// server's choice is kept (see [Client.ProtocolVersion]). Default
	// mcp.Version20251125, the newest revision with initialize and
	// sessions, which every server of 2025 speaks. mcp.Version20260728
	// (or any revision whose Sessionless method reports true) speaks the
	// revision without initialize and sessions, falling back to the
	// newest 2025 revision for a server that does not speak it.
	ProtocolVersion mcp.Version

	// Sample answers the server's sampling/createMessage requests; set,
	// the client declares the sampling capability.
	Sample func(ctx context.Context, p *sampling.Request) (*sampling.Result, error)
	// SamplingTools declares that Sample takes tools (sampling.tools):
	// the server may then offer the model tools, and Sample gets
	// sampling.Request.Tools and answers with tool_use blocks.
	SamplingTools bool
	// Elicit answers the server's form elicitations (elicitation/create
	// in form mode); set, the client declares elicitation.form.
	Elicit func(ctx context.Context, p *elicit.Params) (*elicit.Result, error)
	// ElicitURL answers the server's URL elicitations (mode "url": ask
	// the user to open p.URL, then accept); set, the client declares
	// elicitation.url. The server's notifications/elicitation/complete
	// reaches OnNotification. It is handed only a URL a user may open: an
	// absolute https URL, or http to this machine, without user
	// information before the host; the server gets -32602 for any other
	// (javascript:, data:, file:, …).
	ElicitURL func(ctx context.Context, p *elicit.Params) (*elicit.Result, error)
	// Roots answers roots/list; set, the client declares the roots
	// capability (with listChanged: call [Client.RootsChanged]).
	Roots func(ctx context.Context) ([]mcp.Root, error)
	// Extensions are the extensions the client declares in its
	// capabilities.extensions, each with its settings (a nil value is
	// sent as {}): {mcp.SkillsExtension: nil} for a client that reads
	// skills ([Client.ListSkills], [Client.LoadSkill]),
	// {apps.Extension: {"mimeTypes": [apps.MIMEType]}} for a host of
	// MCP Apps.
	Extensions map[string]any

	// DisableCache turns off the reuse of results. By default, at
	// revision 2026-07-28, a list page or a resource read whose result
	// carries a positive ttlMs answers the same request again without a
	// round trip until that time runs out, or until the server says the
	// list (notifications/…/list_changed) or the resource
	// (notifications/resources/updated) changed. A result marked
	// cacheScope "private" is kept too: a Client speaks for one caller,
	// and its results are never shared with another Client.
	DisableCache bool

	// OnToolsChanged, OnResourcesChanged and OnPromptsChanged are called
	// when the server says its list changed. At revision 2026-07-28 the
	// client hears it on a subscriptions/listen stream, which Connect
	// opens when the server announces such changes and one of these,
	// OnNotification or the cache wants them (HTTPOptions.NoListen: not),
	// and opens again when it ends. Changes during such a gap are not
	// replayed, so once the stream is back each callback of what the
	// client listens to is called once, and the cache is dropped.
	OnToolsChanged, OnResourcesChanged, OnPromptsChanged func()
	// OnResourceUpdated is called with the URI of a subscribed resource
	// that changed ([Client.Subscribe]); at 2026-07-28 also once for each
	// subscribed URI after the listen stream came back from a gap.
	OnResourceUpdated func(uri string)
	// OnLog is called with the server's log messages (notifications/message).
	OnLog func(mcp.LogMessage)
	// OnTaskStatus is called with each task status the server announces
	// (notifications/tasks/status, revision 2025-11-25): a task of this
	// client's that needs input, goes on or ends ([Client.StartTool]).
	OnTaskStatus func(TaskInfo)
	// OnNotification is called with every notification from the server,
	// after the specific callbacks above; not with the acknowledgement of
	// the client's own subscriptions/listen, nor with the calls made after
	// a listen stream's gap, which the server did not send.
	OnNotification func(method string, params json.RawMessage)

	// Logger gets what the client cannot return to a caller (a message
	// from the server that does not decode, a failing handler). Default:
	// slog.Default().
	Logger *slog.Logger
}

// Client is a connection to one MCP server, initialized: its methods call
// the server. It is safe for concurrent use. Close it when done.
type Client struct {
	conn Conn
	opts Options
	log  *slog.Logger

	nextID   atomic.Int64
	mu       sync.Mutex
	pending  map[int64]chan *message // by request id
	progress map[int64]func(mcp.Progress)
	closed   bool
	err      error // why the connection ended

	init       mcp.InitializeResult
	state      rev20260728State // revision 2026-07-28
	cache      *resultCache     // results the server let the client reuse; nil: none
	readerDone chan struct{}
	notes      chan *message // to the goroutine that runs the callbacks
	resyncs    chan struct{} // to it too: resynced holds calls to make (listen.go)
	resyncMu   sync.Mutex
	resynced   []*message   // the callbacks of a listen stream reopened after a gap
	lis        *listenState // revision 2026-07-28's subscriptions/listen; nil: none
	notesDone  chan struct{}
	noted      noteCount                     // how far the callbacks have come (notes.go)
	tasks      taskRegistry                  // the tasks' capability and waiters (tasks.go)
	serving    map[string]context.CancelFunc // the server's requests being answered
	handlers   sync.WaitGroup
	handlerCtx context.Context
	stop       context.CancelFunc
}

// message is one JSON-RPC message from the server, leniently decoded: a
// client takes what a well-meaning server sends (decodeMessage).
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`

	// queued is, for a response, how many notifications the reader had
	// queued for the callbacks before it (notes.go).
	queued int64
	// local: the client made it up (a listen stream reopened after a
	// gap, listen.go); OnNotification does not get it.
	local bool
}

// Connect opens a connection with t, initializes the session (initialize,
// then notifications/initialized) and returns the client. ctx bounds the
// handshake. opts may be nil.
func Connect(ctx context.Context, t Transport, opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Info.Name == "" {
		o.Info = mcp.Implementation{Name: "mcpchain-client", Version: "0.0.0"}
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = mcp.Version20251125
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	hctx, stop := context.WithCancel(context.Background())
	c := &Client{conn: conn, opts: o, log: log, pending: map[int64]chan *message{},
		progress: map[int64]func(mcp.Progress){}, readerDone: make(chan struct{}), handlerCtx: hctx, stop: stop,
		notes: make(chan *message, 256), resyncs: make(chan struct{}, 1), notesDone: make(chan struct{}), serving: map[string]context.CancelFunc{}}
	if a, ok := conn.(awaiter); ok {
		a.setAwaited(c.awaits)
	}
	if o.ProtocolVersion.Sessionless() {
		if !o.DisableCache {
			// Only revision 2026-07-28 says how long a result may be reused.
			c.cache = newResultCache()
		}
		c.lis = newListenState()
	}
	go c.read()
	go c.runCallbacks()
	start := c.initialize
	if c.rev20260728() {
		start = c.discover
	}
	if err := start(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	if c.rev20260728() {
		c.startListen(ctx)
	}
	return c, nil
}

func (c *Client) initialize(ctx context.Context) error {
	params := map[string]any{"protocolVersion": c.opts.ProtocolVersion, "capabilities": c.capabilities(), "clientInfo": c.opts.Info}
	var raw json.RawMessage
	if err := c.call(ctx, "initialize", params, &raw); err != nil {
		return err
	}
	if err := c.decodeResult("initialize", raw, nil, &c.init); err != nil {
		return err
	}
	c.tasks.readCapability(raw)
	if c.init.ProtocolVersion == "" {
		return fmt.Errorf("mcp client: %s answered initialize without a protocolVersion", c.serverName())
	}
	if v, ok := c.conn.(versioned); ok {
		v.setProtocolVersion(string(c.init.ProtocolVersion))
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	if l, ok := c.conn.(listener); ok {
		l.listen()
	}
	return nil
}

// ProtocolVersion is the revision the server chose.
func (c *Client) ProtocolVersion() mcp.Version { return c.init.ProtocolVersion }

// Initialize returns what the server answered to initialize: its info,
// capabilities and instructions.
func (c *Client) Initialize() mcp.InitializeResult { return c.init }

func (c *Client) serverName() string {
	if c.init.ServerInfo.Name != "" {
		return strconv.Quote(c.init.ServerInfo.Name)
	}
	return "the server"
}

// Call sends a request and decodes its result into result (nil to drop
// it). When ctx ends first, the client tells the server with
// notifications/cancelled and returns ctx's error. An error answer is an
// error wrapping the server's *mcp.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, params, result)
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	return c.callProgress(ctx, method, params, result, nil)
}

// callProgress is call with a progress callback: the request's
// _meta.progressToken is set. At revision 2026-07-28 the request carries
// the client's _meta and routing headers, and an input-required result is
// answered and the request sent again, up to maxInputRounds times.
func (c *Client) callProgress(ctx context.Context, method string, params, result any, progress func(mcp.Progress)) error {
	tc, isToolCall := params.(toolCall)
	if !c.rev20260728() {
		raw, err := c.exchange(ctx, method, params, progress, nil)
		return c.decodeResult(method, raw, err, result)
	}
	// p is the params as a map, what an input round changes; CallTool's
	// common call is sent as it was encoded, with the _meta spliced in,
	// and becomes a map only for an input round.
	var p map[string]any
	var send any
	var header http.Header
	if isToolCall {
		enc, err := c.rev20260728ToolCall(tc)
		if err != nil {
			return fmt.Errorf("mcp client: encoding %s: %w", method, err)
		}
		send = enc
		header = c.routingHeadersFor(method, tc.name, func() map[string]any {
			return toMap(toMap(tc.raw)["arguments"])
		})
	} else {
		var err error
		if p, err = c.rev20260728Params(params); err != nil {
			return fmt.Errorf("mcp client: %s: %w", method, err)
		}
		send = p
		header = c.routingHeaders(method, p)
	}
	retried := false
	for round := 0; ; round++ {
		raw, err := c.exchange(ctx, method, send, progress, header)
		if !retried && unsupportedVersion(err) {
			// The server refused the revision but names it among those it
			// supports (a server that changed its mind, or a proxy's
			// answer): the request is sent again, once.
			retried = true
			round--
			continue
		}
		if err != nil {
			return err
		}
		var ir struct {
			ResultType    string                  `json:"resultType"`
			InputRequests map[string]inputRequest `json:"inputRequests"`
			RequestState  json.RawMessage         `json:"requestState"`
		}
		if rt, ok := resultTypeOf(raw); ok && rt != "task" && rt != "input_required" {
			// The common answer, "complete": the rest of ir is not read.
			ir.ResultType = rt
		} else {
			_ = json.Unmarshal(raw, &ir)
		}
		if ir.ResultType == "task" && method == "tools/call" {
			if _, own := result.(*json.RawMessage); !own {
				name := tc.name
				if !isToolCall {
					name, _ = p["name"].(string)
				}
				return c.followTask(ctx, name, raw, result)
			}
		}
		if ir.ResultType != "input_required" {
			return c.decodeResult(method, raw, nil, result)
		}
		if round+1 >= maxInputRounds {
			return fmt.Errorf("mcp client: %s from %s still asked for input after %d rounds", method, c.serverName(), maxInputRounds)
		}
		answers, err := c.answerInputs(ctx, method, ir.InputRequests)
		if err != nil {
			return err
		}
		if p == nil {
			if p, err = c.rev20260728Params(tc.raw); err != nil {
				return fmt.Errorf("mcp client: %s: %w", method, err)
			}
			send = p
		}
		p["inputResponses"] = answers
		if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
			p["requestState"] = ir.RequestState
		} else {
			delete(p, "requestState")
		}
	}
}

// unsupportedVersion reports whether err refuses the request's revision
// while naming revision 2026-07-28 among the supported ones.
func unsupportedVersion(err error) bool {
	re := asRPCError(err)
	if re == nil || re.Code != jsonrpc.CodeUnsupportedProtocolVersion {
		return false
	}
	var d struct {
		Supported []mcp.Version `json:"supported"`
	}
	return json.Unmarshal(errorData(re), &d) == nil && slices.Contains(d.Supported, mcp.Version20260728)
}

// decodeResult decodes a request's raw result into result (nil to drop
// it), unless err is set.
func (c *Client) decodeResult(method string, raw json.RawMessage, err error, result any) error {
	if err != nil {
		return err
	}
	if result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("mcp client: the result of %s from %s does not decode: %w", method, c.serverName(), err)
		}
	}
	return nil
}

// headerKey is the context key of the HTTP headers a request carries
// (revision 2026-07-28's routing headers); other transports ignore them.
type headerKey struct{}

// idKey is the context key of the id of the request sent (with headers).
type idKey struct{}

// requestHeader returns the headers set for the request sent with ctx.
func requestHeader(ctx context.Context) http.Header {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h
}

// aborter is implemented by a Conn that stops a request in flight itself
// (2026-07-28 over HTTP: the POST is closed) rather than by sending
// notifications/cancelled.
type aborter interface {
	abort(id int64) bool
}

// exchange sends one request with a new id and returns its raw result.
// When ctx ends first, the request is cancelled on the server.
func (c *Client) exchange(ctx context.Context, method string, params any, progress func(mcp.Progress), header http.Header) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	key := id
	announceID(ctx, id)
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return nil, c.closedErr(err)
	}
	c.pending[key] = ch
	if progress != nil {
		c.progress[key] = progress
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		delete(c.progress, key)
		c.mu.Unlock()
	}()
	if progress != nil {
		params = withProgressToken(params, id)
	}
	p, err := encodeParams(params)
	if err != nil {
		return nil, fmt.Errorf("mcp client: encoding %s: %w", method, err)
	}
	b := jsonrpc.AppendRequest(make([]byte, 0, len(method)+len(p)+48), id, method, p)
	sctx := ctx
	if header != nil {
		sctx = context.WithValue(context.WithValue(ctx, headerKey{}, header), idKey{}, id)
	}
	if err := c.conn.Send(sctx, b); err != nil {
		if ctx.Err() != nil {
			// The request may have reached the server before the
			// context ended (an HTTP server that sends its response
			// headers only with the result): cancel it there too.
			c.cancelRequest(ctx, method, id)
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("mcp client: %s to %s: %w", method, c.serverName(), err)
	}
	select {
	case m := <-ch:
		if m == nil {
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			return nil, c.closedErr(err)
		}
		if ctx.Value(afterNotesKey{}) != nil {
			c.noted.wait(m.queued)
		}
		if m.Error != nil {
			e := m.Error
			if e.code == mcp.CodeURLElicitationRequired {
				// The application opens the URLs of its data: a script, a
				// local file or a disguised host never gets that far.
				if err := eliciturl.CheckRequired(e.data); err != nil {
					e = &wireError{code: mcp.CodeInternalError, message: "the server answered with a URL elicitation (-32042) " +
						"the client refuses to pass on: " + err.Error()}
				}
			}
			return nil, c.rpcError(method, e)
		}
		return m.Result, nil
	case <-ctx.Done():
		c.cancelRequest(ctx, method, id)
		return nil, ctx.Err()
	}
}

// announceID passes the id of the request about to be sent to the
// function of ctx's idHookKey, if any (a listen stream keeps it).
func announceID(ctx context.Context, id int64) {
	if hook, ok := ctx.Value(idHookKey{}).(func(int64)); ok {
		hook(id)
	}
}

// cancelRequest tells the server that request id, whose context ended,
// is cancelled: at 2026-07-28 over HTTP by closing its POST, otherwise
// with notifications/cancelled (never for initialize).
func (c *Client) cancelRequest(ctx context.Context, method string, id int64) {
	if a, ok := c.conn.(aborter); ok && c.rev20260728() && a.abort(id) {
		return
	}
	if method != "initialize" {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
		_ = c.Notify(nctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": context.Cause(ctx).Error()})
		cancel()
	}
}

// cancelTimeout bounds the sending of notifications/cancelled.
const cancelTimeout = 5 * time.Second

func (c *Client) closedErr(err error) error {
	if err != nil {
		return err
	}
	return ErrClosed
}

// encodeParams encodes a message's params: nil (or a value that encodes
// as null) for none, since JSON-RPC allows no "params": null.
func encodeParams(params any) ([]byte, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage: // encoded already
		if len(p) == 0 || string(p) == "null" {
			return nil, nil
		}
		return p, nil
	case toolCall: // CallTool's
		return p.raw, nil
	}
	p, err := json.Marshal(params)
	if err != nil || string(p) == "null" {
		return nil, err
	}
	return p, nil
}

// withProgressToken returns params with _meta.progressToken set to tok.
func withProgressToken(params any, tok int64) any {
	m := toMap(params)
	meta, _ := m["_meta"].(map[string]any)
	cp := map[string]any{}
	for k, v := range meta {
		cp[k] = v
	}
	cp["progressToken"] = tok
	m["_meta"] = cp
	return m
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	p, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("mcp client: encoding %s: %w", method, err)
	}
	b := jsonrpc.AppendNotification(make([]byte, 0, len(method)+len(p)+32), method, p)
	if err := c.conn.Send(ctx, b); err != nil {
		return fmt.Errorf("mcp client: %s to %s: %w", method, c.serverName(), err)
	}
	return nil
}

// read dispatches the server's messages until the connection ends.
func (c *Client) read() {
	defer close(c.readerDone)
	defer close(c.notes)
	for {
		b, err := c.conn.Recv(context.Background())
		if err != nil {
			c.end(err)
			return
		}
		m, err := decodeMessage(b)
		if err != nil {
			c.log.Warn("mcp client: a message from the server does not decode; dropped", "server", c.init.ServerInfo.Name, "error", err)
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
			ctx, cancel := context.WithCancel(c.handlerCtx)
			c.mu.Lock()
			c.serving[string(m.ID)] = cancel
			c.mu.Unlock()
			c.handlers.Add(1)
			go func() {
				defer c.handlers.Done()
				defer func() {
					c.mu.Lock()
					delete(c.serving, string(m.ID))
					c.mu.Unlock()
					cancel()
				}()
				c.serve(ctx, &m)
			}()
		case m.Method == "notifications/progress":
			c.progressed(&m) // in order with the call's answer
		case m.Method == "notifications/cancelled":
			c.cancelled(&m)
			c.queue(&m)
		case m.Method == "notifications/subscriptions/acknowledged":
			// The answer to the client's own subscriptions/listen: its
			// bookkeeping, not a callback's.
			c.acknowledged(&m)
		case m.Method != "":
			c.cache.changed(m.Method, m.Params)
			// Callbacks run on a goroutine of their own, in order, so
			// that one may call the client (whose answers this reader
			// must go on reading).
			c.queue(&m)
		default:
			m.queued = c.noted.queued
			c.response(&m)
		}
	}
}

func (c *Client) response(m *message) {
	key, ok := idOf(m.ID)
	if !ok {
		return // no id this client sent
	}
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// awaits reports whether a call waits for the response to request id.
func (c *Client) awaits(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// idOf reads a request id as the client sent it, a number, or as a
// server may echo it, a string of that number ("7").
func idOf(raw []byte) (int64, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	if len(raw) == 0 || len(raw) > 18 { // no overflow
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false // the client's ids are positive
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// end fails every pending call: the connection is gone.
func (c *Client) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if !errors.Is(err, ErrClosed) {
		err = fmt.Errorf("%w: %v", ErrClosed, err)
	}
	c.err = err
	for k, ch := range c.pending {
		close(ch)
		delete(c.pending, k)
	}
}

// Close ends the connection (and, over HTTP, the session) and waits for
// the client's goroutines. Calls in flight fail with ErrClosed.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.readerDone
	<-c.notesDone
	c.stop()
	if c.lis != nil && c.lis.started.Load() {
		<-c.lis.done
	}
	c.handlers.Wait()
	return err
}

// Done returns a channel closed once the connection has ended, closed by
// either side; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.readerDone }

// Err is why the connection ended (wrapping ErrClosed), or nil while it
// is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

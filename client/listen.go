package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// At revision 2026-07-28 a client hears of list changes and resource
// updates on the response stream of a subscriptions/listen request, which
// stays open (basic/patterns/subscriptions of the specification). The
// client keeps one such stream open while there is something to listen
// to: the list changes the server announces (capabilities …listChanged)
// that a callback, the result cache or OnNotification wants, and the
// resources of Subscribe. A Subscribe or Unsubscribe opens a stream with
// the new filter and, once the server acknowledged it, closes the old one,
// so nothing is missed in between (a change may be heard twice).
//
// When the stream ends without the client closing it (a server restarted,
// a connection reset, a replica gone, or the server's own end of the
// subscription), the client opens it again after a bounded exponential
// backoff with jitter. The specification keeps no subscription state and
// replays nothing across reconnections (there is no Last-Event-ID at this
// revision, and on stdio the client must re-send subscriptions/listen), so
// what changed during the gap is lost: once the new stream is
// acknowledged, the client drops every result it kept and calls the
// callback of each kind it listens to once (OnToolsChanged, …, and
// OnResourceUpdated for each subscribed URI), as if the server had said
// that everything changed.

// metaSubscriptionID tags every message of a subscriptions/listen stream.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Bounds of the listen loop.
const (
	// listenBackoffBase and listenBackoffCap bound the wait before the
	// n-th attempt to open the stream again: base·2ⁿ up to cap, of which
	// a random half to all is waited (jitter: the clients of a replica
	// that went away do not all come back at once).
	listenBackoffBase = 250 * time.Millisecond
	listenBackoffCap  = 30 * time.Second
	// listenStable is how long a stream must have lasted for its end to
	// start the backoff over: a server that acknowledges and drops every
	// stream at once is not asked again four times a second.
	listenStable = 10 * time.Second
	// listenAckTimeout bounds the wait for the acknowledgement of a
	// stream the loop opens.
	listenAckTimeout = 30 * time.Second
)

// listenFilter is the notifications member of subscriptions/listen, and
// of its acknowledgement.
type listenFilter struct {
	Tools     bool     `json:"toolsListChanged,omitempty"`
	Prompts   bool     `json:"promptsListChanged,omitempty"`
	Resources bool     `json:"resourcesListChanged,omitempty"`
	URIs      []string `json:"resourceSubscriptions,omitempty"`
}

func (f listenFilter) empty() bool { return !f.Tools && !f.Prompts && !f.Resources && len(f.URIs) == 0 }

func (f listenFilter) equal(g listenFilter) bool {
	return f.Tools == g.Tools && f.Prompts == g.Prompts && f.Resources == g.Resources && slices.Equal(f.URIs, g.URIs)
}

// with returns f with uri added to (add) or removed from its URIs, which
// stay sorted.
func (f listenFilter) with(uri string, add bool) listenFilter {
	uris := slices.Clone(f.URIs)
	i, found := slices.BinarySearch(uris, uri)
	switch {
	case add && !found:
		uris = slices.Insert(uris, i, uri)
	case !add && found:
		uris = slices.Delete(uris, i, i+1)
	}
	f.URIs = uris
	return f
}

// listenState is the subscriptions/listen stream of a 2026-07-28 client.
type listenState struct {
	mu     sync.Mutex
	want   listenFilter            // what the client listens to
	ver    uint64                  // counts the changes of want
	cur    *listenStream           // the acknowledged stream; nil: none
	gap    bool                    // a stream ended: changes may have been missed since
	halted error                   // the server refused subscriptions/listen; Subscribe asks again
	byID   map[int64]*listenStream // the streams opened, by request id
	subMu  sync.Mutex              // serializes Subscribe and Unsubscribe
	wake   chan struct{}           // cur, want or halted changed (buffered 1)
	done   chan struct{}           // closed when the loop returned
	logged map[string]struct{}     // what the server did not grant, logged once
	// started: the loop runs (Close waits for done).
	started atomic.Bool
}

func newListenState() *listenState {
	return &listenState{byID: map[int64]*listenStream{}, wake: make(chan struct{}, 1), done: make(chan struct{}),
		logged: map[string]struct{}{}}
}

func (l *listenState) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// listenStream is one subscriptions/listen request and its stream.
type listenStream struct {
	filter  listenFilter
	id      int64         // the request's id, the subscription ID (set before it is sent)
	acked   chan struct{} // closed by the acknowledgement
	ackOnce sync.Once
	ended   chan struct{} // closed once the request is over
	err     error         // why it ended, set before ended is closed
	cancel  context.CancelCauseFunc
	since   time.Time // when it became the current stream (listenState.mu)
}

// close ends the stream (the client cancels the request) and waits for
// it.
func (s *listenStream) close() {
	s.cancel(nil)
	<-s.ended
}

// idHookKey is the context key of a function exchange calls with the id
// of the request before sending it.
type idHookKey struct{}

// streamEndedData marks the error response a Conn delivers when the
// response stream of a request of 2026-07-28 ended without the server's
// response: that revision resumes no stream, so nothing else would ever
// answer it, and the caller would wait for its context.
const streamEndedData = `{"io.mcpchain/streamEnded":true}`

// streamEnded is that error response for request id.
func streamEnded(id int64) []byte {
	return jsonrpc.AppendError(nil, json.RawMessage(strconv.FormatInt(id, 10)), mcp.CodeInternalError,
		"the response stream ended without a response (the connection was cut, or the server closed it)",
		json.RawMessage(streamEndedData))
}

var (
	// errListenDropped: the stream ended without the server's response.
	errListenDropped = errors.New("the stream ended without a response (the connection was cut)")
	// errListenComplete: the server ended the subscription with its
	// response (graceful closure).
	errListenComplete = errors.New("the server ended the subscription")
	// errListenCancelled: the server sent notifications/cancelled for it.
	errListenCancelled = errors.New("the server cancelled the subscription")
)

// startListen opens the stream of what Options asks to hear, if the
// server announces it, and starts the loop that keeps it open. Called by
// Connect at 2026-07-28, after server/discover; ctx bounds the wait for
// the first acknowledgement (at most listenWait: the stream is opened in
// the background after that).
func (c *Client) startListen(ctx context.Context) {
	l := c.lis
	caps, o := c.init.Capabilities, &c.opts
	auto := true
	if nl, ok := c.conn.(interface{ noListen() bool }); ok && nl.noListen() {
		auto = false
	}
	wants := func(cb func()) bool { return auto && (cb != nil || o.OnNotification != nil || c.cache != nil) }
	want := listenFilter{
		Tools:     caps.Tools != nil && caps.Tools.ListChanged && wants(o.OnToolsChanged),
		Prompts:   caps.Prompts != nil && caps.Prompts.ListChanged && wants(o.OnPromptsChanged),
		Resources: caps.Resources != nil && caps.Resources.ListChanged && wants(o.OnResourcesChanged),
	}
	l.mu.Lock()
	l.want = want
	ver := l.ver
	l.mu.Unlock()
	if !want.empty() {
		wctx, cancel := context.WithTimeout(ctx, listenWait)
		s, err := c.openListen(wctx, want)
		cancel()
		if err == nil {
			c.install(s, ver)
		} else {
			c.listenFailed(err)
		}
	}
	l.started.Store(true)
	go c.listenLoop()
}

// openListen sends subscriptions/listen with filter f and returns the
// stream once the server acknowledged it, or the error that ended it
// first. The stream lives until it is closed, the server ends it or the
// client closes; ctx bounds only the wait for the acknowledgement.
func (c *Client) openListen(ctx context.Context, f listenFilter) (*listenStream, error) {
	l := c.lis
	s := &listenStream{filter: f, acked: make(chan struct{}), ended: make(chan struct{})}
	sctx, cancel := context.WithCancelCause(c.handlerCtx)
	s.cancel = cancel
	sctx = context.WithValue(sctx, idHookKey{}, func(id int64) {
		l.mu.Lock()
		s.id = id
		l.byID[id] = s
		l.mu.Unlock()
	})
	p, err := c.rev20260728Params(map[string]any{"notifications": f})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	header := c.routingHeaders("subscriptions/listen", p)
	go func() {
		defer close(s.ended)
		defer cancel(nil)
		_, err := c.exchange(sctx, "subscriptions/listen", p, nil, header)
		l.mu.Lock()
		delete(l.byID, s.id)
		l.mu.Unlock()
		switch re := asRPCError(err); {
		case err == nil:
			err = errListenComplete
		case re != nil && string(errorData(re)) == streamEndedData:
			err = errListenDropped
		case sctx.Err() != nil && context.Cause(sctx) == errListenCancelled:
			err = errListenCancelled
		}
		s.err = err
	}()
	select {
	case <-s.acked:
		return s, nil
	case <-s.ended:
		return nil, s.err
	case <-ctx.Done():
		s.close()
		return nil, ctx.Err()
	}
}

// install makes s the current stream, unless want changed since s was
// opened with the version ver (false: the caller closes s). The stream it
// replaces is closed. After a gap, the cache is dropped and the callbacks
// called (resync).
func (c *Client) install(s *listenStream, ver uint64) bool {
	l := c.lis
	l.mu.Lock()
	if ver != l.ver {
		l.mu.Unlock()
		return false
	}
	old, gap := l.cur, l.gap
	l.cur, l.gap, l.halted = s, false, nil
	s.since = time.Now()
	l.mu.Unlock()
	l.poke()
	if old != nil {
		old.close()
	}
	if gap {
		c.resync(s.filter)
	}
	return true
}

// listenFailed records that opening a stream failed: changes may be
// missed until one opens, and a refusal stops the loop until Subscribe.
func (c *Client) listenFailed(err error) {
	l := c.lis
	l.mu.Lock()
	l.gap = true
	refused := listenRefused(err)
	if refused {
		l.halted = err
	}
	l.mu.Unlock()
	if refused {
		c.log.Warn("mcp client: the server refused subscriptions/listen; the client hears no list changes or resource updates",
			"server", c.init.ServerInfo.Name, "error", err)
		return
	}
	c.log.Info("mcp client: opening the subscriptions/listen stream failed; retrying", "server", c.init.ServerInfo.Name, "error", err)
}

// listenRefused reports whether err says the server will not serve the
// request as sent, so that asking again is pointless: a JSON-RPC
// -32600, -32601 or -32602, or an HTTP 4xx other than 408 and 429.
func listenRefused(err error) bool {
	if re := asRPCError(err); re != nil {
		switch re.Code {
		case jsonrpc.CodeInvalidRequest, mcp.CodeMethodNotFound, mcp.CodeInvalidParams:
			return true
		}
		return false
	}
	var he *HTTPError
	return errors.As(err, &he) && he.Status >= 400 && he.Status < 500 &&
		he.Status != 408 && he.Status != 429
}

// listenBackoff is the wait before attempt n (from 0) to open the stream
// again: listenBackoffBase·2ⁿ, at most listenBackoffCap, of which a
// random half to all.
func listenBackoff(n int) time.Duration {
	d := listenBackoffCap
	if n < 20 {
		d = min(listenBackoffBase<<n, listenBackoffCap)
	}
	return d/2 + rand.N(d/2+1)
}

// listenLoop keeps the stream open until the client closes: when the
// current stream ends it opens another after listenBackoff.
func (c *Client) listenLoop() {
	l := c.lis
	defer close(l.done)
	defer func() {
		l.mu.Lock()
		cur := l.cur
		l.cur = nil
		l.mu.Unlock()
		if cur != nil {
			cur.close()
		}
	}()
	attempt := 0
	for {
		l.mu.Lock()
		cur, want, ver, halted := l.cur, l.want, l.ver, l.halted
		l.mu.Unlock()
		var ok bool
		switch {
		case cur != nil:
			ok = c.watch(cur, &attempt)
		case want.empty() || halted != nil:
			_, ok = c.idle(nil)
		default:
			ok = c.reopen(want, ver, &attempt)
		}
		if !ok {
			return
		}
	}
}

// idle waits for a change of what to listen to (woken), or for after
// (nil: never); ok is false when the client closes.
func (c *Client) idle(after <-chan time.Time) (woken, ok bool) {
	select {
	case <-after:
		return false, true
	case <-c.lis.wake:
		return true, true
	case <-c.handlerCtx.Done():
		return false, false
	case <-c.readerDone:
		return false, false
	}
}

// watch waits for the current stream cur to end (or be replaced); false
// when the client closes. A stream that lasted listenStable starts the
// backoff over.
func (c *Client) watch(cur *listenStream, attempt *int) bool {
	l := c.lis
	select {
	case <-cur.ended:
	case <-l.wake:
		return true
	case <-c.handlerCtx.Done():
		return false
	case <-c.readerDone:
		return false
	}
	l.mu.Lock()
	current := l.cur == cur
	if current {
		l.cur, l.gap = nil, true
		if time.Since(cur.since) >= listenStable {
			*attempt = 0
		}
	}
	l.mu.Unlock()
	if current && c.Err() == nil {
		c.log.Info("mcp client: the subscriptions/listen stream ended; opening it again",
			"server", c.init.ServerInfo.Name, "error", cur.err)
	}
	return true
}

// reopen waits listenBackoff(attempt), then opens a stream with want
// (the version ver of what to listen to); false when the client closes.
func (c *Client) reopen(want listenFilter, ver uint64, attempt *int) bool {
	t := time.NewTimer(listenBackoff(*attempt))
	defer t.Stop()
	*attempt++
	if woken, ok := c.idle(t.C); !ok || woken {
		// Woken: what to listen to changed, or a stream came.
		return ok
	}
	actx, cancel := context.WithTimeout(c.handlerCtx, listenAckTimeout)
	s, err := c.openListen(actx, want)
	cancel()
	if err != nil {
		if c.Err() != nil || c.handlerCtx.Err() != nil {
			return false
		}
		c.listenFailed(err)
		return true
	}
	if !c.install(s, ver) {
		s.close() // a Subscribe changed what to listen to meanwhile
	}
	return true
}

// resync tells the callbacks of what f listens to that everything may
// have changed, after a gap in which notifications may have been missed;
// every result kept is dropped.
func (c *Client) resync(f listenFilter) {
	c.cache.clear()
	var ms []*message
	add := func(method string, params json.RawMessage) {
		ms = append(ms, &message{Method: method, Params: params, local: true})
	}
	if f.Tools {
		add("notifications/tools/list_changed", nil)
	}
	if f.Prompts {
		add("notifications/prompts/list_changed", nil)
	}
	if f.Resources {
		add("notifications/resources/list_changed", nil)
	}
	for _, uri := range f.URIs {
		p, _ := json.Marshal(map[string]string{"uri": uri})
		add("notifications/resources/updated", p)
	}
	// Never blocks: Subscribe, which may get here, may be called from a
	// callback.
	c.resyncMu.Lock()
	c.resynced = append(c.resynced, ms...)
	c.resyncMu.Unlock()
	select {
	case c.resyncs <- struct{}{}:
	default:
	}
}

// acknowledged marks the stream a notifications/subscriptions/acknowledged
// names as open. Called by the reader.
func (c *Client) acknowledged(m *message) {
	l := c.lis
	id, granted, err := decodeAck(m.Params)
	if err != nil {
		c.log.Warn("mcp client: a subscriptions/listen acknowledgement does not decode; dropped", "server", c.init.ServerInfo.Name, "error", err)
		return
	}
	if l == nil {
		return
	}
	l.mu.Lock()
	s := l.byID[id]
	l.mu.Unlock()
	if s == nil {
		return // a stream closed meanwhile, or one the client never opened
	}
	s.ackOnce.Do(func() {
		c.checkGranted(s.filter, granted)
		close(s.acked)
	})
}

// checkGranted logs, once for each, what the server did not agree to
// send of what the client asked (the specification's "handle any
// unsupported types gracefully": the rest is heard).
func (c *Client) checkGranted(asked, granted listenFilter) {
	var missing []string
	if asked.Tools && !granted.Tools {
		missing = append(missing, "toolsListChanged")
	}
	if asked.Prompts && !granted.Prompts {
		missing = append(missing, "promptsListChanged")
	}
	if asked.Resources && !granted.Resources {
		missing = append(missing, "resourcesListChanged")
	}
	for _, u := range asked.URIs {
		if !slices.Contains(granted.URIs, u) {
			missing = append(missing, "resourceSubscriptions "+strconv.Quote(u))
		}
	}
	l := c.lis
	for _, what := range missing {
		l.mu.Lock()
		_, seen := l.logged[what]
		if !seen && len(l.logged) < 64 {
			l.logged[what] = struct{}{}
		}
		l.mu.Unlock()
		if !seen {
			c.log.Info("mcp client: the server does not send what subscriptions/listen asked for", "server", c.init.ServerInfo.Name, "notifications", what)
		}
	}
}

// maxAckURIs bounds the resource URIs of an acknowledgement that are
// read.
const maxAckURIs = 4096

// decodeAck reads the params of notifications/subscriptions/acknowledged:
// the subscription ID (the id of the client's request: a positive
// number, or a string of one) and the notifications the server agreed
// to send.
func decodeAck(params json.RawMessage) (int64, listenFilter, error) {
	var p struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications json.RawMessage            `json:"notifications"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return 0, listenFilter{}, err
	}
	raw, ok := p.Meta[metaSubscriptionID]
	if !ok {
		return 0, listenFilter{}, fmt.Errorf("no %s in _meta", metaSubscriptionID)
	}
	id, ok := idOf(raw)
	if !ok {
		return 0, listenFilter{}, fmt.Errorf("the subscription ID %.40s is not an id this client sends", raw)
	}
	var f listenFilter
	if len(p.Notifications) > 0 && string(p.Notifications) != "null" {
		if err := json.Unmarshal(p.Notifications, &f); err != nil {
			return 0, listenFilter{}, fmt.Errorf("notifications: %w", err)
		}
	}
	if len(f.URIs) > maxAckURIs {
		f.URIs = f.URIs[:maxAckURIs]
	}
	return id, f, nil
}

// listenCancelled ends the stream of request id, which the server
// cancelled (notifications/cancelled); false when id is no stream's.
func (c *Client) listenCancelled(id int64) bool {
	l := c.lis
	if l == nil {
		return false
	}
	l.mu.Lock()
	s := l.byID[id]
	l.mu.Unlock()
	if s == nil {
		return false
	}
	// The request's context ends with that cause; the stream's goroutine
	// reads it.
	s.cancel(errListenCancelled)
	return true
}

// subscribe2026 is Subscribe (add) and Unsubscribe at 2026-07-28: the
// stream is opened again with uri added to or removed from its
// resourceSubscriptions, and the call returns once the server
// acknowledged it (the old stream is then closed). On an error nothing
// changed.
func (c *Client) subscribe2026(ctx context.Context, uri string, add bool) error {
	method := "Subscribe"
	if !add {
		method = "Unsubscribe"
	}
	caps := c.init.Capabilities.Resources
	if add && (caps == nil || !caps.Subscribe) {
		return fmt.Errorf("mcp client: %s: %s does not offer resource subscriptions (capabilities.resources.subscribe)", method, c.serverName())
	}
	l := c.lis
	l.subMu.Lock()
	defer l.subMu.Unlock()
	l.mu.Lock()
	want := l.want.with(uri, add)
	same := want.equal(l.want) && (l.cur != nil || want.empty())
	l.mu.Unlock()
	if same {
		return nil
	}
	var s *listenStream
	if !want.empty() {
		var err error
		if s, err = c.openListen(ctx, want); err != nil {
			return fmt.Errorf("mcp client: %s %s: %w", method, uri, err)
		}
	}
	l.mu.Lock()
	l.want = want
	l.ver++
	ver := l.ver
	var old *listenStream
	if s == nil {
		old, l.cur, l.gap = l.cur, nil, false
	}
	l.mu.Unlock()
	l.poke()
	if s == nil {
		if old != nil {
			old.close()
		}
		return nil
	}
	if !c.install(s, ver) {
		s.close()
	}
	return nil
}

package mcphttp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/session"
)

// limitOr returns v, or def when v is zero; a negative v (no limit) is
// returned as is.
func limitOr[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// initLimits applies the defaults of the limits in o and makes the
// handler's request slots.
func (h *Handler) initLimits() {
	o := &h.opts
	o.MaxConcurrentRequests = limitOr(o.MaxConcurrentRequests, DefaultMaxConcurrentRequests)
	o.MaxSessionRequests = limitOr(o.MaxSessionRequests, DefaultMaxSessionRequests)
	o.MaxSessions = limitOr(o.MaxSessions, DefaultMaxSessions)
	o.MaxSessionsPerClient = limitOr(o.MaxSessionsPerClient, DefaultMaxSessionsPerClient)
	o.BodyReadTimeout = limitOr(o.BodyReadTimeout, DefaultBodyReadTimeout)
	o.MaxTasksPerClient = limitOr(o.MaxTasksPerClient, DefaultMaxTasksPerClient)
	if o.MaxConcurrentRequests > 0 {
		// A channel of empty structs holds no buffer: this costs a few
		// dozen bytes whatever the limit.
		h.slots = make(chan struct{}, o.MaxConcurrentRequests)
	}
}

// errSlotWait is what a request that never got a slot is answered with.
type errSlotWait struct{ why string }

func (e *errSlotWait) Error() string {
	return "Service Unavailable: the request was not run: " + e.why
}

// acquire takes a slot of the session's request limit
// (Options.MaxSessionRequests), then one of the handler's
// (Options.MaxConcurrentRequests), waiting for them in arrival order. Run
// the request and then call release; on error nothing is held. It fails
// when ctx ends (the client went away), the session ends or the handler
// closes before the slots are free. Waiting takes no goroutine of its
// own: the caller waits (a POST's, or the batch's one loop).
func (h *Handler) acquire(ctx context.Context, c *sessionState) error {
	if err := h.acquireSession(ctx, c); err != nil {
		return err
	}
	if h.slots != nil {
		if err := h.wait(ctx, c, h.slots); err != nil {
			c.releaseSession()
			return err
		}
	}
	return nil
}

// acquireSession takes a slot of the session's request limit. A request
// that finds none running takes it without a channel; the channel of
// slots is made when a second request comes while one runs, holding the
// first one's slot, and kept from then on. A session whose requests never
// overlap (most: one after another) makes none: the channel would be 96
// bytes of every idle session.
func (h *Handler) acquireSession(ctx context.Context, c *sessionState) error {
	n := h.opts.MaxSessionRequests
	if n <= 0 {
		return nil
	}
	c.mu.Lock()
	if c.slots == nil {
		if !c.slotHeld {
			c.slotHeld = true
			c.mu.Unlock()
			return nil
		}
		c.slots = make(chan struct{}, n)
		c.slots <- struct{}{} // the slot of the request running
		c.slotHeld = false
	}
	sl := c.slots
	c.mu.Unlock()
	return h.wait(ctx, c, sl)
}

// releaseSession gives back the session slot acquireSession took.
func (c *sessionState) releaseSession() {
	if c.h.opts.MaxSessionRequests <= 0 {
		return
	}
	c.mu.Lock()
	sl := c.slots
	if sl == nil {
		c.slotHeld = false
	}
	c.mu.Unlock()
	if sl != nil {
		<-sl
	}
}

func (h *Handler) wait(ctx context.Context, c *sessionState, slots chan struct{}) error {
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &errSlotWait{"the client went away (or its deadline passed) while it waited for a free slot (mcphttp.Options.MaxSessionRequests, MaxConcurrentRequests)"}
	case <-c.doneCh():
		return &errSlotWait{"the session ended while the request waited for a free slot"}
	case <-h.done:
		return &errSlotWait{"the server is shutting down"}
	}
}

// release gives back the slots acquire took.
func (h *Handler) release(c *sessionState) {
	if h.slots != nil {
		<-h.slots
	}
	c.releaseSession()
}

// runRequest runs one request of a POST when a slot is free (see
// acquire), answering 503 with the reason when none became free.
func (h *Handler) runRequest(w http.ResponseWriter, r *http.Request, c *sessionState, msg *jsonrpc.Message) {
	if err := h.acquire(r.Context(), c); err != nil {
		httpError(w, http.StatusServiceUnavailable, msg.ID, mcp.CodeServerError, err.Error())
		return
	}
	defer h.release(c)
	rs := newResponder(w, h, c, h.opts.JSONResponse)
	h.handleRequest(r, c, msg, rs)
	rs.end()
}

// clientKey names the client a new session counts against in
// Options.MaxSessionsPerClient: the key of its auth data (identity.Key:
// the subject of auth data implementing mcp.Subject), else its network
// address (an IPv6 address by its /64, which one host usually holds
// whole). It is "" (not counted per client) for a request
// that came in process (stdio, embedded) or from a loopback address, which
// names no single client: a reverse proxy on the same host brings every
// client from there. Behind such a proxy, authenticate, or set
// r.RemoteAddr from the proxy's X-Forwarded-For in a middleware.
func clientKey(r *http.Request, auth any) string {
	if key, ok := identity.Key(auth); ok {
		return key
	}
	if r.Context().Value(http.LocalAddrContextKey) == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return ""
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return ""
	}
	if ip.Is6() {
		p, _ := ip.WithZone("").Prefix(64)
		return "addr:" + p.String()
	}
	return "addr:" + ip.String()
}

// admit counts a new session (made by initialize) against the session
// caps, or answers the initialize with 503 (Options.MaxSessions) or 429
// (Options.MaxSessionsPerClient), Retry-After and a JSON-RPC error naming
// the limit and its option, and returns false. The slot is freed when the
// session ends, or by settle when its initialize failed.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, c *sessionState, auth any, id []byte) bool {
	key := clientKey(r, auth)
	h.mu.Lock()
	var (
		status      int
		option, msg string
		limit       int
	)
	switch {
	case h.opts.MaxSessions > 0 && h.live >= h.opts.MaxSessions:
		status, option, limit = http.StatusServiceUnavailable, "MaxSessions", h.opts.MaxSessions
		msg = fmt.Sprintf("Service Unavailable: the server holds %d live sessions, its limit (mcphttp.Options.MaxSessions); retry later", limit)
	case key != "" && h.opts.MaxSessionsPerClient > 0 && h.perClient[key] >= h.opts.MaxSessionsPerClient:
		status, option, limit = http.StatusTooManyRequests, "MaxSessionsPerClient", h.opts.MaxSessionsPerClient
		msg = fmt.Sprintf("Too Many Requests: this client holds %d live sessions, the limit per client (mcphttp.Options.MaxSessionsPerClient); end one with DELETE or retry later", limit)
	default:
		h.countLocked(c, key)
		h.mu.Unlock()
		return true
	}
	h.mu.Unlock()
	h.warned.limitReached.warn(h.log, "mcp: initialize refused: session limit reached", "limit", option, "max", limit, "remote", r.RemoteAddr)
	w.Header().Set("Retry-After", strconv.Itoa(int(sessionRetryAfter/time.Second)))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	data := struct {
		Limit  string `json:"limit"`
		Option string `json:"option"`
		Max    int    `json:"max"`
	}{option, "mcphttp.Options." + option, limit}
	_, _ = w.Write(append(jsonrpc.AppendError(nil, id, mcp.CodeServerError, msg, data), '\n'))
	return false
}

// countLocked counts c against the session caps under key; h.mu is held.
func (h *Handler) countLocked(c *sessionState, key string) {
	if c.counted {
		return
	}
	c.counted, c.client = true, key
	h.live++
	if key != "" {
		if h.perClient == nil {
			h.perClient = map[string]int{}
		}
		h.perClient[key]++
	}
}

// uncountLocked frees the session-cap slot of c, once; h.mu is held.
func (h *Handler) uncountLocked(c *sessionState) {
	if !c.counted {
		return
	}
	c.counted = false
	h.live--
	if c.client != "" {
		if h.perClient[c.client]--; h.perClient[c.client] <= 0 {
			delete(h.perClient, c.client)
		}
	}
}

// settle frees the slot of a session whose initialize did not make it
// live (invalid params, a cancelled request): servePost defers it for
// every initialize.
func (h *Handler) settle(c *sessionState) {
	h.mu.Lock()
	if h.conns[c.sess.ID] != c {
		h.uncountLocked(c)
	}
	h.mu.Unlock()
}

// admitTask takes a slot of MaxConcurrentRequests for a task's tool and
// checks the caller's live tasks against MaxTasksPerClient; on error
// nothing is held. The slot is given back with releaseTaskSlot when the
// tool returns.
func (h *Handler) admitTask(ctx context.Context, st session.TaskStore, identity string) error {
	if n := h.opts.MaxTasksPerClient; n > 0 && identity != "" {
		live, err := h.liveTasks(ctx, st, identity)
		if err != nil {
			return h.taskStoreFailed(err)
		}
		if live >= n {
			return &mcp.Error{Code: mcp.CodeServerError, Message: fmt.Sprintf(
				"Too many tasks: this client has %d live tasks, the most it may have (mcphttp.Options.MaxTasksPerClient); wait for one to end or cancel one", live),
				Data: map[string]any{"maxTasksPerClient": n}}
		}
	}
	if h.slots != nil {
		select {
		case h.slots <- struct{}{}:
		default:
			return &mcp.Error{Code: mcp.CodeServerError, Message: "Service Unavailable: every slot of mcphttp.Options.MaxConcurrentRequests is taken " +
				"(each running task holds one); retry later"}
		}
	}
	return nil
}

// releaseTaskSlot gives back the slot admitTask took.
func (h *Handler) releaseTaskSlot() {
	if h.slots != nil {
		<-h.slots
	}
}

// liveTasks counts the tasks of identity that have not ended: over the
// whole store when it lists tasks, else those running on this replica.
func (h *Handler) liveTasks(ctx context.Context, st session.TaskStore, identity string) (int, error) {
	if tl, ok := st.(session.TaskLister); ok {
		ts, err := tl.ListTasks(ctx, identity)
		if err != nil {
			return 0, err
		}
		n := 0
		for _, t := range ts {
			// A task whose runner stopped (its heartbeat is old) is not
			// live, though no tasks/* call has settled it yet.
			if !t.Status.Terminal() && (t.Heartbeat.IsZero() || time.Since(t.Heartbeat) <= taskLostAfter) {
				n++
			}
		}
		return n, nil
	}
	h.tasks.mu.Lock()
	defer h.tasks.mu.Unlock()
	n := 0
	for _, r := range h.tasks.running {
		if r.identity == identity {
			n++
		}
	}
	return n, nil
}

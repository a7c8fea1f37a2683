package mcphttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// metaSubscriptionID tags every message of a subscriptions/listen stream.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listenQueue bounds the notifications waiting for one listen stream; a
// stream that falls further behind loses them (logged).
const listenQueue = 64

// subscriptionFilter is what a subscriptions/listen asks for; the
// acknowledgement echoes the part the server honours (all of it).
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// listener is one open subscriptions/listen stream.
type listener struct {
	id     json.RawMessage // the listen request's id: the subscription ID
	filter subscriptionFilter
	out    chan []byte
	// caller is the identity key of the stream's caller (internal/identity;
	// "" when it has none), which the changes for one caller name.
	caller string
}

// listeners are the open listen streams of a handler (this process's;
// the registry watch tells each replica of its own changes).
type listeners struct {
	mu  sync.Mutex
	set map[*listener]struct{}
	// clients counts the streams of each client (MaxSessionsPerClient).
	clients streamCap
}

// add registers l unless max streams are open already (max <= 0: no
// limit), and reports whether it did.
func (ls *listeners) add(l *listener, max int) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if max > 0 && len(ls.set) >= max {
		return false
	}
	if ls.set == nil {
		ls.set = map[*listener]struct{}{}
	}
	ls.set[l] = struct{}{}
	return true
}

func (ls *listeners) remove(l *listener) {
	ls.mu.Lock()
	delete(ls.set, l)
	ls.mu.Unlock()
}

// publishRev20260728 sends a registry change to the listen streams that asked
// for it; a change for one caller, to that caller's streams only. Log
// broadcasts never go on listen streams (2026-07-28: logs belong to the
// request that made them).
func (h *Handler) publishRev20260728(ch change) {
	h.listen.mu.Lock()
	defer h.listen.mu.Unlock()
	for l := range h.listen.set {
		if ch.Caller != "" && ch.Caller != l.caller {
			continue
		}
		var method string
		var uri string
		switch {
		case ch.Kind == changeTools && l.filter.ToolsListChanged:
			method = "notifications/tools/list_changed"
		case ch.Kind == changePrompts && l.filter.PromptsListChanged:
			method = "notifications/prompts/list_changed"
		case ch.Kind == changeResources && l.filter.ResourcesListChanged:
			method = "notifications/resources/list_changed"
		case ch.Kind == changeResourceUpdated && slices.Contains(l.filter.ResourceSubscriptions, ch.URI):
			method, uri = "notifications/resources/updated", ch.URI
		default:
			continue
		}
		params := map[string]json.RawMessage{"_meta": subscriptionMeta(l.id)}
		if uri != "" {
			params["uri"], _ = json.Marshal(uri)
		}
		msg := jsonrpc.AppendNotification(nil, method, appendObject(nil, params))
		select {
		case l.out <- msg:
		default:
			h.warned.slowReader.warn(h.log, "mcp: a subscriptions/listen stream is not keeping up; notification dropped", "method", method)
		}
	}
}

// subscriptionMeta is the _meta that tags a listen stream's messages.
func subscriptionMeta(id json.RawMessage) json.RawMessage {
	return appendObject(nil, map[string]json.RawMessage{metaSubscriptionID: id})
}

// serveListen serves subscriptions/listen: an SSE stream (whatever
// Options.JSONResponse says) that opens with the acknowledgement, then
// carries the change notifications the filter asked for, each tagged with
// the subscription ID (the request's id), until the client closes it, the
// handler closes or drains.
func (h *Handler) serveListen(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	var p struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	if err := decodeParams(msg.Params, &p); err != nil {
		je := err.(*mcp.Error)
		rev20260728Error(w, http.StatusOK, msg.ID, je.Code, je.Message, nil)
		return
	}
	if p.Notifications == nil {
		rev20260728Error(w, http.StatusOK, msg.ID, mcp.CodeInvalidParams,
			`Invalid params: subscriptions/listen needs "notifications" (an object such as {"toolsListChanged":true})`, nil)
		return
	}
	if n := len(p.Notifications.ResourceSubscriptions); n > maxSubscriptions {
		rev20260728Error(w, http.StatusOK, msg.ID, mcp.CodeInvalidParams, fmt.Sprintf(
			"Invalid params: resourceSubscriptions names %d resources; one stream may subscribe to %d at most", n, maxSubscriptions), nil)
		return
	}
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if err := checkSubscriptionURI(uri); err != nil {
			je := err.(*mcp.Error)
			rev20260728Error(w, http.StatusOK, msg.ID, je.Code, je.Message, nil)
			return
		}
	}
	l := &listener{id: clone(msg.ID), filter: *p.Notifications, out: make(chan []byte, listenQueue)}
	l.caller, _ = identity.Key(mcp.AuthFromContext(r.Context()))
	// A listen stream holds no session; Options.MaxSessions bounds them
	// all the same, as it bounds the GET streams of sessions, and
	// Options.MaxSessionsPerClient those of one client, as it bounds its
	// sessions: else one client could hold every stream there is.
	key := clientKey(r, mcp.AuthFromContext(r.Context()))
	if no := h.listen.clients.take(key, "subscriptions/listen streams", 0, h.opts.MaxSessionsPerClient); no != nil {
		w.Header().Set("Retry-After", "5")
		rev20260728Error(w, no.status, msg.ID, mcp.CodeServerError, no.msg, nil)
		return
	}
	defer h.listen.clients.give(key)
	if !h.listen.add(l, h.opts.MaxSessions) {
		w.Header().Set("Retry-After", "5")
		rev20260728Error(w, http.StatusServiceUnavailable, msg.ID, mcp.CodeServerError, fmt.Sprintf(
			"Service Unavailable: %d subscriptions/listen streams are open, the limit (mcphttp.Options.MaxSessions); retry later", h.opts.MaxSessions), nil)
		return
	}
	defer h.listen.remove(l)

	ack, _ := json.Marshal(struct {
		Meta          json.RawMessage    `json:"_meta"`
		Notifications subscriptionFilter `json:"notifications"`
	}{subscriptionMeta(l.id), l.filter})
	startSSE(w, "")
	rc := http.NewResponseController(w)
	write := func(m []byte) bool {
		if _, err := w.Write(appendEvent(make([]byte, 0, len(m)+32), "", m)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(jsonrpc.AppendNotification(nil, "notifications/subscriptions/acknowledged", ack)) {
		return
	}
	drain := h.drainCh()
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case m := <-l.out:
			if !write(m) {
				return
			}
		case <-tick:
			if _, err := w.Write([]byte(": keepalive\n\n")); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-drain:
			return
		}
	}
}

package mcphttp

import (
	"encoding/json"

	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// notifySession sends a notification meant for one session (an
// engine.SessionNotify change, such as package elicit's Complete's
// notifications/elicitation/complete) on that session's stream for
// server-initiated messages. A session this handler does not serve, or
// that is not initialized, gets nothing.
func (h *Handler) notifySession(ch change) {
	p, err := json.Marshal(ch.Params)
	if err != nil {
		h.log.Error("mcp: a notification for a session does not encode as JSON", "method", ch.Method, "error", err)
		return
	}
	msg := jsonrpc.AppendNotification(nil, ch.Method, p)
	h.mu.RLock()
	defer h.mu.RUnlock()
	if c := h.conns[ch.SessionID]; c != nil && c.sess.Initialized() {
		c.enqueue(msg)
	}
}

// changeSessionNotify is the kind of a notification for one session.
const changeSessionNotify = engine.SessionNotify

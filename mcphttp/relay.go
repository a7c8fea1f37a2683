package mcphttp

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// relayed is an answer relayed to the replica that sent its request.
type relayed struct {
	Session string          `json:"s"`
	Message json.RawMessage `json:"m"`
}

// relayTo sends an answer to the replica whose tag its ID carries.
func (h *Handler) relayTo(c *sessionState, key string, m *jsonrpc.Message) bool {
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil || h.opts.Relay == nil {
		return false
	}
	raw := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}{"2.0", m.ID, m.Result, m.Error}
	msg, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	b, err := json.Marshal(relayed{Session: c.sess.ID, Message: msg})
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := h.opts.Relay.Send(ctx, strconv.FormatInt(n>>replicaShift, 10), b); err != nil {
		h.warned.relaySend.warn(h.log, "mcp: relaying an answer to the replica that asked failed", "session", c.sess.ID, "error", err)
		return false
	}
	return true
}

// onRelayed delivers an answer another replica relayed here.
func (h *Handler) onRelayed(b []byte) {
	var r relayed
	if err := json.Unmarshal(b, &r); err != nil {
		h.warned.relayedBad.warn(h.log, "mcp: a relayed answer is not valid; dropped", "error", err)
		return
	}
	h.mu.RLock()
	c := h.conns[r.Session]
	h.mu.RUnlock()
	if c == nil {
		h.log.Debug("mcp: a relayed answer's session is not here; dropped", "session", r.Session)
		return
	}
	m, err := h.limits().Decode(r.Message)
	if err != nil {
		h.warned.relayedBad.warn(h.log, "mcp: a relayed answer is not valid JSON-RPC; dropped", "session", r.Session)
		return
	}
	c.deliver(m)
}

// replicaShift puts a replica's tag above the request counter of each of
// its sessions (2^21 requests), below 2^53 (exact in every JSON number).
const replicaShift = 21

// otherReplica reports whether a response ID is that of a request
// another replica (one with another tag) sent.
func (h *Handler) otherReplica(key string) bool {
	if h.replica == 0 {
		return false
	}
	n, err := strconv.ParseInt(key, 10, 64)
	return err == nil && n>>replicaShift != 0 && n>>replicaShift != h.replica>>replicaShift
}

// dropForeignAnswer logs, and drops, the POST of a response that belongs
// to a request another replica sent, with no relay to carry it there. The
// POST is still answered 202: the answer is lost either way (the replica
// that asked times out), and an error status would make a client such as
// the official Go SDK close its connection for good.
func (h *Handler) dropForeignAnswer(c *sessionState, msg *jsonrpc.Message) {
	h.warned.foreignAnswer.warn(h.log, "mcp: dropped the answer to a server-to-client request (sampling, elicitation, roots or ping) that another replica sent; "+
		"such answers reach the replica that asked only through Options.Relay or sticky sessions on Mcp-Session-Id",
		"session", c.sess.ID, "id", strictjson.ForLogBytes(msg.ID))
}

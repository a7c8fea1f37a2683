package mcphttp

import (
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// serveBatch handles a JSON-RPC batch, which only the 2025-03-26 revision
// allows.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	msgs, errs, err := h.limits().DecodeBatch(body)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		httpError(w, http.StatusBadRequest, nil, int64(de.Code), de.Message)
		return
	}
	if slices.ContainsFunc(msgs, func(m *jsonrpc.Message) bool { return m != nil && m.Method == "initialize" }) {
		httpError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: initialize must not be part of a JSON-RPC batch")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	if c.ephemeral {
		defer c.close()
	}
	// The negotiated version decides (resolve refused a header that
	// differs from it), not what the header claims.
	version := c.sess.ProtocolVersion()
	if mcp.Version(version) != mcp.Version20250326 {
		httpError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: JSON-RPC batches are only allowed in protocol revision 2025-03-26, not %s; send one message per POST", version))
		return
	}
	rs := newResponder(w, h, c, h.opts.JSONResponse)
	rs.batch = true
	var wg sync.WaitGroup
	requests := 0
	for i, m := range msgs {
		if errs[i] != nil {
			de := errs[i].(*jsonrpc.DecodeError)
			rs.reply(jsonrpc.AppendError(nil, de.ID, int64(de.Code), de.Message, nil))
			requests++
			continue
		}
		switch {
		case m.IsRequest():
			requests++
			// A goroutine per request only once it holds a slot: the rest
			// of the batch waits here (Options.MaxSessionRequests).
			if err := h.acquire(r.Context(), c); err != nil {
				rs.reply(jsonrpc.AppendError(nil, m.ID, mcp.CodeServerError, err.Error(), nil))
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer h.release(c)
				h.handleRequest(r, c, m, rs)
			}()
		case m.IsNotification():
			h.handleNotification(r, c, m)
		default:
			c.deliver(m)
		}
	}
	wg.Wait()
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	rs.end()
}

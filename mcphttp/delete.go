package mcphttp

import (
	"net/http"

	"github.com/mcpchain/mcp"
)

func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError,
			"Method Not Allowed: this server is stateless and has no sessions to end")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	h.endSession(c, EndDeleted)
	w.WriteHeader(http.StatusNoContent)
}

package mcphttp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
)

// limits are the decoder's bounds from Options; errors name the fields.
func (h *Handler) limits() jsonrpc.Limits {
	return jsonrpc.Limits{MaxDepth: h.opts.MaxDepth, MaxBatch: h.opts.MaxBatch, Setting: "mcphttp.Options"}
}

func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	ct := header.Get(r.Header, header.ContentType)
	if ct != mediaJSON && !strings.EqualFold(mediaType(ct), mediaJSON) {
		refuseMediaType(w, ct)
		return
	}
	want := []string{mediaJSON, mediaSSE}
	if h.opts.JSONResponse {
		want = want[:1]
	}
	if !accepts(r, want...) {
		httpError(w, http.StatusNotAcceptable, nil, mcp.CodeServerError,
			"Not Acceptable: the Accept header must list both application/json and text/event-stream")
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		h.refuseTooLarge(w, h.idOfTooLarge(w, r))
		return
	}
	body, err := h.readPostBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		h.refuseBody(w, err, jsonrpc.PrefixID(body.b))
		putBody(body)
		return
	}
	defer putBody(body)
	headerVersion := header.Get(r.Header, hdrProtocolVersion)
	badVersion := headerVersion != "" && !slices.Contains(supportedVersions, headerVersion)
	if jsonrpc.IsBatch(body.b) {
		if refuseRev20260728Batch(w, headerVersion) {
			return
		}
		if badVersion {
			refuseVersion(w, nil, headerVersion)
			return
		}
		h.serveBatch(w, r, body.b)
		return
	}
	msg, err := h.limits().Decode(body.b)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		httpError(w, http.StatusBadRequest, de.ID, int64(de.Code), de.Message)
		return
	}
	if isRev20260728(headerVersion, msg) {
		h.serveRev20260728(w, r, msg, headerVersion)
		return
	}
	if badVersion {
		refuseVersion(w, msg.ID, headerVersion)
		return
	}
	if !h.opts.Stateless && msg.IsNotification() && middleware.SessionIDFromContext(r.Context()) == "" {
		h.takeSessionlessNotification(w, r, msg)
		return
	}
	c, ok := h.resolve(w, r, msg.Method == "initialize", msg.ID)
	if !ok {
		return
	}
	if c.ephemeral {
		defer c.close()
	}
	if msg.Method == "initialize" {
		defer h.settle(c)
	}
	switch {
	case msg.IsRequest() && h.resumable(c, msg):
		h.serveResumable(w, r, c, msg, headerVersion)
	case msg.IsRequest():
		h.runRequest(w, r, c, msg)
	case msg.IsNotification():
		h.handleNotification(r, c, msg)
		w.WriteHeader(http.StatusAccepted)
	default:
		if !c.deliver(msg) {
			h.dropForeignAnswer(c, msg)
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// takeSessionlessNotification answers 202 to a notification that names no
// session on a stateful endpoint, and logs it at debug level: it has no
// session to act on, and a client can send one in a race with its own
// initialize (roots/list_changed while connecting, notifications/cancelled
// for an initialize that timed out), where an error status would make a
// client such as the official Go SDK close its connection for good.
func (h *Handler) takeSessionlessNotification(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.Debug("mcp: a notification without Mcp-Session-Id taken; it has no session to act on",
			"method", strictjson.Clip(msg.Method, strictjson.MaxQuoted))
	}
	w.WriteHeader(http.StatusAccepted)
}

// refuseMediaType answers a POST whose Content-Type is not JSON.
func refuseMediaType(w http.ResponseWriter, ct string) {
	httpError(w, http.StatusUnsupportedMediaType, nil, mcp.CodeServerError,
		fmt.Sprintf("Unsupported Media Type: Content-Type must be application/json, not %s", strictjson.Quote(ct)))
}

// refuseTooLarge answers a POST whose body is over Options.MaxBodyBytes;
// the connection closes, as the rest of the body is not read.
func (h *Handler) refuseTooLarge(w http.ResponseWriter, id []byte) {
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusRequestEntityTooLarge, id, jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", h.opts.MaxBodyBytes))
}

// idPrefixBytes is how much of a body whose Content-Length is over the
// limit is read to find the request's id (see jsonrpc.PrefixID).
const idPrefixBytes = 1024

// idOfTooLarge reads the start of a body whose Content-Length is over
// the limit for the request's id, so that the 413 names the call and the
// client fails that call alone. A client that waits for 100 Continue is
// not asked for its body.
func (h *Handler) idOfTooLarge(w http.ResponseWriter, r *http.Request) []byte {
	if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return nil
	}
	b, _ := h.readPostBody(w, r, idPrefixBytes)
	id := jsonrpc.PrefixID(b.b)
	if id != nil {
		id = bytes.Clone(id)
	}
	putBody(b)
	return id
}

// refuseBody answers a POST whose body could not be read; id is the
// request's, when the part that arrived names it.
func (h *Handler) refuseBody(w http.ResponseWriter, err error, id []byte) {
	if h.bodyTimedOut(w, err, id) {
		return
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		h.refuseTooLarge(w, id)
		return
	}
	httpError(w, http.StatusBadRequest, id, jsonrpc.CodeParseError, "Parse error: reading the body failed: "+err.Error())
}

// readPostBody reads a POST body of at most limit bytes (see readBody)
// within Options.BodyReadTimeout: the
// connection's read deadline is set for the body alone (never on the GET
// stream) and cleared once it is read, so that a long SSE answer is not
// cut: net/http cancels a request whose connection hits a read deadline
// while it watches for the client going away (HTTP/1 clears the deadline
// itself when the body ends, but not for an empty body, nor other
// servers). After a timeout the deadline is bodyLinger away: net/http
// would otherwise wait for the rest of the body before closing the
// connection.
// Writers without deadlines (in-process requests) read without.
func (h *Handler) readPostBody(w http.ResponseWriter, r *http.Request, limit int64) (*bodyBuf, error) {
	d := h.opts.BodyReadTimeout
	if d <= 0 || r.Context().Value(http.LocalAddrContextKey) == nil {
		// No limit, or no connection (stdio, embedded): nothing to set,
		// and asking would allocate an error per request.
		return readBody(r, limit)
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return readBody(r, limit)
	}
	b, err := readBody(r, limit)
	if isTimeout(err) {
		// net/http reads what is left of the body before it closes the
		// connection; let it do so briefly, so that the client's unread
		// bytes do not turn the close into a reset that loses the 408.
		_ = rc.SetReadDeadline(time.Now().Add(bodyLinger))
	} else {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return b, err
}

// bodyLinger is how long a connection whose body timed out is still read
// (and what it sends discarded) before it is closed.
const bodyLinger = 100 * time.Millisecond

func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()))
}

// bodyTimedOut reports whether reading a body failed on its deadline, and
// if so answers 408 and closes the connection.
func (h *Handler) bodyTimedOut(w http.ResponseWriter, err error, id []byte) bool {
	if !isTimeout(err) {
		return false
	}
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusRequestTimeout, id, mcp.CodeServerError,
		fmt.Sprintf("Request Timeout: the body did not arrive within %s (mcphttp.Options.BodyReadTimeout)", h.opts.BodyReadTimeout))
	return true
}

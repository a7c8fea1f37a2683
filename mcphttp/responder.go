package mcphttp

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// responder writes the answer to one POST: application/json when only the
// result is sent, text/event-stream as soon as a notification or request
// precedes it.
type responder struct {
	w http.ResponseWriter
	// mw is set when w is an in-process client's (stdio,
	// client.InProcess): each message goes to it whole, not framed as SSE
	// or JSON text.
	mw       inproc.MessageWriter
	h        *Handler
	c        *sessionState
	jsonOnly bool
	batch    bool
	// noLogs drops notifications/message (a 2026-07-28 request without
	// _meta's logLevel); status, when set, is the HTTP status of a JSON
	// reply (a 2026-07-28 error: rev20260728Status).
	noLogs bool
	status int

	mu      sync.Mutex
	sse     bool
	ended   bool
	replies [][]byte // batch replies in JSON mode
	st      *stream  // set: the request's resumable stream carries everything
}

func newResponder(w http.ResponseWriter, h *Handler, c *sessionState, jsonOnly bool) *responder {
	return &responder{w: w, mw: inproc.FindMessageWriter(w), h: h, c: c, jsonOnly: jsonOnly}
}

func (rs *responder) setSessionHeader() {
	if rs.c != nil && !rs.c.ephemeral && rs.c.sess.ID != "" && rs.c.registered.Load() {
		rs.w.Header().Set("Mcp-Session-Id", rs.c.sess.ID)
	}
}

// setJSONHeaders sets the headers of a plain JSON answer: Content-Type
// and, as setSessionHeader, Mcp-Session-Id. Both values share one
// allocation, and the keys are set as they are (already canonical),
// since this runs on every answer.
func (rs *responder) setJSONHeaders() {
	h := rs.w.Header()
	if rs.c != nil && !rs.c.ephemeral && rs.c.sess.ID != "" && rs.c.registered.Load() {
		v := make([]string, 2)
		v[0], v[1] = "application/json", rs.c.sess.ID
		h["Content-Type"], h["Mcp-Session-Id"] = v[0:1:1], v[1:2:2]
		return
	}
	h["Content-Type"] = []string{"application/json"}
}

func (rs *responder) startSSE() {
	sid := ""
	if rs.c != nil && !rs.c.ephemeral && rs.c.registered.Load() {
		sid = rs.c.sess.ID
	}
	startSSE(rs.w, sid)
	rs.sse = true
}

// startSSE sends the 200 headers of an SSE stream (every stream the
// engine opens: a request's, the GET stream, a resumed one), with the
// session's ID when sid is not empty.
func startSSE(w http.ResponseWriter, sid string) {
	hd := w.Header()
	if sid != "" {
		hd.Set("Mcp-Session-Id", sid)
	}
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// event sends a message that precedes the result.
func (rs *responder) event(msg []byte) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return errStreamEnded
	}
	if rs.st != nil {
		return rs.st.send(msg, false)
	}
	if rs.jsonOnly {
		rs.h.log.Debug("mcp: JSON response mode drops a message sent during a request", "message", strictjson.ForLogBytes(msg))
		return mcp.ErrNoPeer
	}
	if !rs.sse {
		rs.startSSE()
	}
	return rs.writeEvent(msg)
}

var errStreamEnded = fmt.Errorf("mcp: the request's response was already sent")

// appendEvent appends msg as one SSE "message" event, with an id when
// id is non-empty.
func appendEvent(b []byte, id string, msg []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

func (rs *responder) writeEvent(msg []byte) error {
	if rs.mw != nil {
		return rs.mw.WriteMessage(msg)
	}
	if _, err := rs.w.Write(appendEvent(make([]byte, 0, len(msg)+32), "", msg)); err != nil {
		return err
	}
	return http.NewResponseController(rs.w).Flush()
}

// reply sends a response (one of several in a batch).
func (rs *responder) reply(msg []byte) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return
	}
	if rs.st != nil {
		rs.ended = true
		_ = rs.st.send(msg, true)
		return
	}
	if rs.sse {
		_ = rs.writeEvent(msg)
		return
	}
	if rs.batch {
		rs.replies = append(rs.replies, msg)
		return
	}
	rs.setJSONHeaders()
	status := http.StatusOK
	if rs.status != 0 {
		status = rs.status
	}
	rs.w.WriteHeader(status)
	if rs.mw != nil {
		_ = rs.mw.WriteMessage(msg)
	} else {
		_, _ = rs.w.Write(append(msg, '\n'))
	}
	rs.ended = true
}

// end finishes the response. A request that got no reply (cancelled) ends
// with an empty event stream, which clients read as "no answer".
func (rs *responder) end() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return
	}
	rs.ended = true
	if rs.st != nil {
		rs.st.end()
		return
	}
	if rs.sse {
		return
	}
	if rs.batch && len(rs.replies) > 0 {
		rs.setSessionHeader()
		rs.w.Header().Set("Content-Type", "application/json")
		rs.w.WriteHeader(http.StatusOK)
		b := []byte{'['}
		for i, r := range rs.replies {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, r...)
		}
		_, _ = rs.w.Write(append(b, ']', '\n'))
		return
	}
	if rs.jsonOnly {
		rs.w.WriteHeader(http.StatusAccepted)
		return
	}
	rs.startSSE()
}

// setHTTPError sets the HTTP status of a lone JSON reply and headers for
// it (an interceptor's mcp.HTTPStatusError); a batch's replies share one
// answer, which keeps its 200.
func (rs *responder) setHTTPError(status int, header http.Header) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.batch || rs.sse || rs.ended || rs.st != nil {
		return
	}
	rs.status = status
	for k, v := range header {
		rs.w.Header()[k] = v
	}
}

// setStatus sets the HTTP status of the reply, when it goes out as JSON.
func (rs *responder) setStatus(status int) {
	rs.mu.Lock()
	rs.status = status
	rs.mu.Unlock()
}

package mcphttp

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/inproc"
)

// getHandoff bounds how long a new GET stream waits for the one it
// replaces to end (one blocked writing to a client that stopped reading).
const getHandoff = time.Second

// getStream is a session's GET stream, as seen by the one that replaces it.
type getStream struct {
	stop chan struct{} // closed to end the stream
	done chan struct{} // closed when it has ended
}

// claimGet makes the caller's GET the session's stream. An open one is
// told to end and waited for (up to getHandoff), so that queued messages
// go out on one stream at a time. A client opens a second GET when it
// reconnects after a network failure the server has not noticed yet;
// refusing it would break the client for good, and the old stream's
// client is then gone anyway.
func (c *sessionState) claimGet(ctx context.Context) *getStream {
	gs := &getStream{stop: make(chan struct{}), done: make(chan struct{})}
	c.gets.Add(1)
	c.mu.Lock()
	old := c.get
	c.get = gs
	c.mu.Unlock()
	if old != nil {
		close(old.stop) // only the GET that took old out of c.get closes it
		t := time.NewTimer(getHandoff)
		select {
		case <-old.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return gs
}

// releaseGet records that the GET stream gs has ended.
func (c *sessionState) releaseGet(gs *getStream) {
	c.mu.Lock()
	if c.get == gs {
		c.get = nil
	}
	c.mu.Unlock()
	close(gs.done)
	c.gets.Add(-1)
}

// serveGet opens the session's stream for server-initiated messages; a
// GET while one is open replaces it.
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError,
			"Method Not Allowed: this server is stateless and offers no GET stream")
		return
	}
	if !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, nil, mcp.CodeServerError,
			"Not Acceptable: the Accept header of a GET must list text/event-stream")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	if id := header.Get(r.Header, header.LastEventID); id != "" && h.opts.Resumable {
		h.serveResume(w, r, c, id)
		return
	}
	gs := c.claimGet(r.Context())
	defer c.releaseGet(gs)
	startSSE(w, c.sess.ID)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return
	}
	drain := h.drainCh()
	wake := c.wakeup()
	done := c.doneCh()
	mw := inproc.FindMessageWriter(w)
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		if msgs := c.takeQueued(); len(msgs) > 0 {
			for i, msg := range msgs {
				var err error
				if mw != nil {
					err = mw.WriteMessage(msg)
				} else {
					_, err = w.Write(appendEvent(make([]byte, 0, len(msg)+32), "", msg))
				}
				if err != nil {
					c.requeue(msgs[i:]) // keep them for the next stream
					return
				}
			}
			if err := rc.Flush(); err != nil {
				return
			}
			c.sess.Touch(time.Now())
		}
		select {
		case <-wake:
		case <-tick:
			if _, err := w.Write([]byte(": keepalive\n\n")); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-gs.stop:
			return
		case <-done:
			return
		case <-h.done:
			return
		case <-drain:
			// Tell the client when to reconnect (to another replica, or
			// to this one once it is back), then close.
			_, _ = w.Write([]byte("retry: 1000\n\n"))
			_ = rc.Flush()
			return
		}
	}
}

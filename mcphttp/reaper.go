package mcphttp

import (
	"context"
	"errors"
	"time"

	"github.com/mcpchain/mcp/session"
)

// sessionTTL is the idle expiry of stored sessions.
func (h *Handler) sessionTTL() time.Duration { return max(h.opts.SessionIdleTimeout, 0) }

// startReaperLocked starts the idle reaper once; h.mu is held.
func (h *Handler) startReaperLocked() {
	if h.reaping || h.opts.SessionIdleTimeout <= 0 {
		return
	}
	h.reaping = true
	h.wg.Add(1)
	go h.reap()
}

// reap ends sessions idle for longer than SessionIdleTimeout.
func (h *Handler) reap() {
	defer h.wg.Done()
	every := min(h.opts.SessionIdleTimeout/2, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			h.reapOnce(now)
		}
	}
}

// reapOnce ends the sessions idle since before now minus
// SessionIdleTimeout, and keeps the stored record of busy ones alive.
// The store's TTL is the truth of idle expiry: a session idle here but
// whose record lives on was used on another replica, and only this
// replica's copy is dropped.
func (h *Handler) reapOnce(now time.Time) {
	cutoff := now.Add(-h.opts.SessionIdleTimeout)
	h.mu.RLock()
	var idle, busy []*sessionState
	for _, c := range h.conns {
		switch {
		case !c.idle():
			busy = append(busy, c)
		case c.sess.LastSeen().Before(cutoff):
			idle = append(idle, c)
		}
	}
	h.mu.RUnlock()
	ctx := context.Background()
	for _, c := range busy {
		// A GET stream or a long call is activity the store does not see.
		if _, err := h.store.Touch(ctx, c.sess.ID, h.sessionTTL()); errors.Is(err, session.ErrNotFound) {
			h.endLocal(c, EndDeleted) // ended on another replica
		} else if err != nil {
			h.warned.storeFailed.warn(h.log, "mcp: the session store failed to keep a busy session alive", "session", c.sess.ID, "error", err)
		}
	}
	for _, c := range idle {
		_, err := h.store.Get(ctx, c.sess.ID)
		switch {
		case err == nil:
			h.endLocal(c, "") // live elsewhere: drop this copy only
		case errors.Is(err, session.ErrNotFound):
			h.log.Debug("mcp session expired", "session", c.sess.ID, "idle", h.opts.SessionIdleTimeout)
			h.endSession(c, EndIdle)
		default:
			h.warned.storeFailed.warn(h.log, "mcp: the session store failed; idle session kept for now", "session", c.sess.ID, "error", err)
		}
	}
}

package mcphttp

import (
	"log/slog"
	"sync"
	"time"
)

// warnEvery is the least time between two warnings of one warnLimit.
const warnEvery = 10 * time.Second

// warnLimit lets a warning through at most once per warnEvery, the next
// one saying how many were left out. It guards the warnings whose cause
// may repeat without bound and is not the server's: a client posting
// answers to requests another replica sent, anyone who can publish on the
// relay's channels, a relay that is down while changes keep coming. A
// warning per event would let them fill the log (and its disk).
type warnLimit struct {
	mu      sync.Mutex
	last    time.Time // when the last warning went out; zero: none yet
	leftOut int       // the warnings held back since
}

// warn logs msg with args on log at level Warn, unless one went out less
// than warnEvery ago; args then gain "left_out", the number held back
// since the last one.
func (w *warnLimit) warn(log *slog.Logger, msg string, args ...any) {
	now := time.Now()
	w.mu.Lock()
	if !w.last.IsZero() && now.Sub(w.last) < warnEvery {
		w.leftOut++
		w.mu.Unlock()
		return
	}
	n := w.leftOut
	w.last, w.leftOut = now, 0
	w.mu.Unlock()
	if n > 0 {
		args = append(args, "left_out", n)
	}
	log.Warn(msg, args...)
}

// warnings are a handler's rate-limited warnings (warnLimit), one per
// cause. A client can repeat the first five at will: answers to requests
// another replica sent (foreignAnswer) or to none (strayAnswer), a
// malformed notifications/cancelled, initialize or legacy streams past
// their limits (limitReached), a stream it does not read (slowReader).
// The others repeat while a store or the relay fails, or while anyone
// who can publish on the relay sends what is not valid.
type warnings struct {
	foreignAnswer, strayAnswer, cancelledBad, limitReached, slowReader         warnLimit
	storeFailed, relaySend, relayedBad, changeQueueFull, changeSend, changeBad warnLimit
}

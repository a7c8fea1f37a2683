package mcp

import "sync"

// sessionEnds holds the functions [Server.OnSessionEnd] registered.
type sessionEnds struct {
	mu  sync.Mutex
	seq int
	fns map[int]func(id string)
}

// OnSessionEnd registers fn to be called with the ID of every session a
// transport lets go: the client deleted it (DELETE, the end of a stdio
// input, an embedded session's Close), it expired or was lost, or the
// handler closed. It is how something that keeps state per session (a
// gateway's upstream connection, a cache) frees it. fn runs on the
// transport's goroutine after the session ended and must not block for
// long. stop unregisters fn.
func (s *Server) OnSessionEnd(fn func(id string)) (stop func()) {
	return s.ends.add(fn)
}

// add registers fn; stop unregisters it.
func (e *sessionEnds) add(fn func(id string)) (stop func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fns == nil {
		e.fns = map[int]func(string){}
	}
	e.seq++
	k := e.seq
	e.fns[k] = fn
	return func() {
		e.mu.Lock()
		delete(e.fns, k)
		e.mu.Unlock()
	}
}

// run calls the registered functions with id.
func (e *sessionEnds) run(id string) {
	e.mu.Lock()
	fns := make([]func(string), 0, len(e.fns))
	for _, fn := range e.fns {
		fns = append(fns, fn)
	}
	e.mu.Unlock()
	for _, fn := range fns {
		fn(id)
	}
}

package mcp

// SessionOverlays is the number of sessions holding objects or rules of
// their own, for the tests that check nothing outlives its session.
func (s *Server) SessionOverlays() int {
	s.vis.mu.Lock()
	defer s.vis.mu.Unlock()
	n := 0
	s.vis.sessions.Range(func(any, any) bool { n++; return true })
	if n != s.vis.n {
		panic("the count of overlays is wrong")
	}
	return n
}

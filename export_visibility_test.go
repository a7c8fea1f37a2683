package mcp

// SessionOverlays is the number of sessions holding objects or rules of
// their own, for the tests that check nothing outlives its session.
func (s *Server) SessionOverlays() int {
	s.vis.mu.RLock()
	defer s.vis.mu.RUnlock()
	return len(s.vis.sessions)
}

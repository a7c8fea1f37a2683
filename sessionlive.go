package mcp

// SessionLive reports whether session id is live for s: a transport
// serving s holds it, or a server s is mounted in does. Something that
// keeps state per session (a gateway's upstream session) asks it to tell
// a session that ended from one still served: a session another
// replica took over is not live here, and is again when it returns.
func (s *Server) SessionLive(id string) bool { return s.sessionLive(id) }

// OnUnmount registers fn to be called when s loses a parent: a mount of
// s, or of a server s is mounted in, is removed ([Mounted.Unmount]). The
// parent's sessions then end for s without each being reported to
// [Server.OnSessionEnd]: fn frees what was kept for sessions
// [Server.SessionLive] no longer reports live. fn runs on the goroutine
// of Unmount and must not block for long. stop unregisters fn.
func (s *Server) OnUnmount(fn func()) (stop func()) {
	// The functions are kept as OnSessionEnd keeps its own; the ID is
	// unused.
	return s.unmounts.add(func(string) { fn() })
}

// unmounted runs the OnUnmount functions of s and of the servers mounted
// in it, after s was unmounted.
func (s *Server) unmounted() {
	s.unmounts.run("")
	if p := s.mounts.Load(); p != nil {
		for _, m := range *p {
			m.child.unmounted()
		}
	}
}

package mcp

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/internal/engine"
)

// Per-session objects: tools, resources, resource templates and prompts
// that one session sees and no other. An object registered for a session
// shadows the server's object of the same name (or URI, or URI template)
// in that session only: its lists show the session's object in place of
// the server's (after the server's others), and calls reach it. The
// session alone is sent list_changed. What a session registered is
// dropped when the session ends; a call naming a session that is not live
// in this process fails with [ErrNoSession].
//
// Per-session objects hold functions, so they live in this process's
// memory, as do the Disable and Enable rules: with several replicas
// sharing sessions (a shared session store), a session's own objects are
// seen on the replica where they were registered, and only there.

// AddSessionTool registers a typed tool (see [AddTool]) for the session
// sessionID alone: inside a tool, c.SessionID names the caller's session;
// outside one (an HTTP route, a session hook), the ID the transport
// reports (mcphttp.SessionInfo.ID). It returns an error wrapping
// [ErrNoSession] when the session is not live in this process, and the
// errors of [TryAddTool] for a bad definition or a name the session
// already registered; on error nothing is registered.
func AddSessionTool[In, Out any](s *Server, sessionID string, t Tool, fn ToolFunc[In, Out]) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	return tryAddTool(s, sessionID, t, fn)
}

// AddSessionRawTool is [Server.TryAddRawTool] for the session sessionID
// alone (see [AddSessionTool]).
func (s *Server) AddSessionRawTool(sessionID string, t Tool, fn RawToolFunc) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	if fn == nil {
		return invalid("tool %q: the tool function is nil", t.Name)
	}
	if t.InputSchema == nil {
		t.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	return s.addToolFor(sessionID, t, fn)
}

// RemoveSessionTools removes tools the session sessionID registered for
// itself (unknown names are ignored); the session is sent
// notifications/tools/list_changed. It fails with [ErrNoSession] when the
// session is not live in this process.
func (s *Server) RemoveSessionTools(sessionID string, names ...string) error {
	return s.updateSession(sessionID, func(o *overlay) ([]engine.ChangeKind, error) {
		return removed(&o.tools, names, engine.ToolsChanged), nil
	})
}

// AddSessionResource is [Server.TryAddResource] for the session sessionID
// alone (see [AddSessionTool]).
func (s *Server) AddSessionResource(sessionID string, r Resource) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	return s.addResourceFor(sessionID, r, false)
}

// AddSessionResourceTemplate is [Server.TryAddResourceTemplate] for the
// session sessionID alone (see [AddSessionTool]). A read tries the
// server's templates first, then the session's, in registration order.
func (s *Server) AddSessionResourceTemplate(sessionID string, t ResourceTemplate) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	return s.addResourceTemplateFor(sessionID, t)
}

// RemoveSessionResources removes resources the session registered for
// itself, by URI (see [Server.RemoveSessionTools]).
func (s *Server) RemoveSessionResources(sessionID string, uris ...string) error {
	return s.updateSession(sessionID, func(o *overlay) ([]engine.ChangeKind, error) {
		return removed(&o.resources, uris, engine.ResourcesChanged), nil
	})
}

// RemoveSessionResourceTemplates removes templates the session registered
// for itself, by URI template (see [Server.RemoveSessionTools]).
func (s *Server) RemoveSessionResourceTemplates(sessionID string, uriTemplates ...string) error {
	return s.updateSession(sessionID, func(o *overlay) ([]engine.ChangeKind, error) {
		return removed(&o.templates, uriTemplates, engine.ResourcesChanged), nil
	})
}

// AddSessionPrompt is [Server.TryAddPrompt] for the session sessionID
// alone (see [AddSessionTool]).
func (s *Server) AddSessionPrompt(sessionID string, p Prompt) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	return s.addPromptFor(sessionID, p)
}

// AddSessionTypedPrompt is [TryAddTypedPrompt] for the session sessionID
// alone (see [AddSessionTool]).
func AddSessionTypedPrompt[In any](s *Server, sessionID string, p Prompt, load PromptFunc[In]) error {
	if err := s.checkSession(sessionID); err != nil {
		return err
	}
	return tryAddTypedPrompt(s, sessionID, p, load)
}

// RemoveSessionPrompts removes prompts the session registered for itself
// (see [Server.RemoveSessionTools]).
func (s *Server) RemoveSessionPrompts(sessionID string, names ...string) error {
	return s.updateSession(sessionID, func(o *overlay) ([]engine.ChangeKind, error) {
		return removed(&o.prompts, names, engine.PromptsChanged), nil
	})
}

// checkSession fails with ErrNoSession unless the session is live here,
// before a registration does its work (schemas, validation); the
// registration checks again when it publishes.
func (s *Server) checkSession(sid string) error {
	s.vis.mu.Lock()
	live := s.vis.liveLocked(sid)
	s.vis.mu.Unlock()
	if !live {
		return noSession(sid)
	}
	return nil
}

// removed removes keys from t and returns the change to report: kind, or
// none when nothing was there.
func removed[E entry](t *table[E], keys []string, kind engine.ChangeKind) []engine.ChangeKind {
	n := len(t.list)
	t.remove(keys)
	if len(t.list) == n {
		return nil
	}
	return []engine.ChangeKind{kind}
}

package mcp

import (
	"io/fs"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
)

// Registry changes what a server serves while it runs: the server's own
// objects ([Server.Registry]) or those of one session
// ([Server.SessionRegistry]). Every method returns an error instead of
// panicking, so that a bad object made at run time (from a configuration,
// a remote catalogue, a client's request) cannot bring a live server
// down; on error nothing changes. The errors wrap [ErrInvalidToolName],
// [ErrAlreadyRegistered], [ErrInvalidDefinition] or, for a session,
// [ErrNoSession]. What a program registers once at start-up uses the
// panicking Add methods of [Server] instead.
//
// Typed tools and prompts go through [TryAddTool] and [TryAddTypedPrompt],
// which take a *Registry: a Go method cannot have type parameters.
//
// Every change tells the clients that can see it: the server's sends
// list_changed to every session, a session's to that session alone, a
// caller's to that caller alone.
//
// # Per-session objects
//
// A session registry holds tools, resources, resource templates and
// prompts that one session sees and no other, and that session's own
// Disable and Enable rules. An object registered for a session shadows
// the server's object of the same name (or URI, or URI template) in that
// session only: its lists show the session's object in place of the
// server's (after the server's others), and calls reach it. What a
// session registered is dropped when the session ends; a change naming a
// session that is not live in this process fails with [ErrNoSession]
// (checked at each call, so a session registry may be kept while its
// session lives). Inside a tool, c.SessionID names the caller's session;
// outside one (an HTTP route, a session hook), use the ID the transport
// reports (mcphttp.SessionInfo.ID).
//
// Per-session objects hold functions, so they live in this process's
// memory, as do the Disable and Enable rules: with several replicas
// sharing sessions (a shared session store), a session's own objects are
// seen on the replica where they were registered, and only there.
//
// App views, skills, transformed tools, mounts and imports belong to the
// whole server: on a session registry their methods fail with
// [ErrInvalidDefinition].
type Registry struct {
	s       *Server
	sid     string
	session bool
	// caller: the rules of the caller whose auth data is auth
	// (Server.CallerRegistry); rules only, no objects.
	caller bool
	auth   any
}

// Registry returns the registry of the server's own objects: what every
// session sees, less what the Disable rules hide.
func (s *Server) Registry() *Registry { return &s.registry }

// SessionRegistry returns the registry of the session sessionID's own
// objects and rules (see [Registry]). It does not check the session: each
// change does, and fails with [ErrNoSession] when the session is not live
// in this process (an empty ID included: stateless HTTP and revision
// 2026-07-28 requests have no session).
func (s *Server) SessionRegistry(sessionID string) *Registry {
	return &Registry{s: s, sid: sessionID, session: true}
}

// AddRawTool registers a tool whose arguments reach fn as raw JSON (see
// [Server.AddRawTool]); a session's tool shadows the server's tool of the
// same name in that session.
func (r *Registry) AddRawTool(t Tool, fn RawToolFunc) error {
	if r.caller {
		return r.noObjects("AddRawTool")
	}
	if !r.session {
		return r.s.tryAddRawTool(t, fn)
	}
	if err := r.s.checkSession(r.sid); err != nil {
		return err
	}
	if fn == nil {
		return invalid("tool %q: the tool function is nil", t.Name)
	}
	if t.InputSchema == nil {
		t.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	return r.s.addToolFor(r.sid, t, fn)
}

// AddPrompt registers a prompt (see [Server.AddPrompt]).
func (r *Registry) AddPrompt(p Prompt) error {
	if err := r.check(); err != nil {
		return err
	}
	return r.s.addPromptFor(r.sid, p)
}

// AddResource registers a static resource (see [Server.AddResource]).
func (r *Registry) AddResource(res Resource) error {
	if err := r.check(); err != nil {
		return err
	}
	return r.s.addResourceFor(r.sid, res, false)
}

// AddResourceTemplate registers a resource template (see
// [Server.AddResourceTemplate]). A read tries the server's templates
// first, then the session's, in registration order.
func (r *Registry) AddResourceTemplate(t ResourceTemplate) error {
	if err := r.check(); err != nil {
		return err
	}
	return r.s.addResourceTemplateFor(r.sid, t)
}

// Remove removes the objects of kind named by names: tool and prompt
// names, resource URIs and resource templates' URI templates
// ([access.KindResource] covers both); an empty kind, every kind. Unknown names
// are ignored. A session registry removes only what the session
// registered for itself (hide a server's object from one session with
// [Registry.Disable]). The clients are sent list_changed for the kinds
// removed from: the server's, every kind asked; a session's, those where
// something was there. It fails for a kind that is not one, and with
// [ErrNoSession] for a session not live here.
func (r *Registry) Remove(kind access.Kind, names ...string) error {
	if r.caller {
		return r.noObjects("Remove")
	}
	m := Match{Kind: kind}
	if err := m.check(); err != nil {
		return err
	}
	has := func(k access.Kind) bool { return kind == "" || kind == k }
	if !r.session {
		if has(access.KindTool) {
			r.s.removeTools(names)
		}
		if has(access.KindResource) {
			_ = r.s.update(change{Kind: engine.ResourcesChanged}, func(reg *registry) error {
				reg.resources.remove(names)
				reg.templates.remove(names)
				return nil
			})
		}
		if has(access.KindPrompt) {
			_ = r.s.update(change{Kind: engine.PromptsChanged}, func(reg *registry) error { reg.prompts.remove(names); return nil })
		}
		return nil
	}
	return r.s.updateSession(r.sid, func(o *overlay) ([]engine.ChangeKind, error) {
		var kinds []engine.ChangeKind
		if has(access.KindTool) {
			kinds = append(kinds, removed(&o.tools, names, engine.ToolsChanged)...)
		}
		if has(access.KindResource) {
			res := removed(&o.resources, names, engine.ResourcesChanged)
			if tmpl := removed(&o.templates, names, engine.ResourcesChanged); len(res) == 0 {
				res = tmpl
			}
			kinds = append(kinds, res...)
		}
		if has(access.KindPrompt) {
			kinds = append(kinds, removed(&o.prompts, names, engine.PromptsChanged)...)
		}
		return kinds, nil
	})
}

// Disable hides the objects m selects: they are neither listed nor
// callable (a call reads as an unknown tool, resource or prompt), until a
// later [Registry.Enable] that selects them. Rules apply in order, the
// last one that selects an object deciding: the server's, then the
// caller's own ([Server.CallerRegistry]), then the session's own. The
// clients that can see the change are sent list_changed for each kind
// whose visible objects changed (the server's rules: every session; a
// caller's: that caller; a session's: that one). It fails for a
// Match.Kind that is not a kind, with [ErrNoSession] for a session not
// live here, and for a caller as [Server.CallerRegistry] says.
func (r *Registry) Disable(m Match) error { return r.setRule(m, false) }

// Enable shows again the objects m selects: it undoes a
// [Registry.Disable] with the same Match, and overrides an earlier one
// that selects more ("disable the tag admin, enable the tool
// admin_read"). A session's Enable can show that session an object the
// server's rules hide. Its notifications and errors are Disable's.
func (r *Registry) Enable(m Match) error { return r.setRule(m, true) }

func (r *Registry) setRule(m Match, on bool) error {
	if r.caller {
		return r.s.setCallerRule(r.auth, m, on)
	}
	if r.session {
		return r.s.setSessionRule(r.sid, m, on)
	}
	return r.s.setRule(m, on)
}

// AddAppResource registers the view of an MCP App (see
// [Server.AddAppResource]). Server-wide only.
func (r *Registry) AddAppResource(a AppResource) error {
	if err := r.serverWide("AddAppResource"); err != nil {
		return err
	}
	return r.s.tryAddAppResource(a)
}

// AddSkills serves the skills of fsys (see [Server.AddSkills]). The error
// wraps [ErrInvalidSkill] (a SKILL.md without frontmatter, a name that
// breaks the naming rule or differs from its directory, an empty or
// over-long description, a metadata key under the reserved
// io.modelcontextprotocol/ prefix, a skill over [skill.MaxFiles] or
// [skill.MaxBytes] (sizes are checked before files are read), a skill
// inside another, a SKILL.md at the root of fsys, a symbolic link: the
// file system may follow it anywhere, as os.DirFS does), [ErrNoSkills],
// [ErrAlreadyRegistered] (a skill name or file URI taken), or the file
// system's own error. On error nothing is registered. Server-wide only.
func (r *Registry) AddSkills(fsys fs.FS) error {
	if err := r.serverWide("AddSkills"); err != nil {
		return err
	}
	return r.s.tryAddSkills(fsys)
}

// AddTransformedTool registers the tool t derives from the registered
// tool named source (see [Server.AddTransformedTool]). It returns an
// error wrapping [ErrInvalidDefinition] for an unknown source tool, an
// Args entry naming no argument of the source, two arguments under one
// name, a hidden required argument without a value, a value or default
// the argument's schema refuses, fields that do not go together (Value
// without Hide, Hide with Name), or annotations that would make a
// destructive source's tool harmless (see [Transform].Annotations);
// [ErrInvalidToolName] or [ErrAlreadyRegistered] for the name. Server-wide
// only.
func (r *Registry) AddTransformedTool(source string, t Transform) error {
	if err := r.serverWide("AddTransformedTool"); err != nil {
		return err
	}
	return r.s.tryAddTransformedTool(source, t)
}

// Mount serves child through the server under prefix (see
// [Server.Mount]). It returns an error wrapping [ErrAlreadyRegistered]
// for a prefix taken, [ErrInvalidDefinition] otherwise; on error nothing
// is mounted. Server-wide only.
func (r *Registry) Mount(prefix string, child *Server, opts *MountOptions) (*Mounted, error) {
	if err := r.serverWide("Mount"); err != nil {
		return nil, err
	}
	return r.s.tryMount(prefix, child, opts)
}

// Import copies child's objects into the server under prefix (see
// [Server.Import]). It returns an error wrapping [ErrAlreadyRegistered]
// for a copied name taken, [ErrInvalidDefinition] otherwise; on error
// nothing is copied. Server-wide only.
func (r *Registry) Import(prefix string, child *Server, opts *MountOptions) error {
	if err := r.serverWide("Import"); err != nil {
		return err
	}
	return r.s.tryImport(prefix, child, opts)
}

// check fails with ErrNoSession unless r is the server's registry or its
// session is live here, before a registration does its work (schemas,
// validation); the registration checks again when it publishes.
func (r *Registry) check() error {
	if r.caller {
		return r.noObjects("an Add method")
	}
	if !r.session {
		return nil
	}
	return r.s.checkSession(r.sid)
}

// noObjects refuses call on a caller's registry, which holds rules only.
func (r *Registry) noObjects(call string) error {
	return invalid("Registry.%s: a caller's registry (Server.CallerRegistry) holds Disable and Enable rules only, which every replica reads "+
		"from the shared store, and a function cannot travel to another replica: register the object on Server.Registry(), hide it "+
		"with a server-wide Disable, and Enable it on the caller's registry", call)
}

// serverWide refuses call on a session's or a caller's registry.
func (r *Registry) serverWide(call string) error {
	if r.caller {
		return r.noObjects(call)
	}
	if r.session {
		return invalid("Registry.%s changes the whole server, not one session: call it on Server.Registry()", call)
	}
	return nil
}

// checkSession fails with ErrNoSession unless the session is live here.
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

package mcp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/stderrlog"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// Options configure a [Server]. Name and Version are required; every other
// field has a useful zero value (nil means the default).
type Options struct {
	// Name identifies the server to clients (serverInfo.name). Required.
	Name string
	// Version is the server's semantic version ("1.2.3" or "v1.2.3"). Required.
	Version string
	// Title is an optional display name (serverInfo.title).
	Title string
	// Icons are images a client may show for the server (serverInfo.icons;
	// the OAuth consent page of package providers shows the first). See
	// [Icon] for the rules; NewServer panics on a bad one.
	Icons []Icon
	// WebsiteURL is the server's website, an absolute http(s) URL
	// (serverInfo.websiteUrl).
	WebsiteURL string
	// Instructions tell the client how to use the server; sent in the
	// initialize result.
	Instructions string
	// Logger receives the server's own diagnostics ([Server.Logger]
	// returns it). Default: a tint handler on stderr at level info,
	// colourless when stderr is not a terminal. Nothing is ever logged to
	// stdout, which belongs to the stdio transport.
	Logger *slog.Logger
	// Auth is an authentication provider (an OAuth proxy and its token
	// verifier). Setting both Auth and Authenticate is an error (NewServer
	// panics): one of them would be ignored.
	Auth AuthProvider
	// Authenticate checks the credentials of each request and returns
	// the caller's session data, which tools see as Context.Session. See
	// [AuthFunc] for what its errors mean.
	Authenticate AuthFunc
	// Roots configures the roots capability.
	Roots *RootsOptions
	// CallerRules lets the server keep rules of each caller's own
	// (Server.CallerRegistry) and apply them to that caller's lists and
	// calls. Set it on every replica of a deployment: a replica reads a
	// caller's rules, stored by any of them, only when it is set; without
	// it, lookups pay nothing for them.
	CallerRules bool
	// Cache holds the caching hints of the lists and of server/discover:
	// how long a client may reuse them, and whether a shared cache may
	// (ttlMs and cacheScope, revision 2026-07-28; see [CacheHint]). NewServer
	// panics on a negative TTL or an unknown scope. Default (nil): stale
	// at once, and private to the caller when the request is
	// authenticated or the list depends on who asks.
	Cache *CacheOptions
}

// AuthProvider is an authentication provider, such as the OAuth proxies of
// package providers. It checks each request and mounts its own routes (the
// OAuth endpoints and discovery documents) on the server's mux.
type AuthProvider interface {
	// VerifyRequest checks the request's credentials (its access token)
	// and returns the caller's session data, or an error (see [AuthFunc]).
	VerifyRequest(r *http.Request) (any, error)
	// Mount registers the provider's HTTP routes on mux. Before calling
	// it, mcphttp.NewMux gives a provider that has a method
	// UseServerInfo(Implementation) the server's identity (name, title,
	// icons), which the pages it serves may show.
	Mount(mux *http.ServeMux)
}

// RootsOptions configure the roots capability.
type RootsOptions struct {
	// Disabled stops the server from asking clients for their roots.
	Disabled bool
}

// Server is the registry of what an MCP server offers: tools, resources,
// resource templates and prompts. It is safe for concurrent use; register
// and remove at any time, and connected clients are told of the change.
// Serve it with package mcphttp (HTTP, stdio, embedded).
//
// # Panics
//
// The server author's code that the server runs (tools, resource and
// prompt loaders, completion functions) is guarded in one place: a panic
// there is recovered, logged on the server's Logger with its stack, and
// answered without its value: a tool's panic is an isError result ("Tool
// "x" failed with an internal error (see the server log)"), a loader's or
// completion's panic is a JSON-RPC internal error (-32603). Access checks
// are not guarded here: a panicking CanAccess is a bug that the
// transport's own recovery answers as an internal error.
type Server struct {
	opts   Options
	logger *slog.Logger
	cache  CacheOptions // Options.Cache, checked and copied (cache.go)

	mu       sync.Mutex // serializes writers of reg
	reg      atomic.Pointer[registry]
	watchers atomic.Pointer[[]*watcher]
	routes   []engine.Route
	skills   skillStore                   // skills.go
	vis      visibility                   // per-session objects, Disable and Enable (visibility.go)
	exts     atomic.Pointer[extensionSet] // the extensions it offers (extension.go)
	mounts   atomic.Pointer[[]*mount]     // the mounted servers, nil when none (compose.go)
	ends     sessionEnds                  // OnSessionEnd's functions (sessionend.go)
	unmounts sessionEnds                  // OnUnmount's functions (sessionlive.go)

	guards atomic.Pointer[[]ToolGuard] // AddToolGuard's guards, nil when none (toolguard.go)

	callers callerRules // the callers' own rules, when Options.CallerRules (callerrules.go)

	registry Registry // what Registry returns (liveregistry.go)
}

// validSemver reports whether v follows the semver.org grammar, with an
// optional leading v: MAJOR.MINOR.PATCH, numbers without leading zeros,
// then an optional -pre-release and +build, each dot-separated
// identifiers of 0-9, a-z, A-Z and hyphen (a numeric pre-release
// identifier without a leading zero). A parser, not a regexp: a
// package-level regexp is compiled at init by every program that links
// this package (this one was most of the package's start-up work).
func validSemver(v string) bool {
	v = strings.TrimPrefix(v, "v")
	for i := range 3 {
		n := 0
		for n < len(v) && '0' <= v[n] && v[n] <= '9' {
			n++
		}
		if n == 0 || n > 1 && v[0] == '0' {
			return false
		}
		v = v[n:]
		if i < 2 {
			var ok bool
			if v, ok = strings.CutPrefix(v, "."); !ok {
				return false
			}
		}
	}
	v, build, hasBuild := strings.Cut(v, "+")
	if hasBuild && !validSemverIdents(build, false) {
		return false
	}
	if v == "" {
		return true
	}
	pre, ok := strings.CutPrefix(v, "-")
	return ok && validSemverIdents(pre, true)
}

// validSemverIdents reports whether s is one or more dot-separated
// identifiers of 0-9, a-z, A-Z and hyphen; for a pre-release (pre), one
// of digits only has no leading zero.
func validSemverIdents(s string, pre bool) bool {
	for id := range strings.SplitSeq(s, ".") {
		if id == "" {
			return false
		}
		digits := true
		for i := range len(id) {
			c := id[i]
			if !isAlnum(c) && c != '-' {
				return false
			}
			digits = digits && '0' <= c && c <= '9'
		}
		if pre && digits && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// NewServer returns a server with no tools, resources or prompts. It panics
// when Name is empty, Version is not a semantic version, an icon, the
// WebsiteURL or a caching hint is invalid, or both Auth and Authenticate
// are set: programmer errors best caught at start-up.
func NewServer(opts Options) *Server {
	if opts.Name == "" {
		panic("mcp: NewServer: Options.Name is required")
	}
	if !validSemver(opts.Version) {
		panic(fmt.Sprintf("mcp: NewServer: Options.Version %q is not a semantic version (want MAJOR.MINOR.PATCH, such as 1.0.0)", opts.Version))
	}
	if opts.Auth != nil && opts.Authenticate != nil {
		panic("mcp: NewServer: Options.Auth and Options.Authenticate are both set, and only one can check requests: " +
			"use Auth for a provider (an OAuth proxy, a resourceserver.Verifier), Authenticate for a function of your own")
	}
	if err := checkIcons("Options.", opts.Icons); err != nil {
		panic("mcp: NewServer: " + err.Error())
	}
	if err := checkWebsiteURL(opts.WebsiteURL); err != nil {
		panic("mcp: NewServer: Options.WebsiteURL: " + err.Error())
	}
	s := &Server{opts: opts, logger: opts.Logger}
	s.registry = Registry{s: s}
	if opts.Cache != nil {
		if err := opts.Cache.check(); err != nil {
			panic("mcp: NewServer: " + err.Error())
		}
		s.cache = *opts.Cache // a copy: the caller's may change
	}
	if s.logger == nil {
		s.logger = stderrlog.New()
	}
	s.reg.Store(newRegistry())
	s.watchers.Store(&[]*watcher{})
	if opts.CallerRules {
		s.vis.callerRules = true
		s.vis.active.Store(true)
	}
	return s
}

// errPanic marks the error of the author's code that panicked.
var errPanic = errors.New("panicked")

// protect runs f, a piece of the server author's code (what names it:
// "tool", "resource", "prompt", "completion"), and turns a panic into an
// error wrapping errPanic after logging the value and the stack. It is the
// one place in package mcp where panics are recovered.
func protect[T any](s *Server, what, name string, f func() (T, error)) (res T, err error) {
	defer func() {
		if v := recover(); v != nil {
			// name may be the client's (a resource URI matched by a template).
			s.logger.Error("mcp: "+what+" panicked", what, strictjson.ForLog(name), "panic", v, "stack", string(debug.Stack()))
			var zero T
			res, err = zero, fmt.Errorf("%s %s %w", what, strictjson.Quote(name), errPanic)
		}
	}()
	return f()
}

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.logger }

// change is a change of the registry that transports turn into
// notifications; see engine.Change.
type change = engine.Change[*LogMessage]

type watcher struct{ fn func(change) }

// watch calls fn for every change until stop is called. fn must not block:
// transports queue the notification and return. Transports use it (the
// engine view's Watch) to send list_changed and resources/updated
// notifications.
func (s *Server) watch(fn func(change)) (stop func()) {
	w := &watcher{fn: fn}
	s.mu.Lock()
	ws := append(slices.Clone(*s.watchers.Load()), w)
	s.watchers.Store(&ws)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		ws := slices.DeleteFunc(slices.Clone(*s.watchers.Load()), func(x *watcher) bool { return x == w })
		s.watchers.Store(&ws)
		s.mu.Unlock()
	}
}

func (s *Server) notify(ch change) {
	for _, w := range *s.watchers.Load() {
		w.fn(ch)
	}
}

// LogToClients sends a log message that belongs to no request to every
// connected client whose logging/setLevel lets it through, on the
// session's stream for server-initiated messages (the GET stream over
// HTTP). data may be nil. Tools log with Context.Log instead, which goes
// on the request's own stream.
func (s *Server) LogToClients(level LogLevel, msg string, data any) {
	payload := map[string]any{"message": msg}
	if data != nil {
		payload["context"] = data
	}
	s.notify(change{Kind: engine.LogBroadcast, Log: &LogMessage{Level: level, Logger: s.opts.Name, Data: payload}})
}

// ResourceUpdated tells the clients subscribed to uri that its contents
// changed (notifications/resources/updated).
func (s *Server) ResourceUpdated(uri string) {
	s.notify(change{Kind: engine.ResourceUpdated, URI: uri})
}

// ListChangedFor tells one caller that its lists of the given kinds
// changed (notifications/tools/list_changed, resources/list_changed,
// prompts/list_changed), when what it may see changed while the server's
// registry did not: an access policy or a CanAccess that reads the
// caller's own data (a role, a plan, its state.Caller state) now answers
// otherwise. The caller is told by its identity key (the auth data's
// [Subject]); its subscriptions/listen streams hear of it, on every
// replica that shares the transport's relay (mcphttp.Options.Relay), and
// so do the GET streams of its 2025-era sessions in this process; no
// other caller's streams do.
// auth is the caller's auth data (c.Session in a tool). It fails, and
// sends nothing, for auth data without a subject, whose requests cannot
// be told to be one caller's (wrapping [ErrNoCaller]), and for a kind
// other than [access.KindTool], [access.KindResource] and [access.KindPrompt] (wrapping
// [ErrInvalidDefinition]).
func (s *Server) ListChangedFor(auth any, kinds ...access.Kind) error {
	key, ok := identity.Key(auth)
	if !ok {
		if identity.Of(auth) == identity.Anonymous {
			return fmt.Errorf("%w: ListChangedFor needs the auth data of a signed-in caller, and auth is nil (anonymous)", ErrNoCaller)
		}
		return fmt.Errorf("%w: ListChangedFor needs auth data with a subject (mcp.Subject, a non-empty one) to tell its caller's streams; %T has none", ErrNoCaller, auth)
	}
	changes := make([]engine.ChangeKind, 0, len(kinds))
	for _, k := range kinds {
		switch k {
		case access.KindTool:
			changes = append(changes, engine.ToolsChanged)
		case access.KindResource:
			changes = append(changes, engine.ResourcesChanged)
		case access.KindPrompt:
			changes = append(changes, engine.PromptsChanged)
		default:
			return invalid("ListChangedFor: kind %q is none of access.KindTool, access.KindResource, access.KindPrompt", k)
		}
	}
	for _, k := range changes {
		s.notify(change{Kind: k, Caller: key})
	}
	return nil
}

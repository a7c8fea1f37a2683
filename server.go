package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmittmann/tint"
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
	// Instructions tell the client how to use the server; sent in the
	// initialize result.
	Instructions string
	// Logger receives the server's own diagnostics. Default: a tint
	// handler on stderr. Nothing is ever logged to stdout, which belongs to
	// the stdio transport.
	Logger *slog.Logger
	// Auth is an authentication provider (an OAuth proxy and its token
	// verifier). Authenticate wins when both are set.
	Auth AuthProvider
	// Authenticate checks the credentials of each request and returns
	// the caller's session data, which tools see as Context.Session. See
	// [AuthFunc] for what its errors mean.
	Authenticate AuthFunc
	// Health configures the health endpoint of the HTTP transport.
	Health *HealthOptions
	// OAuth configures the OAuth discovery documents of the HTTP transport.
	OAuth *OAuthOptions
	// Ping configures server-to-client pings.
	Ping *PingOptions
	// Roots configures the roots capability.
	Roots *RootsOptions
}

// AuthProvider is an authentication provider, such as the OAuth proxies of
// package providers. It checks each request and mounts its own routes (the
// OAuth endpoints and discovery documents) on the server's mux.
type AuthProvider interface {
	// Authenticate returns the caller's session data, or an error (401).
	Authenticate(r *http.Request) (any, error)
	// Mount registers the provider's HTTP routes on mux.
	Mount(mux *http.ServeMux)
}

// HealthOptions configure the health endpoint (GET and HEAD).
type HealthOptions struct {
	// Disabled turns the endpoint off. Default: on.
	Disabled bool
	// Path of the endpoint. Default: /health.
	Path string
	// Message is the plain-text body. Default: ok.
	Message string
	// Status is the HTTP status. Default: 200.
	Status int
}

// OAuthOptions configure the OAuth discovery documents.
type OAuthOptions struct {
	// Enabled serves the documents.
	Enabled bool
	// AuthorizationServer is served as RFC 8414 metadata.
	AuthorizationServer *AuthorizationServerMetadata
	// ProtectedResource is served as RFC 9728 metadata.
	ProtectedResource *ProtectedResourceMetadata
}

// AuthorizationServerMetadata is the RFC 8414 document.
type AuthorizationServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	RevocationEndpoint                string   `json:"revocation_endpoint,omitempty"`
	JWKSURI                           string   `json:"jwks_uri,omitempty"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// ResponseModesSupported (RFC 8414 §2).
	ResponseModesSupported []string `json:"response_modes_supported,omitempty"`
	// RevocationEndpointAuthMethodsSupported (RFC 8414 §2).
	RevocationEndpointAuthMethodsSupported []string `json:"revocation_endpoint_auth_methods_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says authorization
	// responses carry iss (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// ProtectedResourceMetadata is the RFC 9728 document.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// PingOptions configure server-to-client pings on HTTP sessions.
type PingOptions struct {
	// Disabled turns pings off. Default: on for HTTP sessions, off for stdio.
	Disabled bool
	// Interval between pings. Default: 5 s.
	Interval time.Duration
	// LogLevel of the ping log lines. Default (nil): debug.
	LogLevel slog.Leveler
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
type Server struct {
	opts   Options
	logger *slog.Logger

	mu       sync.Mutex // serializes writers of reg
	reg      atomic.Pointer[registry]
	watchers atomic.Pointer[[]*watcher]
	routes   []Route
}

// registry is an immutable snapshot; writers copy it.
type registry struct {
	tools        []*toolEntry
	toolByName   map[string]*toolEntry
	resources    []*resourceEntry
	resByURI     map[string]*resourceEntry
	templates    []*templateEntry
	tmplByKey    map[string]*templateEntry
	prompts      []*promptEntry
	promptByName map[string]*promptEntry
}

func (r *registry) clone() *registry {
	c := *r
	c.tools = slices.Clone(r.tools)
	c.toolByName = cloneMap(r.toolByName)
	c.resources = slices.Clone(r.resources)
	c.resByURI = cloneMap(r.resByURI)
	c.templates = slices.Clone(r.templates)
	c.tmplByKey = cloneMap(r.tmplByKey)
	c.prompts = slices.Clone(r.prompts)
	c.promptByName = cloneMap(r.promptByName)
	return &c
}

func cloneMap[V any](m map[string]V) map[string]V {
	c := make(map[string]V, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// semverRE is the semver.org grammar, with an optional leading v.
var semverRE = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// NewServer returns a server with no tools, resources or prompts. It panics
// when Name is empty or Version is not a semantic version: both are
// programmer errors best caught at start-up.
func NewServer(opts Options) *Server {
	if opts.Name == "" {
		panic("mcp: NewServer: Options.Name is required")
	}
	if !semverRE.MatchString(opts.Version) {
		panic(fmt.Sprintf("mcp: NewServer: Options.Version %q is not a semantic version (want MAJOR.MINOR.PATCH, such as 1.0.0)", opts.Version))
	}
	s := &Server{opts: opts, logger: opts.Logger}
	if s.logger == nil {
		s.logger = DefaultLogger()
	}
	s.reg.Store(&registry{
		toolByName: map[string]*toolEntry{}, resByURI: map[string]*resourceEntry{},
		tmplByKey: map[string]*templateEntry{}, promptByName: map[string]*promptEntry{},
	})
	s.watchers.Store(&[]*watcher{})
	return s
}

// DefaultLogger is the logger servers use when Options.Logger is nil:
// tint (colourless when stderr is not a terminal) on stderr, level info.
func DefaultLogger() *slog.Logger {
	return slog.New(tint.NewHandler(os.Stderr, &tint.Options{Level: slog.LevelInfo, TimeFormat: time.TimeOnly, NoColor: !isTerminal(os.Stderr)}))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Options returns the options the server was made with.
func (s *Server) Options() Options { return s.opts }

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.logger }

// update applies fn to a copy of the registry and publishes it, then tells
// the watchers.
// fn may refuse the change by returning an error, which update raises as a
// panic (a programmer error) without publishing anything.
func (s *Server) update(ch Change, fn func(r *registry) error) {
	s.mu.Lock()
	r := s.reg.Load().clone()
	if err := fn(r); err != nil {
		s.mu.Unlock()
		panic(err.Error())
	}
	s.reg.Store(r)
	s.mu.Unlock()
	s.notify(ch)
}

// ChangeKind says what changed in a [Change].
type ChangeKind int

// The kinds of change a [Server] reports to its watchers.
const (
	ToolsChanged     ChangeKind = iota + 1 // a tool was added or removed
	ResourcesChanged                       // a resource or template was added or removed
	PromptsChanged                         // a prompt was added or removed
	ResourceUpdated                        // the contents of URI changed
	LogBroadcast                           // a log message for every session
)

// Change is an event transports turn into notifications.
type Change struct {
	Kind ChangeKind
	URI  string      // for ResourceUpdated
	Log  *LogMessage // for LogBroadcast
}

type watcher struct{ fn func(Change) }

// Watch calls fn for every change until stop is called. fn must not block:
// transports queue the notification and return. It is the hook transports
// use to send list_changed and resources/updated notifications.
func (s *Server) Watch(fn func(Change)) (stop func()) {
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

func (s *Server) notify(ch Change) {
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
	s.notify(Change{Kind: LogBroadcast, Log: &LogMessage{Level: level, Logger: s.opts.Name, Data: payload}})
}

// ResourceUpdated tells the clients subscribed to uri that its contents
// changed (notifications/resources/updated).
func (s *Server) ResourceUpdated(uri string) {
	s.notify(Change{Kind: ResourceUpdated, URI: uri})
}

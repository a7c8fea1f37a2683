package mcphttp

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/middleware"
)

// MuxOptions configure [NewMux].
type MuxOptions struct {
	// Endpoint is the path of the MCP endpoint. Default /mcp.
	Endpoint string
	// Middleware wraps the MCP endpoint (inside authentication).
	Middleware []func(http.Handler) http.Handler
}

// NewMux assembles the HTTP side of a server on one ServeMux: the MCP
// endpoint behind recovery and the server's authentication
// ([Handler.AuthMiddleware], outermost but for recovery, so opts.Middleware
// sees the caller's auth data), the health endpoint, the server's custom
// routes (authenticated the same way unless public), the OAuth discovery
// documents (of Options.OAuth when enabled, else of an mcp.Options.Auth that
// implements discovery.MetadataProvider), the routes of the auth
// provider, with Options.LegacySSE the legacy HTTP+SSE transport
// (GET /sse, POST /messages, through the endpoint's chain), and with
// Options.ServerCard the Server Card at GET <endpoint>/server-card. Its patterns
// are paths from its own root, so it mounts under a prefix with
// http.StripPrefix; with OAuth discovery, route /.well-known/ of the host
// to the same mux, unstripped, since the documents live at the host's root
// (RFC 9728, RFC 8414) at paths it derives from the configured resource
// and issuer URLs (which carry the prefix), and the 401 challenge points
// there:
//
//	m := mcphttp.NewMux(h, nil)
//	parent.Handle("/api/", http.StripPrefix("/api", m))
//	parent.Handle("/.well-known/", m) // the discovery documents
//
// Custom routes added with AddRoute after NewMux returned are served too,
// from their first request on (a late route whose pattern conflicts with
// a mounted one is logged and not served).
//
// The DNS-rebinding check (Options.Allow) runs in front of every route,
// before authentication, whatever mounted it (the auth provider's pages
// and the discovery documents too): the returned handler checks the
// request and hands it to the mux of the routes. The health endpoint and
// routes added with mcp.RouteOptions.DisableDNSRebindingProtection are
// let through; with Options.DisableDNSRebindingProtection the routes' mux
// is returned as it is. It is a handler, not a mux to register more
// routes on, so that no route can skip the check: add routes with
// mcp.Server.AddRoute, or mount the handler in a mux of your own.
func NewMux(h *Handler, opts *MuxOptions) http.Handler {
	var o MuxOptions
	if opts != nil {
		o = *opts
	}
	ep := endpointOr(o.Endpoint)
	srv := h.Server()
	so := h.ops.Options()
	log := srv.Logger()
	base := alice.New(middleware.Recover(log))
	authed := base.Append(h.AuthMiddleware)
	mux := http.NewServeMux()
	// The endpoint authenticates once, in front, and ends in the engine's
	// chain without its own authentication step (Handler.admitted): the
	// same checks as base+Authenticate+h, without marking the request.
	mux.Handle(ep, base.Append(h.authenticateOnce).Append(constructors(o.Middleware)...).Then(h.admitted))
	if ho := h.opts.Health; ho == nil || !ho.Disabled {
		mountHealth(mux, ho, base)
	}
	if h.opts.LegacySSE {
		mountLegacySSE(mux, h, base, o.Middleware)
	}
	if sc := h.opts.ServerCard; sc != nil {
		// A server that authenticates shows its card to the callers it
		// lets in, unless the card is declared public: fail closed.
		h.mountServerCard(mux, cardPath(ep), sc.Public || serverAuth(so) == nil, base, authed)
	}
	late := mountRoutes(mux, srv, base, authed)
	discovery.Mount(mux, h.oauth)
	if so.Auth != nil && so.Authenticate == nil {
		// A provider with pages of its own (the consent page of package
		// providers) shows the server's name and icon on them.
		if u, ok := so.Auth.(interface{ UseServerInfo(mcp.Implementation) }); ok {
			u.UseServerInfo(serverInfo(so))
		}
		so.Auth.Mount(mux)
	}
	if h.rebind == nil {
		return mux
	}
	return guardedMux(h.rebind, mux, late)
}

// mountHealth mounts the health endpoint on mux, for any host: GET (and
// HEAD) answer ho's status and message, at ho's path (ho nil: 200 "ok"
// at /health).
func mountHealth(mux *http.ServeMux, ho *HealthOptions, base alice.Chain) {
	path, msg, status := "/health", "ok", http.StatusOK
	if ho != nil {
		path = cmp.Or(ho.Path, path)
		msg = cmp.Or(ho.Message, msg)
		status = cmp.Or(ho.Status, status)
	}
	health := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, msg)
		}
	})
	mux.Handle("GET "+path, anyHost{base.Then(health)})
}

// mountServerCard mounts the server card at p: a public one for any web
// page (its CORS headers say so, so a browser's Origin is not checked;
// its Host is), else only for the callers the authed chain lets in.
func (h *Handler) mountServerCard(mux *http.ServeMux, p string, public bool, base, authed alice.Chain) {
	if public {
		mux.Handle("GET "+p, anyOrigin{base.Then(h.serveServerCard(true))})
		mux.Handle("OPTIONS "+p, anyOrigin{base.ThenFunc(serveServerCardPreflight)})
		return
	}
	mux.Handle("GET "+p, authed.Then(h.serveServerCard(false)))
}

// ErrSessionAuthWithAuth is returned by [Start] and [Local] when
// SessionAuth (fixed auth data for the local caller) is set for a server
// that has its own authentication (Options.Authenticate or Options.Auth):
// the two cannot both hold, and the server's check must not be skipped.
// Pass the caller's credentials in the Header option instead.
var ErrSessionAuthWithAuth = errors.New("mcphttp: SessionAuth cannot be combined with the server's Authenticate or Auth (the server checks every request itself); pass the local caller's credentials in Header instead")

// checkSessionAuth fails closed when fixed auth data would stand in for
// the server's own authentication.
func checkSessionAuth(srv *mcp.Server, sessionAuth any, where string) error {
	if sessionAuth != nil && serverAuth(opsOf(srv).Options()) != nil {
		return fmt.Errorf("%s: %w", where, ErrSessionAuthWithAuth)
	}
	return nil
}

// Local returns h behind the chain of the local transports, stdio and in
// process: recovery, the server's authentication of the credentials the
// requests carry, auth as the auth data of every caller (nil: none; see
// below), then mw, so that mw sees the caller's auth data as over HTTP. A
// client in the same process (client.InProcess) speaks to the server
// through it, each message through the whole chain:
//
//	h := mcphttp.New(srv, nil)
//	defer h.Close()
//	local, err := mcphttp.Local(h, "ada") // tools see "ada" as Context.Session
//	if err != nil { … }
//	c, err := client.Connect(ctx, client.InProcess(local, nil), nil)
//
// auth stands for the caller only where the server has no
// authentication: it is not a credential and skips no check, so Local
// refuses it (with [ErrSessionAuthWithAuth]) for a server with
// Options.Authenticate or Options.Auth, whose check must run on the
// caller's credentials (client.InProcess's header). h alone, without
// Local, still authenticates every request; Local adds recovery, the
// fixed caller and the middleware.
func Local(h *Handler, auth any, mw ...func(http.Handler) http.Handler) (http.Handler, error) {
	if err := checkSessionAuth(h.Server(), auth, "mcphttp.Local: auth"); err != nil {
		return nil, err
	}
	return localChain(h, auth, mw).Then(h), nil
}

// localChain is the chain of the stdio and in-process transports ([Local]):
// recovery, the server's authentication (of the Header credentials), the
// fixed local caller, then the user's middleware.
func localChain(h *Handler, sessionAuth any, mw []func(http.Handler) http.Handler) alice.Chain {
	return alice.New(middleware.Recover(h.Server().Logger()), h.AuthMiddleware, middleware.FixedAuth(sessionAuth)).Append(constructors(mw)...)
}

// WriteJSON writes v as a JSON response with the given status: the helper
// for custom routes.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

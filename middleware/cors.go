package middleware

import (
	"net/http"
	"slices"
	"time"

	"github.com/rs/cors"
)

// CORSOptions configure [CORS]. The zero value (or nil) allows no
// cross-origin browser access: CORS is opt-in, origin by origin.
type CORSOptions struct {
	// Allow lists the origins browsers may call the endpoint from, in
	// Allow.Origins (see [AllowList]; Hosts is not read here). Default:
	// none. Pass the same *AllowList as mcphttp.Options.Allow, whose
	// DNS-rebinding check reads the same origins, so both agree.
	Allow *AllowList
	// AllowOriginFunc, when set, decides instead of Allow. It is
	// called concurrently, for every request that has an Origin header.
	AllowOriginFunc func(r *http.Request, origin string) bool
	// AllowedHeaders are request headers a browser may send besides the
	// ones MCP needs, which are always allowed: Content-Type,
	// Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID,
	// Mcp-Method and Mcp-Name.
	AllowedHeaders []string
	// ExposedHeaders are response headers browser scripts may read besides
	// Mcp-Session-Id and WWW-Authenticate, which are always exposed.
	ExposedHeaders []string
	// AllowCredentials lets browsers send cookies and TLS client
	// certificates (a bearer token in Authorization needs no credentials
	// mode). It cannot be combined with the "*" origin: CORS panics.
	AllowCredentials bool
	// AllowPrivateNetwork answers Private Network Access preflights, for a
	// server on a private address called from a public page.
	AllowPrivateNetwork bool
	// MaxAge is how long browsers may cache a preflight's answer (sent in
	// whole seconds). Default: 0, no Access-Control-Max-Age header (the
	// browser's default, 5 s).
	MaxAge time.Duration
}

// Methods and headers of the MCP Streamable HTTP transport.
var (
	corsMethods = []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions}
	corsHeaders = []string{"Content-Type", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version",
		"Last-Event-ID", "Mcp-Method", "Mcp-Name"}
	corsExposed = []string{"Mcp-Session-Id", "WWW-Authenticate"}
)

// CORS answers cross-origin requests for an MCP endpoint, with
// github.com/rs/cors preset for the Streamable HTTP transport: methods
// GET, POST, DELETE and OPTIONS; the MCP request headers allowed; the
// Mcp-Session-Id and WWW-Authenticate response headers exposed (a
// browser client needs both: the session to continue, the challenge to
// find the authorization server). opts may be nil: no origin is allowed.
//
// A preflight (OPTIONS with Access-Control-Request-Method) is answered
// here with 204 and goes no further, whether or not its origin is
// allowed (a refused one gets no Access-Control-Allow-* headers, which
// the browser reads as a refusal). Preflights carry no credentials, so
// place CORS before authentication in the chain; the CORS headers then
// also reach a 401, and the browser client can read its challenge:
//
//	alice.New(middleware.CORS(corsOpts), middleware.CheckCredentials(fn, &middleware.AuthOptions{Challenge: challenge})).Then(mcpHandler)
//
// It panics if AllowCredentials is combined with the "*" origin.
func CORS(opts *CORSOptions) func(http.Handler) http.Handler {
	var o CORSOptions
	if opts != nil {
		o = *opts
	}
	co := cors.Options{
		AllowedMethods:      corsMethods,
		AllowedHeaders:      union(corsHeaders, o.AllowedHeaders),
		ExposedHeaders:      union(corsExposed, o.ExposedHeaders),
		AllowCredentials:    o.AllowCredentials,
		AllowPrivateNetwork: o.AllowPrivateNetwork,
	}
	if o.MaxAge > 0 {
		co.MaxAge = max(1, int(o.MaxAge/time.Second))
	}
	switch {
	case o.AllowOriginFunc != nil:
		fn := o.AllowOriginFunc
		co.AllowOriginVaryRequestFunc = func(r *http.Request, origin string) (bool, []string) {
			return fn(r, origin), nil
		}
	case o.Allow == nil || len(o.Allow.Origins) == 0:
		// rs/cors reads an empty list as "every origin": refuse them all instead.
		co.AllowOriginVaryRequestFunc = func(*http.Request, string) (bool, []string) { return false, nil }
	default:
		if o.AllowCredentials && slices.Contains(o.Allow.Origins, "*") {
			panic(`middleware: CORSOptions.AllowCredentials cannot be combined with the "*" origin (browsers refuse it, and it would let every site act with the user's cookies); list the origins`)
		}
		// rs/cors matches the same patterns as AllowList.AllowsOrigin (one
		// "*" per entry, case-insensitive) and answers "*" with "*".
		co.AllowedOrigins = slices.Clone(o.Allow.Origins)
	}
	return cors.New(co).Handler
}

// union returns base followed by the entries of extra it lacks (header
// names compare case-insensitively).
func union(base, extra []string) []string {
	out := slices.Clone(base)
	for _, h := range extra {
		if !slices.ContainsFunc(out, func(s string) bool { return http.CanonicalHeaderKey(s) == http.CanonicalHeaderKey(h) }) {
			out = append(out, h)
		}
	}
	return out
}

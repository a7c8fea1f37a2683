package middleware

import (
	"cmp"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// AuthOptions configure [CheckCredentials]. The zero value (or nil) sends a
// plain "Bearer" challenge and logs in the default format of a server
// (that of a nil mcp.Options.Logger).
type AuthOptions struct {
	// Challenge is the WWW-Authenticate value of a 401 answer; build it
	// with discovery.Challenge so it names the protected-resource metadata
	// (`Bearer resource_metadata="https://…/.well-known/oauth-protected-resource/mcp"`)
	// and a client can find the authorization server. A 401 for
	// credentials that were presented and refused adds
	// error="invalid_token"; a 403 answer adds error="insufficient_scope"
	// (see [CheckCredentials]). Default: "Bearer".
	Challenge string
	// Logger receives why a request was refused (info level) and the
	// errors of checks that failed (error level). Default: one logger for the program,
	// in the format a server logs in by default.
	Logger *slog.Logger
}

// Fixed bodies of the refusals: an error's own text never reaches the
// client (it may say which part of a token was wrong, or leak an internal
// address); it is logged instead.
const (
	bodyUnauthorized      = `{"error":"unauthorized","error_description":"Unauthorized: the request needs valid credentials"}` + "\n"
	bodyInvalidToken      = `{"error":"invalid_token","error_description":"Unauthorized: the credentials were refused (invalid, expired or revoked)"}` + "\n"
	bodyInsufficientScope = `{"error":"insufficient_scope","error_description":"Forbidden: the credentials do not grant the scope this request needs"}` + "\n"
	bodyAuthUnavailable   = `{"error":"temporarily_unavailable","error_description":"Service Unavailable: the credentials cannot be checked now; try again later"}` + "\n"
	bodyAuthFailed        = `{"error":"server_error","error_description":"Internal Server Error: the credentials could not be checked"}` + "\n"
)

// CheckCredentials runs fn on every request. On success the auth data is put
// in the request context (mcp.WithAuth) for the engine and the tools. On
// failure the request goes no further and is answered, according to the
// error fn returned (see mcp.AuthFunc):
//
//   - an error wrapping mcp.ErrUnauthorized: 401 with the challenge of
//     opts in WWW-Authenticate, to which error="invalid_token" is added
//     when the request presented credentials (an Authorization header, or
//     an error wrapping mcp.ErrInvalidToken). A client reads the bare
//     challenge as "authorize first" and invalid_token as "this token is
//     no good: get another one", so a mistyped static token is reported
//     as such instead of starting an OAuth login (RFC 6750 §3.1);
//   - an error wrapping mcp.ErrInsufficientScope: 403 with the challenge
//     and error="insufficient_scope";
//   - an error wrapping mcp.ErrAuthUnavailable: 503 with Retry-After, the
//     check could not reach what it needs;
//   - any other error: 500, the check itself failed.
//
// The body is an OAuth-style JSON object ({"error": …,
// "error_description": …}) with a fixed description that never contains
// the error's own text; the error is logged. An error that is (or wraps)
// an *mcp.AuthError puts its Description into the body and into the
// challenge as error_description, and its Scope as scope. opts may be nil.
//
// An MCP server's own Authenticate (or Auth) hook needs no middleware: the
// mcphttp.Handler runs it wherever it is served; put the handler's own
// AuthMiddleware method in a chain to run it earlier (so your middleware
// sees the auth data). This middleware is for other handlers (your own
// routes) or for a second, different check.
func CheckCredentials(fn mcp.AuthFunc, opts *AuthOptions) func(http.Handler) http.Handler {
	var o AuthOptions
	if opts != nil {
		o = *opts
	}
	if o.Challenge == "" {
		o.Challenge = "Bearer"
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth, err := fn(r)
			if err != nil {
				refuse(w, r, err, &o)
				return
			}
			if auth == nil && mcp.AuthFromContext(r.Context()) == nil {
				// An anonymous caller, and no auth data to hide: the
				// context already says "no auth data", so the request
				// goes on as it is, without a copy.
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r.WithContext(mcp.WithAuth(r.Context(), auth)))
		})
	}
}

// refuse answers a request whose authentication check returned err. It is
// the one place that maps auth errors to HTTP answers.
//
// The error code of the challenge follows RFC 6750 §3.1: a request that
// presented no credentials gets the challenge alone (the client should
// start an authorization); credentials that were presented and refused
// (an Authorization header, or an error wrapping mcp.ErrInvalidToken) get
// error="invalid_token" (the client should get a new token, not prompt
// the user over a mistyped static one); a 403 gets
// error="insufficient_scope". An mcp.AuthError adds its description and
// scope.
func refuse(w http.ResponseWriter, r *http.Request, err error, o *AuthOptions) {
	log := o.Logger
	if log == nil {
		log = defaultLogger()
	}
	var ae *mcp.AuthError
	errors.As(err, &ae)
	hd := w.Header()
	own := copyAuthHeaders(hd, ae) // the AuthError brings its own challenge
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	var status int
	var body string
	switch {
	case errors.Is(err, mcp.ErrInsufficientScope):
		status, body = http.StatusForbidden, bodyInsufficientScope
		setChallenge(hd, withDetail(o.Challenge, "insufficient_scope", ae), own)
		log.InfoContext(r.Context(), "mcp auth: insufficient scope", "status", status, "reason", err.Error(),
			"method", strictjson.ForLog(r.Method), "remote", r.RemoteAddr)
		if ae != nil && ae.Description != "" {
			body = errorBody("insufficient_scope", ae.Description)
		}
	case errors.Is(err, mcp.ErrUnauthorized):
		status, body = http.StatusUnauthorized, bodyUnauthorized
		code := ""
		if r.Header.Get("Authorization") != "" || errors.Is(err, mcp.ErrInvalidToken) {
			code, body = "invalid_token", bodyInvalidToken
		}
		setChallenge(hd, withDetail(o.Challenge, code, ae), own)
		log.InfoContext(r.Context(), "mcp auth: request refused", "status", status, "reason", err.Error(),
			"method", strictjson.ForLog(r.Method), "remote", r.RemoteAddr)
		if ae != nil && (ae.Description != "" || ae.Code != "") {
			body = errorBody(cmp.Or(ae.Code, code, "unauthorized"), ae.Description)
		}
	case errors.Is(err, mcp.ErrAuthUnavailable):
		status, body = http.StatusServiceUnavailable, bodyAuthUnavailable
		hd.Set("Retry-After", "10")
		log.WarnContext(r.Context(), "mcp auth: the credentials cannot be checked now", "status", status, "err", err.Error(),
			"method", strictjson.ForLog(r.Method), "remote", r.RemoteAddr)
	default:
		status, body = http.StatusInternalServerError, bodyAuthFailed
		log.ErrorContext(r.Context(), "mcp auth: the authentication check failed (an error that wraps neither mcp.ErrUnauthorized nor mcp.ErrInsufficientScope)",
			"status", status, "err", err.Error(), "method", strictjson.ForLog(r.Method), "remote", r.RemoteAddr)
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// copyAuthHeaders sets on hd the headers an AuthError (nil: none)
// brings, and reports whether they include its own WWW-Authenticate
// challenge.
func copyAuthHeaders(hd http.Header, ae *mcp.AuthError) bool {
	if ae == nil {
		return false
	}
	own := false
	for k, vs := range ae.Header {
		k = http.CanonicalHeaderKey(k)
		hd[k] = slices.Clone(vs)
		own = own || k == "Www-Authenticate" && len(vs) > 0
	}
	return own
}

// setChallenge sets the WWW-Authenticate challenge of a refusal: the one
// built, unless the mcp.AuthError brought its own.
func setChallenge(hd http.Header, built string, own bool) {
	if !own {
		hd.Set("WWW-Authenticate", built)
	}
}

// withDetail adds to a challenge the error code (if any) and what an
// mcp.AuthError says: error_description and scope.
func withDetail(challenge, code string, ae *mcp.AuthError) string {
	if code != "" {
		challenge = withParam(challenge, `error="`+code+`"`)
	}
	if ae == nil {
		return challenge
	}
	if d := headerSafe(ae.Description); d != "" && code != "" {
		challenge = withParam(challenge, `error_description="`+d+`"`)
	}
	if sc := headerSafe(ae.Scope); sc != "" && !strings.Contains(challenge, ` scope="`) {
		challenge = withParam(challenge, `scope="`+sc+`"`)
	}
	return challenge
}

// headerSafe keeps the characters RFC 6750 §3 allows in error_description
// and scope (printable ASCII but '"' and '\'), replacing others with a
// space, and bounds the length, so a description can neither break out
// of its quoted-string nor bloat the header.
func headerSafe(s string) string {
	const limit = 300
	if len(s) > limit {
		s = s[:limit]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = ' '
		}
	}
	return strings.TrimSpace(string(b))
}

// errorBody is the JSON body of a refusal with a description of its own.
func errorBody(code, desc string) string {
	b, _ := json.Marshal(map[string]string{"error": code, "error_description": desc})
	return string(b) + "\n"
}

// withParam adds an auth-param to a challenge ("Bearer" or "Bearer k=v, …").
func withParam(challenge, param string) string {
	if challenge == "Bearer" {
		return challenge + " " + param
	}
	return challenge + ", " + param
}

// FixedAuth puts the same auth data in every request's context, with no
// check: the stdio and in-process transports use it for their one local
// caller (StartOptions.SessionAuth, mcphttp.Local's auth). A nil auth
// leaves the context alone. It is not authentication: never put it in
// front of a network listener.
func FixedAuth(auth any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if auth != nil {
				r = r.WithContext(mcp.WithAuth(r.Context(), auth))
			}
			next.ServeHTTP(w, r)
		})
	}
}

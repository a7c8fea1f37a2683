package providers

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/rs/cors"
)

var apiCORS = cors.New(cors.Options{
	AllowedOrigins: []string{"*"},
	AllowedMethods: []string{http.MethodPost, http.MethodOptions},
	AllowedHeaders: []string{"Content-Type", "Authorization"},
})

// corsAPI wraps the endpoints clients call from scripts (register, token,
// revoke): CORS open, without credentials, so browser-based clients work.
func corsAPI(h http.Handler) http.Handler { return apiCORS.Handler(h) }

// page wraps the browser-facing endpoints (authorize, consent, callback):
// no caching, no referrer to other origins (URLs carry codes), no
// framing. The referrer policy is same-origin, not no-referrer: with
// no-referrer a browser sends "Origin: null" with the consent form, which
// the DNS-rebinding check of mcphttp.NewMux refuses. The CSP set here
// covers redirects and plain-text errors; an HTML page replaces it with
// one that allows its own style by nonce (see render).
func page(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Content-Security-Policy", "default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError writes an RFC 6749 §5.2 error body.
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed: use "+allow, http.StatusMethodNotAllowed)
}

// redirectWith returns uri with params added to its query.
func redirectWith(uri string, params url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			if v != "" {
				q.Set(k, v)
			}
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

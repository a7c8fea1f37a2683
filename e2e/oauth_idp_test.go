package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/stretchr/testify/require"
)

// The upstream identity provider of the OAuth e2e tests: a real OpenID
// Connect provider library, github.com/oauth2-proxy/mockoidc, in process on
// 127.0.0.1 (it logs the queued user in at once, so no human is needed).
// Around it, as little as makes it stand in for each provider:
//
//   - a lock: mockoidc keeps its sessions in an unguarded map, and its
//     handlers run concurrently;
//   - the Basic shim of oauth-design.md §4: mockoidc advertises
//     client_secret_basic but reads the credentials only from the form, so
//     Basic credentials are copied into the form (RFC 6749 §2.3.1: they
//     are form-encoded, then Base64'd);
//   - a front with the provider's own paths (Google-, GitHub- and
//     Entra-shaped URLs), forwarding to mockoidc, so the providers' URL
//     layouts are what is tested;
//   - for the code host, a small fake of its user API (/user,
//     /user/emails) that accepts a token only when mockoidc's userinfo
//     endpoint does;
//   - for the enterprise directory, users whose ID tokens carry tid, oid
//     and upn and the issuer of their own tenant ({authority}/{tid}/v2.0),
//     which is what a multi-tenant ("common") login returns.

// mockoidc rejects scopes it does not know; these are the real providers'
// (Entra's offline_access, GitHub's read:user and user:email).
var addScopesOnce sync.Once

func addUpstreamScopes() {
	addScopesOnce.Do(func() {
		mockoidc.ScopesSupported = append(mockoidc.ScopesSupported, "offline_access", "read:user", "user:email")
	})
}

// The fixed identities of the fakes.
const (
	entraTenant  = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	entraOID     = "00000000-0000-0000-66f3-3332eca7ea81"
	entraUPN     = "ada@contoso.example"
	codeHostID   = 583231
	codeHostUser = "octocat"
)

// upstream is one identity provider for one e2e test.
type upstream struct {
	kind  string
	m     *mockoidc.MockOIDC
	front *httptest.Server // provider-shaped paths (consumer, codehost, enterprise)
	api   *httptest.Server // the code host's user API
	tr    *http.Transport  // the front's and the fake API's calls to mockoidc

	mu          sync.Mutex // serializes mockoidc's handlers
	recMu       sync.Mutex
	nonces      []string // nonce of each authorization request
	tokenAuth   []string // client authentication of each token request: basic or post
	tenants     []string // tenant path segment of each enterprise request
	apiHeaders  []http.Header
	tamperNonce atomic.Bool // replace the nonce of authorization requests
}

// newUpstream starts the identity provider for kind (generic, consumer,
// codehost, enterprise); everything stops at the end of t.
func newUpstream(t *testing.T, kind string) *upstream {
	t.Helper()
	addUpstreamScopes()
	u := &upstream{kind: kind, tr: &http.Transport{}}
	m, err := mockoidc.NewServer(nil)
	require.NoError(t, err)
	m.AccessTTL = time.Hour
	u.m = m
	require.NoError(t, m.AddMiddleware(u.lock))
	require.NoError(t, m.AddMiddleware(u.basicShim))
	require.NoError(t, m.AddMiddleware(u.recordAuthorize))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, m.Start(ln, nil))
	t.Cleanup(func() {
		_ = m.Shutdown()
		u.tr.CloseIdleConnections()
	})

	switch kind {
	case "consumer":
		u.front = u.serveFront(t, map[string]string{
			"GET /o/oauth2/v2/auth": mockoidc.AuthorizationEndpoint,
			"POST /token":           mockoidc.TokenEndpoint,
			"GET /oauth2/v3/certs":  mockoidc.JWKSEndpoint,
		})
	case "codehost":
		u.front = u.serveFront(t, map[string]string{
			"GET /login/oauth/authorize":     mockoidc.AuthorizationEndpoint,
			"POST /login/oauth/access_token": mockoidc.TokenEndpoint,
		})
		u.api = u.serveUserAPI(t)
	case "enterprise":
		u.front = u.serveFront(t, map[string]string{
			"GET /{tenant}/oauth2/v2.0/authorize": mockoidc.AuthorizationEndpoint,
			"POST /{tenant}/oauth2/v2.0/token":    mockoidc.TokenEndpoint,
			"GET /{tenant}/discovery/v2.0/keys":   mockoidc.JWKSEndpoint,
		})
	}
	return u
}

// env is the environment that puts examples/oauth in front of u.
func (u *upstream) env() map[string]string {
	e := map[string]string{"OAUTH_PROVIDER": u.kind, "OAUTH_CLIENT_ID": u.m.ClientID, "OAUTH_CLIENT_SECRET": u.m.ClientSecret}
	switch u.kind {
	case "generic":
		// client_secret_basic (the default) through the shim; ID tokens
		// verified with keys discovered at the issuer.
		e["OAUTH_AUTHORIZATION_ENDPOINT"] = u.m.AuthorizationEndpoint()
		e["OAUTH_TOKEN_ENDPOINT"] = u.m.TokenEndpoint()
		e["OAUTH_ISSUER"] = u.m.Issuer()
	case "consumer":
		e["OAUTH_UPSTREAM_URL"] = u.front.URL
		e["OAUTH_ISSUER"] = u.m.Issuer() // mockoidc's iss; the paths are the front's
	case "codehost":
		e["OAUTH_UPSTREAM_URL"] = u.front.URL
		e["OAUTH_API_URL"] = u.api.URL
	case "enterprise":
		e["OAUTH_UPSTREAM_URL"] = u.front.URL // tenant: common (the default)
	}
	return e
}

// lock serializes mockoidc: its session store is a plain map.
func (u *upstream) lock(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		defer u.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// basicShim makes mockoidc honour client_secret_basic (oauth-design.md §4).
func (u *upstream) basicShim(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, mockoidc.TokenEndpoint) {
			_ = r.ParseForm()
			method := "post"
			if id, sec, ok := r.BasicAuth(); ok {
				method = "basic"
				id, _ = url.QueryUnescape(id)
				sec, _ = url.QueryUnescape(sec)
				r.Form.Set("client_id", id)
				r.Form.Set("client_secret", sec)
			}
			u.record(&u.tokenAuth, method)
		}
		next.ServeHTTP(w, r)
	})
}

// recordAuthorize notes the nonce of each authorization request, replaces
// it when tamperNonce is set (the ID token then carries a nonce of another
// login), and logs the enterprise users in.
func (u *upstream) recordAuthorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, mockoidc.AuthorizationEndpoint) {
			q := r.URL.Query()
			u.record(&u.nonces, q.Get("nonce"))
			if u.tamperNonce.Load() {
				q.Set("nonce", "nonce-of-another-login")
				r.URL.RawQuery = q.Encode()
			}
			if u.kind == "enterprise" {
				u.m.QueueUser(&entraUser{issuer: u.front.URL + "/" + entraTenant + "/v2.0"})
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (u *upstream) record(list *[]string, v string) {
	u.recMu.Lock()
	defer u.recMu.Unlock()
	*list = append(*list, v)
}

// seen returns a copy of a recorded list.
func (u *upstream) seen(list *[]string) []string {
	u.recMu.Lock()
	defer u.recMu.Unlock()
	return append([]string(nil), *list...)
}

// serveFront serves the provider's paths (pattern → mockoidc path).
func (u *upstream) serveFront(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(u.m.Addr())
	require.NoError(t, err)
	mux := http.NewServeMux()
	for pattern, path := range routes {
		rp := &httputil.ReverseProxy{Transport: u.tr, Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
		}}
		mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tenant := r.PathValue("tenant"); tenant != "" {
				u.record(&u.tenants, tenant)
			}
			rp.ServeHTTP(w, r)
		}))
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// serveUserAPI is the fake of the code host's user API: a token is good
// when mockoidc's userinfo endpoint accepts it; the user has no public
// email, so the provider must read /user/emails.
func (u *upstream) serveUserAPI(t *testing.T) *httptest.Server {
	t.Helper()
	client := &http.Client{Transport: u.tr, Timeout: 5 * time.Second}
	valid := func(r *http.Request) bool {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, u.m.UserinfoEndpoint(), nil)
		if err != nil {
			return false
		}
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		u.recMu.Lock()
		u.apiHeaders = append(u.apiHeaders, r.Header.Clone())
		u.recMu.Unlock()
		if !valid(r) {
			w.WriteHeader(http.StatusUnauthorized)
			reply(w, map[string]string{"message": "Bad credentials"})
			return
		}
		reply(w, map[string]any{"id": codeHostID, "login": codeHostUser, "name": "The Octocat", "email": nil})
	})
	mux.HandleFunc("GET /user/emails", func(w http.ResponseWriter, r *http.Request) {
		if !valid(r) {
			w.WriteHeader(http.StatusUnauthorized)
			reply(w, map[string]string{"message": "Bad credentials"})
			return
		}
		reply(w, []map[string]any{
			{"email": "octocat@users.noreply.example", "primary": false, "verified": true},
			{"email": "octocat@example.com", "primary": true, "verified": true},
		})
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// entraUser is an enterprise directory account of tenant entraTenant.
type entraUser struct{ issuer string }

// ID is the pairwise subject (sub).
func (e *entraUser) ID() string { return "pairwise-sub-of-ada" }

// Userinfo is not used by the enterprise provider.
func (e *entraUser) Userinfo([]string) ([]byte, error) {
	return json.Marshal(map[string]string{"sub": e.ID(), "email": entraUPN})
}

type entraClaims struct {
	*mockoidc.IDTokenClaims
	TID               string `json:"tid"`
	OID               string `json:"oid"`
	UPN               string `json:"upn"`
	PreferredUsername string `json:"preferred_username"`
	Name              string `json:"name"`
}

// Claims are an Entra ID token's: the issuer of the user's own tenant,
// tid, oid and upn; the nonce and the rest come from mockoidc.
func (e *entraUser) Claims(_ []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	rc := *base.RegisteredClaims
	rc.Issuer = e.issuer
	return &entraClaims{IDTokenClaims: &mockoidc.IDTokenClaims{Nonce: base.Nonce, RegisteredClaims: &rc},
		TID: entraTenant, OID: entraOID, UPN: entraUPN, PreferredUsername: entraUPN, Name: "Ada Lovelace"}, nil
}

package idp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/internal/claims"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

var quiet = slog.New(slog.DiscardHandler)

// recording is a file of testdata: what a provider's documentation
// shows of it.
type recording struct {
	Source      []string       `json:"source"`
	Args        []string       `json:"args"`
	Discovery   map[string]any `json:"discovery"`
	AccessToken map[string]any `json:"access_token"`
	IDToken     map[string]any `json:"id_token"`
	name        string
}

func load(t *testing.T, name string) recording {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	require.NoError(t, err)
	var r recording
	require.NoError(t, json.Unmarshal(b, &r))
	require.NotEmpty(t, r.Source, "%s names its sources", name)
	r.name = name
	return r
}

// preset builds the preset of a recording from its arguments.
func (r recording) preset() Preset {
	a := r.Args
	switch r.name {
	case "okta":
		return Okta(a[0], a[1])
	case "auth0":
		return Auth0(a[0], a[1])
	case "keycloak":
		return Keycloak(a[0], a[1])
	case "cognito":
		return Cognito(a[0], a[1])
	case "authkit":
		return AuthKit(a[0])
	case "google-workspace":
		return GoogleWorkspace(a...)
	case "entra":
		return Entra(a[0])
	case "gitlab":
		return GitLab(a[0])
	case "supabase":
		return Supabase(a[0])
	}
	panic("no preset " + r.name)
}

var names = []string{"okta", "auth0", "keycloak", "cognito", "authkit", "google-workspace", "entra", "gitlab", "supabase"}

func (r recording) str(k string) string { s, _ := r.Discovery[k].(string); return s }

func (r recording) list(k string) []string {
	var out []string
	for _, v := range r.Discovery[k].([]any) {
		out = append(out, v.(string))
	}
	return out
}

// TestPresetsMatchRecordedDiscovery: each preset's issuer and endpoints
// are those of the provider's recorded discovery document, its client
// authentication and scopes are ones the document lists, and its role
// claims parse.
func TestPresetsMatchRecordedDiscovery(t *testing.T) {
	t.Parallel()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := load(t, name)
			p := r.preset()
			require.NoError(t, p.err)
			assert.Equal(t, r.str("issuer"), p.Issuer)
			assert.Equal(t, r.str("authorization_endpoint"), p.AuthorizationEndpoint)
			assert.Equal(t, r.str("token_endpoint"), p.TokenEndpoint)
			assert.Equal(t, r.str("jwks_uri"), p.JWKSURL)
			if p.authMethod != "" {
				assert.Contains(t, r.list("token_endpoint_auth_methods_supported"), p.authMethod)
			}
			for _, s := range p.Scopes {
				assert.Contains(t, r.list("scopes_supported"), s)
			}
			assert.Contains(t, r.list("id_token_signing_alg_values_supported"), "RS256")
			_, err := claims.ParsePaths(p.RoleClaims)
			assert.NoError(t, err)
		})
	}
}

// fakeHost stands in for every https host of the providers: a transport
// sends each https request to one local server, whose routes are keyed
// by the original host and path, so a preset that used the wrong host
// for an endpoint gets a 404.
type fakeHost struct {
	ts     *httptest.Server
	mux    *http.ServeMux
	key    *rsa.PrivateKey
	signer jose.Signer

	mu     sync.Mutex
	codes  map[string]string // code → nonce
	params []url.Values      // the authorization requests
	basic  []bool            // per token request: client authentication in the header
}

func newHost(t *testing.T, r recording) *fakeHost {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	require.NoError(t, err)
	h := &fakeHost{mux: http.NewServeMux(), key: key, signer: signer, codes: map[string]string{}}
	route := func(u string, fn http.HandlerFunc) {
		p, err := url.Parse(u)
		require.NoError(t, err)
		h.mux.HandleFunc(p.Host+p.Path, fn)
	}
	route(r.str("jwks_uri"), func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	route(r.str("authorization_endpoint"), func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		code := "code-" + q.Get("state")
		h.mu.Lock()
		h.codes[code] = q.Get("nonce")
		h.params = append(h.params, q)
		h.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := back.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, req, back.String(), http.StatusFound)
	})
	route(r.str("token_endpoint"), func(w http.ResponseWriter, req *http.Request) {
		_ = req.ParseForm()
		_, _, basic := req.BasicAuth()
		h.mu.Lock()
		nonce, ok := h.codes[req.PostForm.Get("code")]
		h.basic = append(h.basic, basic)
		h.mu.Unlock()
		if !ok && req.PostForm.Get("grant_type") != "refresh_token" {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]string{"error": "invalid_grant"})
			return
		}
		id := h.sign(t, r.IDToken, map[string]any{"nonce": nonce, "aud": "proxy-client"})
		writeJSON(w, map[string]any{"access_token": "opaque-upstream-token", "token_type": "Bearer", "expires_in": 3600,
			"refresh_token": "upstream-refresh", "id_token": id})
	})
	h.ts = httptest.NewServer(h.mux)
	t.Cleanup(h.ts.Close)
	return h
}

// client is an HTTP client whose https requests go to the host.
func (h *fakeHost) client(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, Timeout: 10 * time.Second, Transport: rewrite{h.ts.Listener.Addr().String()}}
}

type rewrite struct{ addr string }

func (rw rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "https" {
		r = r.Clone(r.Context())
		r.Host = r.URL.Host
		r.URL.Scheme, r.URL.Host = "http", rw.addr
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sign signs the recorded claims with fresh times and the changes in
// set (a nil value removes a claim).
func (h *fakeHost) sign(t *testing.T, recorded, set map[string]any) string {
	t.Helper()
	c := maps.Clone(recorded)
	now := time.Now()
	c["iat"] = now.Unix()
	c["exp"] = now.Add(time.Hour).Unix()
	if _, ok := c["nbf"]; ok {
		c["nbf"] = now.Unix()
	}
	for k, v := range set {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	tok, err := jwt.Signed(h.signer).Claims(c).Serialize()
	require.NoError(t, err)
	return tok
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// TestPresetProviderSignIn: for each preset with a proxy mode, a user
// signs in through the OAuth proxy the preset configures (package
// client/oauth as the MCP client, its browser following the redirects
// to the provider's host) and a tool sees the ID token's subject and
// the roles of the preset's claim mapping; the provider saw the client
// authentication and authorization parameters the preset asks for.
func TestPresetProviderSignIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		roles []string
	}{
		{"okta", []string{"Everyone", "mcp-admins"}},
		{"auth0", []string{"admin", "analyst"}},
		{"keycloak", []string{"offline_access", "uma_authorization", "default-roles-acme", "mcp-admin"}},
		{"cognito", []string{"mcp-admins"}},
		{"authkit", nil}, // AuthKit's ID token carries no role; its access token does
		{"google-workspace", nil},
		{"gitlab", []string{"acme", "acme/platform"}},
		{"supabase", nil}, // user_role is in access tokens only
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := load(t, tc.name)
			p := r.preset()
			h := newHost(t, r)
			got := signIn(t, p, h)
			assert.Equal(t, "generic:"+r.IDToken["sub"].(string), got.UserID)
			assert.Equal(t, tc.roles, got.Roles)
			h.mu.Lock()
			defer h.mu.Unlock()
			require.NotEmpty(t, h.basic)
			assert.Equal(t, p.authMethod == "client_secret_basic", h.basic[0], "client authentication %s", p.authMethod)
			require.Len(t, h.params, 1)
			for k, v := range p.authParams {
				assert.Equal(t, v, h.params[0].Get(k), "authorization parameter %s", k)
			}
		})
	}
}

// signIn serves a whoami tool behind p's proxy and signs in; it returns
// the tool's view of the session.
func signIn(t *testing.T, p Preset, h *fakeHost) *providers.OAuthSession {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	auth, err := p.Provider(providers.Config{BaseURL: base, ClientID: "proxy-client", ClientSecret: "proxy-secret",
		DisableConsent: true, AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"}, HTTPClient: h.client(nil), Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = auth.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "idp", Version: "1.0.0", Auth: auth, Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, ok := providers.SessionOf(c.Session)
		if !ok {
			return "", fmt.Errorf("no session")
		}
		b, err := json.Marshal(map[string]any{"sub": s.UserID, "roles": s.Roles})
		return string(b), err
	})
	hh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = hh.Close() })
	ts.Config.Handler = mcphttp.NewMux(hh, nil)
	ts.Start()
	t.Cleanup(ts.Close)

	loop, err := oauth.ListenLoopback("/callback")
	require.NoError(t, err)
	defer loop.Close()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := h.client(jar)
	o := oauth.New(oauth.Config{ClientName: "idp-test", RedirectURL: loop.RedirectURL(),
		Authorize: loop.Authorize(func(authURL string) error {
			go func() {
				if resp, err := browser.Get(authURL); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			return nil
		}, 10*time.Second)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", &client.HTTPOptions{Auth: o}), &client.Options{Logger: quiet})
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	var out struct {
		Sub   string   `json:"sub"`
		Roles []string `json:"roles"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Text()), &out), res.Text())
	return &providers.OAuthSession{UserID: out.Sub, Roles: out.Roles}
}

// TestPresetResourceServer: for each preset with a resource-server
// mode, an access token of the recorded shape is admitted with the
// roles of the preset's claim mapping (and only those: a role in a
// claim another provider uses counts for nothing), and refused when it
// names another issuer or audience, or has expired.
func TestPresetResourceServer(t *testing.T) {
	t.Parallel()
	const resource = "https://mcp.example.com/mcp"
	for _, tc := range []struct {
		name      string
		audiences []string
		roles     []string
		foreign   map[string]any // a role where this provider does not put roles
	}{
		{"okta", []string{"api://default"}, []string{"Everyone", "mcp-admins"}, map[string]any{"roles": []string{"root"}}},
		{"auth0", nil, []string{"admin", "analyst"}, map[string]any{"roles": []string{"root"}, "permissions": []string{"root"}}},
		{"keycloak", nil, []string{"offline_access", "uma_authorization", "default-roles-acme", "mcp-admin"},
			map[string]any{"groups": []string{"root"}, "resource_access": map[string]any{"account": map[string]any{"roles": []string{"root"}}}}},
		{"authkit", nil, []string{"admin", "member"}, map[string]any{"permissions": []string{"root"}}},
		{"entra", []string{"6e74172b-be56-4843-9ff4-e66a39bb12e3"}, []string{"Reports.Admin", "0e7b8c1d-2f3a-4b5c-9d6e-7f8a9b0c1d2e"},
			map[string]any{"wids": []string{"root"}}},
		{"supabase", nil, []string{"admin"}, map[string]any{"role": "root"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := load(t, tc.name)
			h := newHost(t, r)
			v, err := r.preset().ResourceServer(context.Background(), resourceserver.Config{Resource: resource,
				Audiences: tc.audiences, HTTPClient: h.client(nil)})
			require.NoError(t, err)
			s, err := v.Verify(context.Background(), h.sign(t, r.AccessToken, tc.foreign))
			require.NoError(t, err)
			assert.Equal(t, r.AccessToken["sub"], s.Sub)
			assert.Equal(t, tc.roles, s.Roles)
			assert.False(t, s.HasRole("root"))
			assert.True(t, access.Roles(tc.roles[len(tc.roles)-1])(context.Background(), s))
			for _, bad := range []struct {
				set  map[string]any
				desc string
			}{
				{map[string]any{"iss": "https://evil.example/"}, "not issued by"},
				{map[string]any{"aud": "https://other.example/mcp"}, "not for this resource"},
				{map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}, "expired"},
			} {
				_, err := v.Verify(context.Background(), h.sign(t, r.AccessToken, bad.set))
				var ae *mcp.AuthError
				require.ErrorAs(t, err, &ae, "%v", bad.set)
				assert.Contains(t, ae.Description, bad.desc)
			}
		})
	}
}

// TestPresetModesRefused: a preset says why a mode it lacks cannot be,
// rather than building a verifier that could not check its tokens.
func TestPresetModesRefused(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"cognito", "google-workspace", "gitlab"} {
		_, err := load(t, name).preset().ResourceServer(context.Background(), resourceserver.Config{Resource: "https://mcp.example.com/mcp"})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "no resource-server mode")
	}
	_, err := Entra("72f988bf-86f1-41af-91ab-2d7cd011db47").Provider(providers.Config{BaseURL: "https://mcp.example.com", ClientID: "c"})
	assert.ErrorContains(t, err, "NewEnterpriseDirectoryProvider")
	_, err = Okta("acme.okta.com", "default").ResourceServer(context.Background(),
		resourceserver.Config{Issuer: "https://acme.okta.com", Resource: "https://mcp.example.com/mcp"})
	assert.ErrorContains(t, err, "not the preset's")
}

// TestGoogleWorkspaceAdmitsOnlyItsDomains: the hd check refuses a
// personal account (no hd) and another Workspace domain.
func TestGoogleWorkspaceAdmitsOnlyItsDomains(t *testing.T) {
	t.Parallel()
	p := GoogleWorkspace("example.com", "example.org")
	for _, tc := range []struct {
		hd any
		ok bool
	}{{"example.com", true}, {"example.org", true}, {"evil.example", false}, {nil, false}, {"", false}, {7, false}} {
		c := map[string]any{"sub": "1"}
		if tc.hd != nil {
			c["hd"] = tc.hd
		}
		assert.Equal(t, tc.ok, p.checkClaims(c) == nil, "hd %v", tc.hd)
	}
	assert.Equal(t, "example.com", p.authParams["hd"])
	assert.Error(t, GoogleWorkspace().err)
}

// TestPresetArgumentsChecked: a bad constructor argument is an error of
// Provider and ResourceServer that says what was expected.
func TestPresetArgumentsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Preset
		want string
	}{
		{Okta("https://acme.okta.com", "default"), "host name"},
		{Okta("acme.okta.com", ""), "authorization server id"},
		{Okta("acme.okta.com", "a/b"), "authorization server id"},
		{Auth0("acme.us.auth0.com/", ""), "host name"},
		{Keycloak("id.example.com", "acme"), "https URL"},
		{Keycloak("https://id.example.com", ""), "realm"},
		{Cognito("AbCdEfGhI", "https://acme.auth.eu-central-1.amazoncognito.com"), "user pool id"},
		{Cognito("eu-central-1_AbCdEfGhI", "http://acme.example"), "https URL"},
		{AuthKit(""), "host name"},
		{Entra("common"), "GUID"},
		{GitLab("https://gitlab.example.com/?x=1"), "https URL"},
		{Supabase("abcdefghij.supabase.co"), "https URL"},
	} {
		_, err := tc.p.Provider(providers.Config{BaseURL: "https://mcp.example.com", ClientID: "c"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		_, err = tc.p.ResourceServer(context.Background(), resourceserver.Config{Resource: "https://mcp.example.com/mcp"})
		assert.Error(t, err)
	}
	assert.Equal(t, []string{`"https://mcp.example.com/roles"`}, Auth0("acme.us.auth0.com", "https://mcp.example.com/").RoleClaims)
	assert.Empty(t, Auth0("acme.us.auth0.com", "").RoleClaims)
	assert.Equal(t, "https://gitlab.com/oauth/discovery/keys", GitLab("").JWKSURL)
	assert.Equal(t, "https://gitlab.com", GitLab("").Issuer)
	assert.True(t, strings.HasSuffix(Auth0("a.example", "").Issuer, "/"))
}

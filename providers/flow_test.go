package providers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// fakeIdP is a minimal upstream OAuth 2.0 server: /authorize approves at
// once, /token checks PKCE and client_secret_basic, /userinfo names alice.
type fakeIdP struct {
	*httptest.Server
	mu     sync.Mutex
	codes  map[string]string // code → challenge
	logins int
	// refreshes counts refresh_token grants; refreshFails answers them
	// invalid_grant (the user was disabled); noRefresh issues tokens with
	// neither refresh token nor expiry (a code host's); userGone makes
	// /userinfo answer 401; scopes records the scope of each authorization.
	refreshes    atomic.Int32
	refreshFails atomic.Bool
	noRefresh    atomic.Bool
	userGone     atomic.Bool
	scopes       []string
}

func newFakeIdP(t *testing.T) *fakeIdP {
	f := &fakeIdP{codes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "up-client" {
			http.Error(w, "bad authorize request", 400)
			return
		}
		code := randomToken(8)
		f.mu.Lock()
		f.codes[code] = q.Get("code_challenge")
		f.logins++
		f.scopes = append(f.scopes, q.Get("scope"))
		f.mu.Unlock()
		http.Redirect(w, r, redirectWith(q.Get("redirect_uri"), url.Values{"code": {code}, "state": {q.Get("state")}}), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, sec, ok := r.BasicAuth()
		_ = r.ParseForm()
		if !ok || id != "up-client" || sec != "up-secret" || r.PostForm.Get("client_secret") != "" {
			oauthError(w, 401, "invalid_client", "want client_secret_basic")
			return
		}
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			f.mu.Lock()
			ch, ok := f.codes[r.PostForm.Get("code")]
			delete(f.codes, r.PostForm.Get("code"))
			f.mu.Unlock()
			if !ok || s256(r.PostForm.Get("code_verifier")) != ch {
				oauthError(w, 400, "invalid_grant", "bad code or verifier")
				return
			}
			if f.noRefresh.Load() {
				writeJSON(w, 200, map[string]any{"access_token": "up-at-1", "token_type": "Bearer"})
				return
			}
			writeJSON(w, 200, map[string]any{"access_token": "up-at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "up-rt"})
		case "refresh_token":
			f.refreshes.Add(1)
			if f.refreshFails.Load() {
				oauthError(w, 400, "invalid_grant", "the user is disabled")
				return
			}
			writeJSON(w, 200, map[string]any{"access_token": "up-at-2", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "up-rt"})
		}
	})
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer up-at-") || f.userGone.Load() {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		writeJSON(w, 200, map[string]any{"sub": "alice", "email": "alice@example.com"})
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

type env struct {
	t   *testing.T
	p   *OAuthProvider
	ts  *httptest.Server
	idp *fakeIdP
}

func newEnv(t *testing.T, mod func(*OAuthProviderConfig)) *env {
	t.Helper()
	idp := newFakeIdP(t)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	cfg := OAuthProviderConfig{
		Config: Config{BaseURL: ts.URL, ClientID: "up-client", ClientSecret: "up-secret", Scopes: []string{"read", "write"},
			JWTSigningKey: strings.Repeat("k", 32), EncryptionKey: strings.Repeat("e", 32),
			Logger: slog.New(slog.DiscardHandler)},
		AuthorizationEndpoint: idp.URL + "/authorize", TokenEndpoint: idp.URL + "/token", UserInfoEndpoint: idp.URL + "/userinfo",
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := NewOAuthProvider(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Mount(mux)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		s, err := p.VerifyRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		writeJSON(w, 200, s)
	})
	return &env{t: t, p: p, ts: ts, idp: idp}
}

func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type regd struct{ ID, Secret, Redirect string }

func (e *env) register(method string, redirect ...string) regd {
	e.t.Helper()
	if len(redirect) == 0 {
		redirect = []string{"http://127.0.0.1:9999/cb"}
	}
	body, _ := json.Marshal(map[string]any{"redirect_uris": redirect, "token_endpoint_auth_method": method, "client_name": "Test <App>"})
	resp, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(string(body)))
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(e.t, 201, resp.StatusCode, out)
	sec, _ := out["client_secret"].(string)
	return regd{ID: out["client_id"].(string), Secret: sec, Redirect: redirect[0]}
}

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-extra-chars"

func challenge(v string) string {
	s := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

func (e *env) authorizeURL(c regd, extra url.Values) string {
	q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {c.Redirect},
		"code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}, "state": {"client-state"}}
	for k, v := range extra {
		q[k] = v
	}
	return e.ts.URL + AuthorizePath + "?" + q.Encode()
}

var hiddenRE = regexp.MustCompile(`name="(txn|csrf)" value="([^"]+)"`)

// consent loads the consent page in b and returns the form fields.
func (e *env) consent(b *http.Client, authorize string) url.Values {
	e.t.Helper()
	resp := do(e.t, b, "GET", authorize, nil, nil)
	require.Equal(e.t, 302, resp.StatusCode, resp.Header)
	resp = do(e.t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
	body := readBody(e.t, resp)
	require.Equal(e.t, 200, resp.StatusCode, body)
	f := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(body, -1) {
		f.Set(m[1], m[2])
	}
	return f
}

func do(t *testing.T, c *http.Client, method, u string, form url.Values, hdr http.Header) *http.Response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	// Read the body now so the connection goes back to the pool (goleak).
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp
}

func readBody(t *testing.T, resp *http.Response) string {
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return string(b)
}

// login runs the whole dance in b and returns the client's redirect URL.
func (e *env) login(b *http.Client, c regd) *url.URL {
	e.t.Helper()
	f := e.consent(b, e.authorizeURL(c, nil))
	f.Set("action", "approve")
	resp := do(e.t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(e.t, 303, resp.StatusCode, readBody(e.t, resp))
	up := resp.Header.Get("Location")
	require.True(e.t, strings.HasPrefix(up, e.idp.URL), up)
	resp = do(e.t, b, "GET", up, nil, nil) // the IdP approves at once
	require.Equal(e.t, 302, resp.StatusCode)
	resp = do(e.t, b, "GET", resp.Header.Get("Location"), nil, nil) // our callback
	require.Equal(e.t, 302, resp.StatusCode, readBody(e.t, resp))
	u, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(e.t, err)
	return u
}

func (e *env) token(c regd, form url.Values) (int, map[string]any) {
	e.t.Helper()
	form.Set("client_id", c.ID)
	if c.Secret != "" {
		form.Set("client_secret", c.Secret)
	}
	resp := do(e.t, http.DefaultClient, "POST", e.ts.URL+TokenPath, form, nil)
	var out map[string]any
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&out))
	resp.Body.Close()
	return resp.StatusCode, out
}

func (e *env) exchange(c regd, code string) (int, map[string]any) {
	return e.token(c, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {c.Redirect}})
}

func (e *env) call(at string) (int, string) {
	e.t.Helper()
	resp := do(e.t, http.DefaultClient, "GET", e.ts.URL+"/mcp", nil, http.Header{"Authorization": {"Bearer " + at}})
	return resp.StatusCode, readBody(e.t, resp)
}

func TestFullFlowIssuesOurTokensAndRotates(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"none", "client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			c := e.register(method)
			if method == "none" {
				require.Empty(t, c.Secret, "a public client gets no secret")
			}
			u := e.login(browser(t), c)
			assert.Equal(t, "client-state", u.Query().Get("state"))
			assert.Equal(t, e.ts.URL, u.Query().Get("iss"), "RFC 9207 iss on the authorization response")
			var status int
			var tok map[string]any
			if method == "client_secret_basic" {
				req, _ := http.NewRequest("POST", e.ts.URL+TokenPath, strings.NewReader(url.Values{"grant_type": {"authorization_code"},
					"code": {u.Query().Get("code")}, "code_verifier": {verifier}}.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				status = resp.StatusCode
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
				resp.Body.Close()
			} else {
				status, tok = e.exchange(c, u.Query().Get("code"))
			}
			require.Equal(t, 200, status, tok)
			at := tok["access_token"].(string)
			assert.NotContains(t, at, "up-at", "never the upstream token")
			assert.Equal(t, "read write", tok["scope"])
			code, body := e.call(at)
			require.Equal(t, 200, code, body)
			var s OAuthSession
			require.NoError(t, json.Unmarshal([]byte(body), &s))
			assert.Equal(t, "generic:alice", s.UserID)
			assert.Equal(t, c.ID, s.ClientID)

			status, tok2 := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
			require.Equal(t, 200, status, tok2)
			assert.NotEqual(t, tok["refresh_token"], tok2["refresh_token"], "refresh tokens rotate")
			code, _ = e.call(tok2["access_token"].(string))
			assert.Equal(t, 200, code)
		})
	}
}

func TestAuthenticateGivesUpstreamTokenAndRefreshesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	u := e.login(browser(t), c)
	_, tok := e.exchange(c, u.Query().Get("code"))
	at := tok["access_token"].(string)
	req := httptest.NewRequest("GET", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+at)
	s, err := e.p.VerifyRequest(req)
	require.NoError(t, err)
	assert.Equal(t, "up-at-1", s.(*OAuthSession).AccessToken)
	assert.Equal(t, "generic:alice", s.(mcp.Subject).Subject())

	// Expire the stored upstream token: the next request refreshes it upstream.
	claims, err := e.p.jwt.verify(at, time.Now())
	require.NoError(t, err)
	g, err := e.p.loadGrant(context.Background(), claims.GrantID)
	require.NoError(t, err)
	g.Token.Expiry = time.Now().Add(-time.Minute)
	require.NoError(t, e.p.saveGrant(context.Background(), claims.GrantID, g, false))
	s, err = e.p.VerifyRequest(req)
	require.NoError(t, err)
	assert.Equal(t, "up-at-2", s.(*OAuthSession).AccessToken)
}

func TestUpstreamTokensAreEncryptedAtRest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	u := e.login(browser(t), c)
	_, tok := e.exchange(c, u.Query().Get("code"))
	claims, err := e.p.jwt.verify(tok["access_token"].(string), time.Now())
	require.NoError(t, err)
	raw, err := e.p.store.Get(context.Background(), "grant:"+claims.GrantID)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "up-at-1")
	assert.NotContains(t, string(raw), "up-rt")
	_, err = e.p.seal.open("grant:other", raw)
	assert.ErrorIs(t, err, errUnseal, "a ciphertext moved to another key does not decrypt")

	plain := newEnv(t, func(c *OAuthProviderConfig) { c.DisableEncryption = true; c.EncryptionKey = "" })
	c2 := plain.register("none")
	u2 := plain.login(browser(t), c2)
	_, tok2 := plain.exchange(c2, u2.Query().Get("code"))
	claims2, err := plain.p.jwt.verify(tok2["access_token"].(string), time.Now())
	require.NoError(t, err)
	raw2, err := plain.p.store.Get(context.Background(), "grant:"+claims2.GrantID)
	require.NoError(t, err)
	assert.Contains(t, string(raw2), "up-at-1", "encryption off stores plain JSON")
}

// A client registered with client_secret_post that authenticates with
// client_secret_basic is admitted (see authClient): clients in the field
// do this, and tightening the token endpoint must not break them.
func TestClientSecretPostClientMayUseBasic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("client_secret_post")
	basic := func(secret string, form url.Values) (int, map[string]any) {
		req, err := http.NewRequest("POST", e.ts.URL+TokenPath, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(secret))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	u := e.login(browser(t), c)
	st, tok := basic(c.Secret, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"code_verifier": {verifier}, "redirect_uri": {c.Redirect}})
	require.Equal(t, 200, st, "a client_secret_post client using Basic: %v", tok)
	st, out := basic(c.Secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	require.Equal(t, 200, st, "its refresh over Basic: %v", out)
	st, out = basic("wrong", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {out["refresh_token"].(string)}})
	assert.Equal(t, 401, st, "a wrong secret over Basic is refused")
	assert.Equal(t, "invalid_client", out["error"])
}

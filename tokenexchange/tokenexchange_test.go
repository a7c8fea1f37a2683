package tokenexchange_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/tokenexchange"
)

const (
	serverClient = "mcp-server"
	serverSecret = "mcp-server-secret"
)

// user is auth data with a subject and a token at the identity provider.
type user struct{ Name, Token string }

func (u *user) Subject() string { return u.Name }
func (u *user) SubjectToken() (string, string) {
	return u.Token, "urn:ietf:params:oauth:token-type:access_token"
}

// opaqueUser has a token but no subject: it shares nothing.
type opaqueUser struct{ Token string }

func (u *opaqueUser) SubjectToken() (string, string) { return u.Token, "" }

// idp is an identity provider's token endpoint: RFC 8693 exchanges of a
// user's token ("token-of-NAME") for "down-NAME-N", Entra's on-behalf-of
// grant, and refreshes; it records each form.
type idp struct {
	*httptest.Server
	mu        sync.Mutex
	forms     []url.Values
	expiresIn atomic.Int64
	refresh   atomic.Bool // issue refresh tokens
	refuse    atomic.Bool
	n         atomic.Int32
}

func newIdP(t *testing.T) *idp {
	p := &idp{}
	p.expiresIn.Store(3600)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f := r.PostForm
		id, sec, basic := r.BasicAuth()
		if !basic {
			id, sec = f.Get("client_id"), f.Get("client_secret")
		}
		p.mu.Lock()
		p.forms = append(p.forms, f)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fail := func(code string) {
			w.WriteHeader(400)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": "refused by policy"})
		}
		if id != serverClient || sec != serverSecret || p.refuse.Load() {
			fail("invalid_grant")
			return
		}
		var name string
		switch f.Get("grant_type") {
		case "urn:ietf:params:oauth:grant-type:token-exchange":
			name, _ = strings.CutPrefix(f.Get("subject_token"), "token-of-")
		case "urn:ietf:params:oauth:grant-type:jwt-bearer":
			name, _ = strings.CutPrefix(f.Get("assertion"), "token-of-")
		case "refresh_token":
			name, _, _ = strings.Cut(strings.TrimPrefix(f.Get("refresh_token"), "rt-"), "-")
		default:
			fail("unsupported_grant_type")
			return
		}
		resp := map[string]any{"access_token": fmt.Sprintf("down-%s-%d", name, p.n.Add(1)), "token_type": "Bearer",
			"issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "expires_in": p.expiresIn.Load()}
		if p.refresh.Load() {
			resp["refresh_token"] = fmt.Sprintf("rt-%s-%d", name, p.n.Load())
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *idp) grants() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, f := range p.forms {
		out = append(out, f.Get("grant_type"))
	}
	return out
}

// downstream echoes the Authorization header it got.
func downstream(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Header.Get("Authorization"))
	}))
	t.Cleanup(ts.Close)
	return ts
}

// callAs runs the tool "fetch" as auth (in process) and returns its text
// or error.
func callAs(t *testing.T, x *tokenexchange.Exchanger, target string, auth any, scopes ...string) (string, error) {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "x", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(*http.Request) (any, error) { return auth, nil }})
	mcp.AddTool(srv, mcp.Tool{Name: "fetch"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		hc, err := x.Client(c, "https://api.example.com", scopes...)
		if err != nil {
			return "", err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b), nil
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(context.Background(), client.InProcess(h, nil), nil)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(context.Background(), "fetch", nil, nil)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New(res.Text())
	}
	return res.Text(), nil
}

func newExchanger(t *testing.T, p *idp, mod func(*tokenexchange.Config)) *tokenexchange.Exchanger {
	t.Helper()
	cfg := tokenexchange.Config{TokenURL: p.URL, ClientID: serverClient, ClientSecret: serverSecret,
		Logger: slog.New(slog.DiscardHandler)}
	if mod != nil {
		mod(&cfg)
	}
	x, err := tokenexchange.New(cfg)
	require.NoError(t, err)
	return x
}

// TestClientCallsAsTheUser: each user's call reaches the downstream API
// with a token exchanged for that user (RFC 8693: subject token, type,
// audience, scope), and a user's next call reuses it from the cache.
func TestClientCallsAsTheUser(t *testing.T) {
	t.Parallel()
	p, api := newIdP(t), downstream(t)
	x := newExchanger(t, p, nil)
	for _, name := range []string{"alice", "bob", "alice"} {
		got, err := callAs(t, x, api.URL, &user{Name: name, Token: "token-of-" + name}, "read", "read")
		require.NoError(t, err)
		assert.Regexp(t, `^200 Bearer down-`+name+`-\d$`, got)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Len(t, p.forms, 2, "alice's second call used the cached token")
	f := p.forms[0]
	assert.Equal(t, "urn:ietf:params:oauth:grant-type:token-exchange", f.Get("grant_type"))
	assert.Equal(t, "token-of-alice", f.Get("subject_token"))
	assert.Equal(t, "urn:ietf:params:oauth:token-type:access_token", f.Get("subject_token_type"))
	assert.Equal(t, "urn:ietf:params:oauth:token-type:access_token", f.Get("requested_token_type"))
	assert.Equal(t, "https://api.example.com", f.Get("audience"))
	assert.Equal(t, "read", f.Get("scope"))
}

// TestExpiringTokenRefreshedOrExchanged: a token about to expire is
// refreshed with its refresh token when the provider gave one, and
// exchanged again otherwise; one caller without a subject (opaque) is
// never cached.
func TestExpiringTokenRefreshedOrExchanged(t *testing.T) {
	t.Parallel()
	p, api := newIdP(t), downstream(t)
	p.expiresIn.Store(10) // within the 30 s margin: replaced at each use
	x := newExchanger(t, p, nil)
	alice := &user{Name: "alice", Token: "token-of-alice"}
	for range 2 {
		_, err := callAs(t, x, api.URL, alice)
		require.NoError(t, err)
	}
	p.refresh.Store(true)
	for range 2 {
		_, err := callAs(t, x, api.URL, &user{Name: "carol", Token: "token-of-carol"})
		require.NoError(t, err)
	}
	p.expiresIn.Store(3600)
	p.refresh.Store(false)
	for range 2 {
		_, err := callAs(t, x, api.URL, &opaqueUser{Token: "token-of-dave"})
		require.NoError(t, err)
	}
	te := "urn:ietf:params:oauth:grant-type:token-exchange"
	assert.Equal(t, []string{te, te, te, "refresh_token", te, te}, p.grants())
}

// TestEntraOnBehalfOf: the preset asks with Entra's grant: JWT-bearer,
// requested_token_use on_behalf_of, the user's token as the assertion,
// the scopes qualified by the audience, the secret in the form.
func TestEntraOnBehalfOf(t *testing.T) {
	t.Parallel()
	p, api := newIdP(t), downstream(t)
	cfg := tokenexchange.EntraOnBehalfOf("contoso", serverClient, serverSecret)
	assert.Equal(t, "https://login.microsoftonline.com/contoso/oauth2/v2.0/token", cfg.TokenURL)
	cfg.TokenURL = p.URL
	cfg.Logger = slog.New(slog.DiscardHandler)
	x, err := tokenexchange.New(cfg)
	require.NoError(t, err)
	got, err := callAs(t, x, api.URL, &user{Name: "erin", Token: "token-of-erin"}, "User.Read", "offline_access")
	require.NoError(t, err)
	assert.Regexp(t, `^200 Bearer down-erin-\d$`, got)
	_, err = callAs(t, x, api.URL, &user{Name: "erin", Token: "token-of-erin"})
	require.NoError(t, err)
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Len(t, p.forms, 2)
	f := p.forms[0]
	assert.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", f.Get("grant_type"))
	assert.Equal(t, "on_behalf_of", f.Get("requested_token_use"))
	assert.Equal(t, "token-of-erin", f.Get("assertion"))
	assert.Equal(t, "https://api.example.com/User.Read offline_access", f.Get("scope"))
	assert.Equal(t, serverSecret, f.Get("client_secret"))
	assert.Equal(t, "https://api.example.com/.default", p.forms[1].Get("scope"))
}

// TestExchangeRefusalsLeakNothing: an identity provider's refusal reaches
// the tool as an error naming its code, and neither that error nor the
// log holds the user's token or the server's secret; a caller without a
// token is refused before any request.
func TestExchangeRefusalsLeakNothing(t *testing.T) {
	t.Parallel()
	p, api := newIdP(t), downstream(t)
	p.refuse.Store(true)
	var logs bytes.Buffer
	var lmu sync.Mutex
	x := newExchanger(t, p, func(c *tokenexchange.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &lmu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	secretToken := "token-of-frank-PLANTED-SECRET"
	_, err := callAs(t, x, api.URL, &user{Name: "frank", Token: secretToken})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid_grant")
	lmu.Lock()
	out := logs.String()
	lmu.Unlock()
	assert.Contains(t, out, "invalid_grant")
	for _, s := range []string{secretToken, serverSecret} {
		assert.NotContains(t, err.Error(), s)
		assert.NotContains(t, out, s)
	}

	p.refuse.Store(false)
	before := len(p.grants())
	for _, auth := range []any{nil, "a string", &user{Name: "gina"}} {
		_, err := callAs(t, x, api.URL, auth)
		assert.ErrorContains(t, err, "no token at the identity provider")
	}
	assert.Len(t, p.grants(), before, "nothing asked of the provider")
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestNoTokenAcrossOrigins: a downstream redirect to another origin is
// not followed, so the user's token never reaches a host the tool did
// not name.
func TestNoTokenAcrossOrigins(t *testing.T) {
	t.Parallel()
	p := newIdP(t)
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	t.Cleanup(redirecting.Close)
	x := newExchanger(t, p, nil)
	got, err := callAs(t, x, redirecting.URL, &user{Name: "hal", Token: "token-of-hal"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(got, "302 "), got)
	assert.Nil(t, leaked.Load(), "the other origin was never asked")
}

// TestConfigRefused: a configuration without endpoint or client, with an
// http endpoint on another host, or an unknown client authentication is
// refused.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg  tokenexchange.Config
		want string
	}{
		{tokenexchange.Config{ClientID: "a", ClientSecret: "b"}, "TokenURL is required"},
		{tokenexchange.Config{TokenURL: "http://idp.example.com/token", ClientID: "a", ClientSecret: "b"}, "https"},
		{tokenexchange.Config{TokenURL: "https://idp.example.com/token"}, "ClientID and ClientSecret"},
		{tokenexchange.Config{TokenURL: "https://idp.example.com/token", ClientID: "a", ClientSecret: "b", AuthMethod: "private_key_jwt"}, "AuthMethod"},
	} {
		_, err := tokenexchange.New(tt.cfg)
		assert.ErrorContains(t, err, tt.want)
	}
}

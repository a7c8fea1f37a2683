package resourceserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/resourceserver"
)

// server is an MCP server behind v, with a whoami tool that returns the
// caller's session, served over httptest.
func server(t *testing.T, v *resourceserver.Verifier) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(mcpHandler(t, v))
	t.Cleanup(ts.Close)
	return ts
}

// mcpHandler is server's handler: the MCP endpoint at /mcp and the
// metadata.
func mcpHandler(t *testing.T, v *resourceserver.Verifier) http.Handler {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "rs", Version: "1.0.0", Auth: v, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, ok := c.Session.(*resourceserver.Session)
		if !ok {
			return "", fmt.Errorf("no session")
		}
		b, _ := json.Marshal(map[string]any{"sub": s.Sub, "scopes": s.Scopes, "client": s.ClientID, "email": s.Claims["email"]})
		return string(b), nil
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return mcphttp.NewMux(h, nil)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an MCP message with the given Authorization header (none if
// empty) and returns the answer.
func post(t *testing.T, ts *httptest.Server, authz, sid, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return resp, string(b)
}

func newVerifier(t *testing.T, is *issuer, mod func(*resourceserver.Config)) *resourceserver.Verifier {
	t.Helper()
	cfg := resourceserver.Config{Issuer: is.url, Resource: resource, RequiredScopes: []string{"mcp:tools"}}
	if mod != nil {
		mod(&cfg)
	}
	v, err := resourceserver.New(context.Background(), cfg)
	require.NoError(t, err)
	return v
}

const metaURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

// TestJWTRefusals: each way a JWT can be wrong is a 401 with
// error="invalid_token", a description saying which, the metadata URL
// and the scope hint; a token without the required scope is a 403
// insufficient_scope naming it; no token is the bare challenge.
func TestJWTRefusals(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.addKey("stranger", false) // signs, never published
	ts := server(t, newVerifier(t, is, nil))
	with := func(mod func(c map[string]any)) string {
		c := is.claims()
		mod(c)
		return "Bearer " + is.sign("k1", c)
	}
	hs256, err := jwt.Signed(mustSigner(t, jose.HS256, []byte(strings.Repeat("k", 32)))).Claims(is.claims()).Serialize()
	require.NoError(t, err)
	tests := []struct {
		name, authz string
		status      int
		challenge   string
		desc        string // a substring of error_description
	}{
		{"no token", "", 401, `Bearer resource_metadata="` + metaURL + `", scope="mcp:tools"`, ""},
		{"another scheme", "Basic YWRhOnB3", 401, `Bearer resource_metadata="` + metaURL + `", error="invalid_token", error_description="the Authorization header must be Bearer (or DPoP) followed by one access token", scope="mcp:tools"`, "must be Bearer (or DPoP)"},
		{"not a JWT", "Bearer abc.def", 401, "", "not a JWT"},
		{"wrong audience", with(func(c map[string]any) { c["aud"] = "https://other.example.com/api" }), 401, "", "not for this resource"},
		{"audience list without this resource", with(func(c map[string]any) { c["aud"] = []string{"a", "b"} }), 401, "", "not for this resource"},
		{"wrong issuer", with(func(c map[string]any) { c["iss"] = "https://evil.example.com" }), 401, "", "not issued by"},
		{"expired", with(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }), 401, "", "expired"},
		{"no exp", with(func(c map[string]any) { delete(c, "exp") }), 401, "", "no expiry"},
		{"not yet valid", with(func(c map[string]any) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), 401, "", "not valid yet"},
		{"exp of the wrong type", with(func(c map[string]any) { c["exp"] = "tomorrow" }), 401, "", "claims are malformed"},
		{"no subject", with(func(c map[string]any) { delete(c, "sub") }), 401, "", "no subject"},
		{"key the JWKS does not list", "Bearer " + is.sign("stranger", is.claims()), 401, "", "signature does not verify"},
		{"HMAC signed", "Bearer " + hs256, 401, "", "accepted algorithm"},
		{"insufficient scope", with(func(c map[string]any) { c["scope"] = "profile" }), 403,
			`Bearer resource_metadata="` + metaURL + `", error="insufficient_scope", error_description="the access token lacks the scope mcp:tools", scope="mcp:tools"`, "lacks the scope mcp:tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := post(t, ts, tt.authz, "", initBody)
			require.Equal(t, tt.status, resp.StatusCode, body)
			ch := resp.Header.Get("WWW-Authenticate")
			if tt.challenge != "" {
				assert.Equal(t, tt.challenge, ch)
			}
			assert.Contains(t, ch, `resource_metadata="`+metaURL+`"`)
			assert.Contains(t, ch, `scope="mcp:tools"`)
			if tt.status == 401 && tt.authz != "" {
				assert.Contains(t, ch, `error="invalid_token"`)
			}
			if tt.desc != "" {
				var b map[string]string
				require.NoError(t, json.Unmarshal([]byte(body), &b))
				assert.Contains(t, b["error_description"], tt.desc)
				assert.Contains(t, ch, tt.desc)
				assert.NotContains(t, body, strings.TrimPrefix(tt.authz, "Bearer "), "never the token")
			}
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no session for a refused token")
		})
	}
}

func mustSigner(t *testing.T, alg jose.SignatureAlgorithm, key any) jose.Signer {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	require.NoError(t, err)
	return s
}

// TestJWTAdmitted: a valid token opens a session, and the tool sees the
// subject, scopes (scope, or scp as list or string), client and claims.
func TestJWTAdmitted(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	ts := server(t, newVerifier(t, is, nil))
	tests := []struct {
		name   string
		mod    func(map[string]any)
		scopes []any
	}{
		{"scope string", func(map[string]any) {}, []any{"mcp:tools", "profile"}},
		{"scp list", func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp:tools", "x"} }, []any{"mcp:tools", "x"}},
		{"scp string (Entra)", func(c map[string]any) { delete(c, "scope"); c["scp"] = "mcp:tools y" }, []any{"mcp:tools", "y"}},
		{"aud list and expired within the leeway", func(c map[string]any) {
			c["aud"] = []string{"other", resource}
			c["exp"] = time.Now().Add(-10 * time.Second).Unix()
		}, []any{"mcp:tools", "profile"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := is.claims()
			tt.mod(c)
			authz := "Bearer " + is.sign("k1", c)
			resp, body := post(t, ts, authz, "", initBody)
			require.Equal(t, 200, resp.StatusCode, body)
			sid := resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, sid)
			resp, _ = post(t, ts, authz, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			require.Equal(t, 202, resp.StatusCode)
			resp, body = post(t, ts, authz, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
			require.Equal(t, 200, resp.StatusCode, body)
			got := toolText(t, body)
			var who map[string]any
			require.NoError(t, json.Unmarshal([]byte(got), &who), got)
			assert.Equal(t, "user-42", who["sub"])
			assert.Equal(t, tt.scopes, who["scopes"])
			assert.Equal(t, "client-7", who["client"])
			assert.Equal(t, "ada@example.com", who["email"])
		})
	}
}

// toolText returns the text of the tools/call result in an answer (JSON
// or one SSE event).
func toolText(t *testing.T, body string) string {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body = strings.TrimSpace(strings.SplitN(body[i+6:], "\n", 2)[0])
	}
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	require.False(t, m.Result.IsError, body)
	require.NotEmpty(t, m.Result.Content, body)
	return m.Result.Content[0].Text
}

// TestKeyRotation: a token signed with a key added to the JWKS after the
// verifier cached it is admitted (the unknown kid makes it refetch); a
// key the JWKS no longer lists is refused once the set was refetched.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, nil)
	ctx := context.Background()
	_, err := v.Verify(ctx, is.sign("k1", is.claims()))
	require.NoError(t, err)
	hits := is.jwksHits.Load()
	_, err = v.Verify(ctx, is.sign("k1", is.claims()))
	require.NoError(t, err)
	assert.Equal(t, hits, is.jwksHits.Load(), "a known key needs no fetch")

	is.addKey("k2", false)
	is.publish("k2") // k1 rotated away, k2 new
	s, err := v.Verify(ctx, is.sign("k2", is.claims()))
	require.NoError(t, err, "the new key is fetched")
	assert.Equal(t, "user-42", s.Sub)
	assert.Greater(t, is.jwksHits.Load(), hits)

	_, err = v.Verify(ctx, is.sign("k1", is.claims()))
	require.ErrorIs(t, err, mcp.ErrInvalidToken, "the rotated-away key is refused")
	var ae *mcp.AuthError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Description, "does not verify")
}

// TestKeyRotationFreshVerifier: a verifier that first meets the JWKS
// after k1 was removed refuses k1 tokens.
func TestKeyRotationFreshVerifier(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	tok := is.sign("k1", is.claims())
	is.addKey("k2", true)
	is.publish("k2")
	_, err := newVerifier(t, is, nil).Verify(context.Background(), tok)
	require.ErrorIs(t, err, mcp.ErrInvalidToken)
}

// TestUnknownKidsThrottled: tokens naming key ids the issuer never
// published cannot make the verifier refetch the JWKS more than a burst.
func TestUnknownKidsThrottled(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, nil)
	for i := range 20 {
		kid := fmt.Sprintf("junk-%d", i)
		is.addKey(kid, false)
		_, err := v.Verify(context.Background(), is.sign(kid, is.claims()))
		require.ErrorIs(t, err, mcp.ErrInvalidToken)
	}
	assert.LessOrEqual(t, is.jwksHits.Load(), int32(2), "20 unknown kids, at most the burst of fetches (2)")
	_, err := v.Verify(context.Background(), is.sign("k1", is.claims()))
	require.NoError(t, err, "the real key still works (it was fetched with the burst)")
}

// TestJWKSUnreachable: with the key set unreachable a token is refused
// with 503, never admitted.
func TestJWKSUnreachable(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, nil)
	is.setDown(true)
	ts := server(t, v)
	resp, body := post(t, ts, "Bearer "+is.sign("k1", is.claims()), "", initBody)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
	assert.Equal(t, "10", resp.Header.Get("Retry-After"))
	assert.Contains(t, body, "temporarily_unavailable")
	is.setDown(false)
	resp, body = post(t, ts, "Bearer "+is.sign("k1", is.claims()), "", initBody)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
}

// TestNewFailsClosed: a config that cannot verify is an error at
// construction.
func TestNewFailsClosed(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	tests := []struct {
		name string
		cfg  resourceserver.Config
		want string
	}{
		{"no issuer", resourceserver.Config{Resource: resource}, "Issuer is required"},
		{"no resource", resourceserver.Config{Issuer: is.url}, "Resource is required"},
		{"relative resource", resourceserver.Config{Issuer: is.url, Resource: "/mcp"}, "not an absolute"},
		{"issuer unreachable", resourceserver.Config{Issuer: "http://127.0.0.1:1", Resource: resource}, "cannot read the metadata"},
		{"issuer mismatch", resourceserver.Config{Issuer: is.url + "/", Resource: resource}, "names issuer"},
		{"HMAC algorithm", resourceserver.Config{Issuer: is.url, Resource: resource, JWKSURL: is.url + "/jwks",
			SigningAlgorithms: []string{"HS256"}}, "not an asymmetric"},
		{"empty audience", resourceserver.Config{Issuer: is.url, Resource: resource, Audiences: []string{""}}, "empty value"},
		{"huge leeway", resourceserver.Config{Issuer: is.url, Resource: resource, Leeway: time.Hour}, "Leeway"},
		{"DPoP with an HMAC algorithm", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{Algorithms: []string{"ES256", "HS256"}}}, "not an asymmetric"},
		{"DPoP with none", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{Algorithms: []string{"none"}}}, "not an asymmetric"},
		{"DPoP public URL relative", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{PublicURL: "/api"}}, "PublicURL"},
		{"DPoP public URL with a query", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{PublicURL: "https://h/api?x=1"}}, "query"},
		{"DPoP proof lifetime of an hour", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{ProofLifetime: time.Hour}}, "ProofLifetime"},
		{"DPoP nonce key too short", resourceserver.Config{Issuer: is.url, Resource: resource,
			DPoP: &resourceserver.DPoPConfig{NonceKey: []byte("short")}}, "NonceKey"},
		{"introspection endpoint not a URL", resourceserver.Config{Issuer: is.url, Resource: resource,
			Introspection: &resourceserver.IntrospectionConfig{Endpoint: "not a url"}}, "not an absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := resourceserver.New(context.Background(), tt.cfg)
			require.Error(t, err)
			assert.Nil(t, v)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestMetadata: both well-known paths serve the protected-resource
// metadata naming the external issuer and the scopes.
func TestMetadata(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	ts := server(t, newVerifier(t, is, func(c *resourceserver.Config) {
		c.ScopesSupported = []string{"mcp:tools", "mcp:admin"}
		c.ResourceName = "Acme MCP"
	}))
	for path, res := range map[string]string{
		"/.well-known/oauth-protected-resource/mcp": resource,
		"/.well-known/oauth-protected-resource":     "https://mcp.example.com",
	} {
		resp, err := ts.Client().Get(ts.URL + path)
		require.NoError(t, err)
		var md map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&md))
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, path)
		assert.Equal(t, res, md["resource"], path)
		assert.Equal(t, []any{is.url}, md["authorization_servers"])
		assert.Equal(t, []any{"mcp:tools", "mcp:admin"}, md["scopes_supported"])
		assert.Equal(t, []any{"header"}, md["bearer_methods_supported"])
		assert.Equal(t, "Acme MCP", md["resource_name"])
	}
}

// TestIntrospection: an active token is admitted with the answer's
// claims; an inactive one, or one for another audience, is refused; an
// answer is cached (one call for many requests) but not past its TTL,
// nor past the token's exp; the cache holds at most CacheSize answers;
// an unreachable endpoint is 503.
func TestIntrospection(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	clock := &fakeClock{t: time.Now()}
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec, CacheSize: 2, CacheTTL: time.Minute}
		c.Now = clock.now
	})
	ctx := context.Background()
	claims := func(exp time.Time) map[string]any {
		c := is.claims()
		c["exp"] = exp.Unix()
		return c
	}

	t.Run("active, then cached", func(t *testing.T) {
		is.activate("opaque-1", claims(clock.now().Add(time.Hour)))
		before := is.introHits.Load()
		for range 3 {
			s, err := v.Verify(ctx, "opaque-1")
			require.NoError(t, err)
			assert.Equal(t, "user-42", s.Sub)
			assert.True(t, s.HasScope("mcp:tools"))
		}
		assert.Equal(t, before+1, is.introHits.Load(), "one introspection for three requests")
	})
	t.Run("cache expires after its TTL: revocation seen", func(t *testing.T) {
		is.deactivate("opaque-1")
		_, err := v.Verify(ctx, "opaque-1")
		require.NoError(t, err, "still cached")
		clock.advance(61 * time.Second)
		_, err = v.Verify(ctx, "opaque-1")
		require.ErrorIs(t, err, mcp.ErrInvalidToken)
		var ae *mcp.AuthError
		require.ErrorAs(t, err, &ae)
		assert.Contains(t, ae.Description, "not active")
	})
	t.Run("never cached past exp", func(t *testing.T) {
		is.activate("opaque-2", claims(clock.now().Add(20*time.Second)))
		_, err := v.Verify(ctx, "opaque-2")
		require.NoError(t, err)
		clock.advance(21 * time.Second)
		before := is.introHits.Load()
		_, err = v.Verify(ctx, "opaque-2")
		// The leeway (30 s) still admits it, but only after asking again.
		require.NoError(t, err)
		assert.Equal(t, before+1, is.introHits.Load(), "the answer was dropped at exp")
		clock.advance(time.Minute)
		_, err = v.Verify(ctx, "opaque-2")
		require.ErrorIs(t, err, mcp.ErrInvalidToken, "expired")
	})
	t.Run("cache size bound", func(t *testing.T) {
		for _, tok := range []string{"a", "b", "c"} {
			is.activate(tok, claims(clock.now().Add(time.Hour)))
			_, err := v.Verify(ctx, tok)
			require.NoError(t, err)
		}
		before := is.introHits.Load()
		_, err := v.Verify(ctx, "c")
		require.NoError(t, err)
		_, err = v.Verify(ctx, "b")
		require.NoError(t, err)
		assert.Equal(t, before, is.introHits.Load(), "b and c are cached")
		_, err = v.Verify(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, before+1, is.introHits.Load(), "a was evicted (size 2)")
	})
	t.Run("inactive", func(t *testing.T) {
		_, err := v.Verify(ctx, "never-issued")
		require.ErrorIs(t, err, mcp.ErrInvalidToken)
	})
	t.Run("another audience", func(t *testing.T) {
		c := claims(clock.now().Add(time.Hour))
		c["aud"] = "https://other.example.com"
		is.activate("foreign", c)
		_, err := v.Verify(ctx, "foreign")
		require.ErrorIs(t, err, mcp.ErrInvalidToken)
	})
	t.Run("insufficient scope", func(t *testing.T) {
		c := claims(clock.now().Add(time.Hour))
		c["scope"] = "profile"
		is.activate("narrow", c)
		_, err := v.Verify(ctx, "narrow")
		require.ErrorIs(t, err, mcp.ErrInsufficientScope)
	})
	t.Run("endpoint down", func(t *testing.T) {
		is.activate("opaque-3", claims(clock.now().Add(time.Hour)))
		is.setDown(true)
		defer is.setDown(false)
		_, err := v.Verify(ctx, "opaque-3")
		require.ErrorIs(t, err, mcp.ErrAuthUnavailable)
	})
}

// TestIntrospectionWrongClientSecret: the endpoint refusing the resource
// server's own credentials is an outage (503), not the caller's fault.
func TestIntrospectionWrongClientSecret(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: "wrong"}
	})
	is.activate("opaque", is.claims())
	_, err := v.Verify(context.Background(), "opaque")
	require.ErrorIs(t, err, mcp.ErrAuthUnavailable)
	assert.NotContains(t, err.Error(), "wrong", "the secret is not in the error")
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestBearerToken: the header forms RFC 6750 §2.1 allows, and the rest.
func TestBearerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		values  []string
		want    string
		wantErr error
	}{
		{"plain", []string{"Bearer abc.DEF-_~+/=="}, "abc.DEF-_~+/==", nil},
		{"scheme in any case", []string{"bearer tok"}, "tok", nil},
		{"none", nil, "", resourceserver.ErrNoToken},
		{"two headers", []string{"Bearer a", "Bearer b"}, "", resourceserver.ErrMalformedHeader},
		{"basic", []string{"Basic abc"}, "", resourceserver.ErrMalformedHeader},
		{"empty token", []string{"Bearer "}, "", resourceserver.ErrMalformedHeader},
		{"two spaces", []string{"Bearer  tok"}, "", resourceserver.ErrMalformedHeader},
		{"space inside", []string{"Bearer a b"}, "", resourceserver.ErrMalformedHeader},
		{"only padding", []string{"Bearer =="}, "", resourceserver.ErrMalformedHeader},
		{"padding inside", []string{"Bearer a=b"}, "", resourceserver.ErrMalformedHeader},
		{"quote", []string{`Bearer a"b`}, "", resourceserver.ErrMalformedHeader},
		{"too long", []string{"Bearer " + strings.Repeat("a", 16<<10+1)}, "", resourceserver.ErrMalformedHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("Authorization", v)
			}
			got, err := resourceserver.BearerToken(h)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

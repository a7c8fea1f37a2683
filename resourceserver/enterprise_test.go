package resourceserver_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/resourceserver"
	"github.com/mcpchain/mcp/resourceserver/redisreplay"
)

const (
	xaaClient = "xaa-client"
	xaaSecret = "xaa-secret-0123456789"
	localAS   = "https://mcp.example.com" // the default EnterpriseAuth.Issuer of resource
)

// jag returns the claims of a valid ID-JAG of idp for the local
// authorization server, resource and xaaClient.
func jag(idp *issuer) map[string]any {
	now := time.Now()
	return map[string]any{"iss": idp.url, "sub": "user-42", "aud": localAS, "resource": resource,
		"client_id": xaaClient, "jti": randomID(), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"scope": "mcp:tools", "email": "ada@example.com"}
}

func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signJAG signs claims with idp's key kid and the JWS typ header typ
// (none when empty).
func signJAG(t *testing.T, idp *issuer, kid, typ string, claims map[string]any) string {
	t.Helper()
	idp.mu.Lock()
	k := idp.keys[kid]
	idp.mu.Unlock()
	require.NotNil(t, k, kid)
	opts := (&jose.SignerOptions{}).WithHeader("kid", kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(algOf(k)), Key: k}, opts)
	require.NoError(t, err)
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	require.NoError(t, err)
	return tok
}

// enterpriseVerifier is a resource server of is (the provider) that is
// also the authorization server of enterprise-managed authorization with
// idp trusted.
func enterpriseVerifier(t *testing.T, is, idp *issuer, mod func(*resourceserver.EnterpriseAuth)) *resourceserver.Verifier {
	t.Helper()
	ea := &resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: idp.url}},
		Clients: []resourceserver.AssertionClient{{ID: xaaClient, Secret: xaaSecret}}}
	if mod != nil {
		mod(ea)
	}
	return newVerifier(t, is, func(c *resourceserver.Config) {
		c.EnterpriseAuth = ea
		c.ScopesSupported = []string{"mcp:tools", "profile"}
	})
}

// tokenRequest posts form to the local token endpoint with Basic
// credentials (none when id is empty) and returns the status and the
// decoded answer.
func tokenRequest(t *testing.T, ts *httptest.Server, id, secret string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

func jagForm(assertion string) url.Values {
	return url.Values{"grant_type": {resourceserver.JWTBearerGrant}, "assertion": {assertion}}
}

// TestEnterpriseAuthLogin: a client presents an ID-JAG of a trusted IdP
// at the resource server's own token endpoint and calls a tool with the
// token; the metadata names the local authorization server after the
// provider, and its document advertises the JWT-bearer grant.
func TestEnterpriseAuthLogin(t *testing.T) {
	t.Parallel()
	is, idp := newIssuer(t), newIssuer(t)
	ts := server(t, enterpriseVerifier(t, is, idp, nil))

	resp, err := ts.Client().Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	var prm map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&prm))
	resp.Body.Close()
	assert.Equal(t, []any{is.url, localAS}, prm["authorization_servers"])
	resp, err = ts.Client().Get(ts.URL + "/.well-known/oauth-authorization-server")
	require.NoError(t, err)
	var asm map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&asm))
	resp.Body.Close()
	assert.Equal(t, localAS, asm["issuer"])
	assert.Equal(t, localAS+"/oauth/token", asm["token_endpoint"])
	assert.Equal(t, []any{resourceserver.JWTBearerGrant}, asm["grant_types_supported"])

	status, tok := tokenRequest(t, ts, xaaClient, xaaSecret, jagForm(signJAG(t, idp, "k1", "oauth-id-jag+jwt", jag(idp))))
	require.Equal(t, 200, status, tok)
	assert.Equal(t, "Bearer", tok["token_type"])
	assert.Equal(t, "mcp:tools", tok["scope"])
	assert.EqualValues(t, 3600, tok["expires_in"])
	assert.NotContains(t, tok, "refresh_token")

	authz := "Bearer " + tok["access_token"].(string)
	resp, body := post(t, ts, authz, "", initBody)
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(t, ts, authz, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, body = post(t, ts, authz, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	require.Equal(t, 200, resp.StatusCode, body)
	var who map[string]any
	require.NoError(t, json.Unmarshal([]byte(toolText(t, body)), &who))
	assert.Equal(t, idp.url+"|user-42", who["sub"], "the user is the IdP's subject qualified by its issuer")
	assert.Equal(t, xaaClient, who["client"])
	assert.Equal(t, []any{"mcp:tools"}, who["scopes"])

	// The provider's own tokens are still accepted.
	resp, body = post(t, ts, "Bearer "+is.sign("k1", is.claims()), "", initBody)
	require.Equal(t, 200, resp.StatusCode, body)
}

// TestEnterpriseAuthRefusals: every check SEP-990 asks of an ID-JAG
// (typ, signature by a trusted IdP's key, iss, aud, resource, client_id,
// sub, jti, exp, iat, nbf, lifetime, scopes) and of the token request
// (client authentication, grant type, resource), each refused with its
// OAuth error and a description saying which, never the assertion.
func TestEnterpriseAuthRefusals(t *testing.T) {
	t.Parallel()
	is, idp, other := newIssuer(t), newIssuer(t), newIssuer(t)
	idp.addKey("stranger", false) // signs, never published
	ts := server(t, enterpriseVerifier(t, is, idp, nil))
	signed := func(mod func(map[string]any)) string {
		c := jag(idp)
		mod(c)
		return signJAG(t, idp, "k1", "oauth-id-jag+jwt", c)
	}
	hs, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(strings.Repeat("k", 32))},
		(&jose.SignerOptions{}).WithType("oauth-id-jag+jwt"))
	require.NoError(t, err)
	hs256, err := jwt.Signed(hs).Claims(jag(idp)).Serialize()
	require.NoError(t, err)
	now := time.Now()
	tests := []struct {
		name      string
		id, sec   string
		form      url.Values
		status    int
		code      string
		desc      string
		assertion string // never in the answer
	}{
		{name: "typ at+jwt", form: jagForm(signJAG(t, idp, "k1", "at+jwt", jag(idp))), status: 400, code: "invalid_grant", desc: "typ header"},
		{name: "no typ", form: jagForm(signJAG(t, idp, "k1", "", jag(idp))), status: 400, code: "invalid_grant", desc: "typ header"},
		{name: "untrusted issuer", form: jagForm(func() string {
			c := jag(idp)
			c["iss"] = other.url
			return signJAG(t, other, "k1", "oauth-id-jag+jwt", c)
		}()), status: 400, code: "invalid_grant", desc: "not a trusted identity provider"},
		{name: "trusted issuer, key it does not publish", form: jagForm(signJAG(t, idp, "stranger", "oauth-id-jag+jwt", jag(idp))),
			status: 400, code: "invalid_grant", desc: "does not publish"},
		{name: "HMAC signed", form: jagForm(hs256), status: 400, code: "invalid_grant", desc: "accepted algorithm"},
		{name: "encrypted", form: jagForm("a.b.c.d.e"), status: 400, code: "invalid_grant", desc: "encrypted assertions"},
		{name: "wrong audience", form: jagForm(signed(func(c map[string]any) { c["aud"] = "https://other-as.example.com" })),
			status: 400, code: "invalid_grant", desc: "not for this authorization server"},
		{name: "audience list without this server", form: jagForm(signed(func(c map[string]any) { c["aud"] = []string{"a", resource} })),
			status: 400, code: "invalid_grant", desc: "not for this authorization server"},
		{name: "another resource", form: jagForm(signed(func(c map[string]any) { c["resource"] = "https://other.example.com/mcp" })),
			status: 400, code: "invalid_grant", desc: "another resource"},
		{name: "resource list with another", form: jagForm(signed(func(c map[string]any) { c["resource"] = []string{resource, "https://b.example/mcp"} })),
			status: 400, code: "invalid_grant", desc: "another resource"},
		{name: "no resource", form: jagForm(signed(func(c map[string]any) { delete(c, "resource") })), status: 400, code: "invalid_grant", desc: "no resource"},
		{name: "issued to another client", form: jagForm(signed(func(c map[string]any) { c["client_id"] = "other-client" })),
			status: 400, code: "invalid_grant", desc: "another client"},
		{name: "no client_id", form: jagForm(signed(func(c map[string]any) { delete(c, "client_id") })), status: 400, code: "invalid_grant", desc: "names no client"},
		{name: "no sub", form: jagForm(signed(func(c map[string]any) { delete(c, "sub") })), status: 400, code: "invalid_grant", desc: "no subject"},
		{name: "no jti", form: jagForm(signed(func(c map[string]any) { delete(c, "jti") })), status: 400, code: "invalid_grant", desc: "no jti"},
		{name: "no exp", form: jagForm(signed(func(c map[string]any) { delete(c, "exp") })), status: 400, code: "invalid_grant", desc: "no expiry"},
		{name: "expired", form: jagForm(signed(func(c map[string]any) {
			c["iat"], c["exp"] = now.Add(-10*time.Minute).Unix(), now.Add(-time.Minute).Unix()
		})), status: 400, code: "invalid_grant", desc: "expired"},
		{name: "no iat", form: jagForm(signed(func(c map[string]any) { delete(c, "iat") })), status: 400, code: "invalid_grant", desc: "no issue time"},
		{name: "issued in the future", form: jagForm(signed(func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() })),
			status: 400, code: "invalid_grant", desc: "future"},
		{name: "not valid yet", form: jagForm(signed(func(c map[string]any) { c["nbf"] = now.Add(time.Hour).Unix() })),
			status: 400, code: "invalid_grant", desc: "not valid yet"},
		{name: "lives a day", form: jagForm(signed(func(c map[string]any) { c["exp"] = now.Add(24 * time.Hour).Unix() })),
			status: 400, code: "invalid_grant", desc: "short-lived"},
		{name: "a scope the server does not offer", form: jagForm(signed(func(c map[string]any) { c["scope"] = "mcp:tools admin" })),
			status: 400, code: "invalid_grant", desc: "does not offer"},
		{name: "aud of the wrong type", form: jagForm(signed(func(c map[string]any) { c["aud"] = 7 })), status: 400, code: "invalid_grant", desc: "malformed"},
		{name: "no assertion", form: url.Values{"grant_type": {resourceserver.JWTBearerGrant}}, status: 400, code: "invalid_request", desc: "assertion is required"},
		{name: "another grant type", form: url.Values{"grant_type": {"client_credentials"}}, status: 400, code: "unsupported_grant_type", desc: "JWT-bearer"},
		{name: "another resource asked for", form: func() url.Values {
			f := jagForm(signed(func(map[string]any) {}))
			f.Set("resource", "https://other.example.com/mcp")
			return f
		}(), status: 400, code: "invalid_target", desc: "resource must be"},
		{name: "wrong secret", id: xaaClient, sec: "not-the-secret-at-all", form: jagForm(signed(func(map[string]any) {})),
			status: 401, code: "invalid_client", desc: "wrong client_secret"},
		{name: "unknown client", id: "someone", sec: xaaSecret, form: jagForm(signed(func(map[string]any) {})),
			status: 401, code: "invalid_client", desc: "unknown client"},
		{name: "public client", id: "-", form: func() url.Values {
			f := jagForm(signed(func(map[string]any) {}))
			f.Set("client_id", xaaClient)
			return f
		}(), status: 401, code: "invalid_client", desc: "confidential"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, sec := tt.id, tt.sec
			if id == "" {
				id, sec = xaaClient, xaaSecret
			}
			if id == "-" {
				id = ""
			}
			status, body := tokenRequest(t, ts, id, sec, tt.form)
			assert.Equal(t, tt.status, status, body)
			assert.Equal(t, tt.code, body["error"], body)
			assert.Contains(t, body["error_description"], tt.desc)
			if a := tt.form.Get("assertion"); len(a) > 20 {
				b, _ := json.Marshal(body)
				assert.NotContains(t, string(b), a, "never the assertion")
			}
		})
	}
}

// TestEnterpriseAuthReplay: an ID-JAG is accepted once; presented again
// (the same, or by a replica sharing a Redis replay cache) it is refused
// with invalid_grant, and a refused one was not spent.
func TestEnterpriseAuthReplay(t *testing.T) {
	t.Parallel()
	is, idp := newIssuer(t), newIssuer(t)
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	shared := func(ea *resourceserver.EnterpriseAuth) {
		ea.ReplayCache = redisreplay.New(rdb, "")
		ea.SigningKey = []byte(strings.Repeat("s", 32))
	}
	a, b := server(t, enterpriseVerifier(t, is, idp, shared)), server(t, enterpriseVerifier(t, is, idp, shared))

	c := jag(idp)
	assertion := signJAG(t, idp, "k1", "oauth-id-jag+jwt", c)
	// Refused for its client first: nothing is spent.
	status, _ := tokenRequest(t, a, xaaClient, "wrong-secret-0123456789", jagForm(assertion))
	require.Equal(t, 401, status)
	status, body := tokenRequest(t, a, xaaClient, xaaSecret, jagForm(assertion))
	require.Equal(t, 200, status, body)
	for _, ts := range []*httptest.Server{a, b} {
		status, body = tokenRequest(t, ts, xaaClient, xaaSecret, jagForm(assertion))
		assert.Equal(t, 400, status)
		assert.Equal(t, "invalid_grant", body["error"])
		assert.Contains(t, body["error_description"], "already used")
	}
	// The token of replica a is good at b (one SigningKey).
	resp, got := post(t, b, "Bearer "+tokenOf(t, a, idp), "", initBody)
	assert.Equal(t, 200, resp.StatusCode, got)
}

func tokenOf(t *testing.T, ts *httptest.Server, idp *issuer) string {
	t.Helper()
	status, body := tokenRequest(t, ts, xaaClient, xaaSecret, jagForm(signJAG(t, idp, "k1", "oauth-id-jag+jwt", jag(idp))))
	require.Equal(t, 200, status, body)
	return body["access_token"].(string)
}

// TestEnterpriseAuthScopes: the scopes issued are those asked for that
// the assertion grants (SEP-990 §6.2.1), all it grants when the request
// names none, and, for an assertion without a scope claim, those asked
// for that the server offers.
func TestEnterpriseAuthScopes(t *testing.T) {
	t.Parallel()
	is, idp := newIssuer(t), newIssuer(t)
	ts := server(t, enterpriseVerifier(t, is, idp, nil))
	tests := []struct {
		name, claim, request string
		noClaim              bool
		want                 any
	}{
		{name: "request narrows", claim: "mcp:tools profile", request: "mcp:tools", want: "mcp:tools"},
		{name: "request names none", claim: "mcp:tools profile", want: "mcp:tools profile"},
		{name: "request asks for more", claim: "profile", request: "mcp:tools profile", want: "profile"},
		{name: "nothing in common", claim: "profile", request: "mcp:tools", want: nil},
		{name: "no scope claim", noClaim: true, request: "mcp:tools admin", want: "mcp:tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := jag(idp)
			c["scope"] = tt.claim
			if tt.noClaim {
				delete(c, "scope")
			}
			f := jagForm(signJAG(t, idp, "k1", "oauth-id-jag+jwt", c))
			if tt.request != "" {
				f.Set("scope", tt.request)
			}
			status, body := tokenRequest(t, ts, xaaClient, xaaSecret, f)
			require.Equal(t, 200, status, body)
			assert.Equal(t, tt.want, body["scope"])
		})
	}
}

// TestEnterpriseAuthIdPDown: an IdP whose keys cannot be read is a 503
// temporarily_unavailable, never a token; and its metadata is read at
// most once per 15 s however many assertions name it.
func TestEnterpriseAuthIdPDown(t *testing.T) {
	t.Parallel()
	is, idp := newIssuer(t), newIssuer(t)
	ts := server(t, enterpriseVerifier(t, is, idp, nil))
	idp.setDown(true)
	status, body := tokenRequest(t, ts, xaaClient, xaaSecret, jagForm(signJAG(t, idp, "k1", "oauth-id-jag+jwt", jag(idp))))
	assert.Equal(t, 503, status)
	assert.Equal(t, "temporarily_unavailable", body["error"])

	// The IdP without metadata: discovery fails, and is not repeated.
	gone := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(gone.Close)
	var hits int
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hits++
		return http.DefaultTransport.RoundTrip(r)
	})}
	av, err := resourceserver.NewAssertionVerifier(resourceserver.AssertionVerifierConfig{
		IdPs: []resourceserver.EnterpriseIdP{{Issuer: gone.URL}}, Audience: localAS, Resources: []string{resource}, HTTPClient: hc})
	require.NoError(t, err)
	c := jag(idp)
	c["iss"] = gone.URL
	forged := signJAG(t, idp, "k1", "oauth-id-jag+jwt", c)
	for range 5 {
		_, err := av.Verify(context.Background(), forged, xaaClient, "")
		require.ErrorIs(t, err, mcp.ErrAuthUnavailable)
	}
	assert.Equal(t, 2, hits, "the two metadata URLs once, then nothing for 15 s")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestEnterpriseAuthSubjectMapping: EnterpriseIdP.Subject maps the
// assertion to the server's user, or refuses it (a tenant check); the
// refusal is a generic invalid_grant and spends nothing.
func TestEnterpriseAuthSubjectMapping(t *testing.T) {
	t.Parallel()
	idp := newIssuer(t)
	av, err := resourceserver.NewAssertionVerifier(resourceserver.AssertionVerifierConfig{
		IdPs: []resourceserver.EnterpriseIdP{{Issuer: idp.url, Subject: func(a *resourceserver.IdentityAssertion) (string, error) {
			if a.Claims["tenant"] != "acme" {
				return "", errors.New("tenant " + a.Claims["tenant"].(string) + " is not admitted")
			}
			return "acme:" + a.Subject, nil
		}}}, Audience: localAS, Resources: []string{resource}})
	require.NoError(t, err)
	c := jag(idp)
	c["tenant"] = "evil"
	refused := signJAG(t, idp, "k1", "oauth-id-jag+jwt", c)
	_, err = av.Verify(context.Background(), refused, xaaClient, "")
	var ae *resourceserver.AssertionError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "invalid_grant", ae.Code)
	assert.Equal(t, "the identity provider's user is not admitted here", ae.Description)
	assert.ErrorContains(t, err, "tenant evil", "the reason is in the error, for the log")

	c["tenant"] = "acme"
	a, err := av.Verify(context.Background(), signJAG(t, idp, "k1", "oauth-id-jag+jwt", c), xaaClient, "mcp:tools")
	require.NoError(t, err)
	assert.Equal(t, "acme:user-42", a.User)
	assert.Equal(t, []string{"mcp:tools"}, a.Scopes)
	assert.Equal(t, []string{"mcp:tools"}, a.Granted)
	assert.Equal(t, []string{resource}, a.Resource)
}

// TestEnterpriseLocalTokenRefusals: a token that names the local
// authorization server's key but was signed with another key, or that
// expired, is a 401 invalid_token.
func TestEnterpriseLocalTokenRefusals(t *testing.T) {
	t.Parallel()
	is, idp := newIssuer(t), newIssuer(t)
	var skew atomic.Int64 // how far the verifier's clock is ahead
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		c.EnterpriseAuth = &resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: idp.url}},
			Clients: []resourceserver.AssertionClient{{ID: xaaClient, Secret: xaaSecret}}, TokenLifetime: time.Minute}
	})
	ts := server(t, v)
	good := tokenOf(t, ts, idp)
	resp, body := post(t, ts, "Bearer "+good, "", initBody)
	require.Equal(t, 200, resp.StatusCode, body)
	parts := strings.Split(good, ".")
	forged := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
	resp, body = post(t, ts, "Bearer "+forged, "", initBody)
	assert.Equal(t, 401, resp.StatusCode, body)
	assert.Contains(t, body, "signature does not verify")

	skew.Store(int64(2 * time.Minute)) // past the minute and the 30 s leeway
	resp, body = post(t, ts, "Bearer "+good, "", initBody)
	assert.Equal(t, 401, resp.StatusCode, body)
	assert.Contains(t, body, "expired")
}

// TestEnterpriseAuthConfig: configurations that would not hold are
// refused by New with what to fix.
func TestEnterpriseAuthConfig(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	tests := []struct {
		name string
		ea   resourceserver.EnterpriseAuth
		want string
	}{
		{"no IdP", resourceserver.EnterpriseAuth{Clients: []resourceserver.AssertionClient{{ID: "c", Secret: xaaSecret}}}, "at least one IdP"},
		{"no client", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: is.url}}}, "Clients is empty"},
		{"short secret", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: is.url}},
			Clients: []resourceserver.AssertionClient{{ID: "c", Secret: "short"}}}, "at least 16 bytes"},
		{"short key", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: is.url}},
			Clients: []resourceserver.AssertionClient{{ID: "c", Secret: xaaSecret}}, SigningKey: []byte("short")}, "SigningKey"},
		{"http IdP", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: "http://idp.example.com"}},
			Clients: []resourceserver.AssertionClient{{ID: "c", Secret: xaaSecret}}}, "https URL"},
		{"IdP twice", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: is.url}, {Issuer: is.url}},
			Clients: []resourceserver.AssertionClient{{ID: "c", Secret: xaaSecret}}}, "listed twice"},
		{"HMAC algorithm", resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: is.url, Algorithms: []string{"HS256"}}},
			Clients: []resourceserver.AssertionClient{{ID: "c", Secret: xaaSecret}}}, "asymmetric"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ea := tt.ea
			_, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: is.url, Resource: resource, EnterpriseAuth: &ea})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

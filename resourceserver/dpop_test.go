package resourceserver_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/resourceserver"
	"github.com/mcpchain/mcp/resourceserver/redisreplay"
)

// thumbprint is the RFC 7638 SHA-256 thumbprint of key's public key, as
// cnf.jkt carries it.
func thumbprint(t *testing.T, key crypto.Signer) string {
	t.Helper()
	jwk := jose.JSONWebKey{Key: key.Public()}
	b, err := jwk.Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(b)
}

func newDPoPKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

// TestDPoPBoundTokenAsBearerRefused: a token bound to
// a DPoP key (cnf.jkt, in the JWT or in the introspection answer) and
// sent as a plain bearer token, without a proof, is refused: the thief
// of a bound token gains nothing.
func TestDPoPBoundTokenAsBearerRefused(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	key := newDPoPKey(t)
	bound := is.claims()
	bound["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
	is.activate("opaque-bound", bound)
	jwtV := newVerifier(t, is, nil)
	introV := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
	})
	for name, tc := range map[string]struct {
		v   *resourceserver.Verifier
		tok string
	}{
		"JWT":           {jwtV, is.sign("k1", bound)},
		"introspection": {introV, "opaque-bound"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ts := server(t, tc.v)
			resp, body := post(t, ts, "Bearer "+tc.tok, "", initBody)
			require.Equal(t, 401, resp.StatusCode, body)
			ch := resp.Header.Get("WWW-Authenticate")
			assert.Contains(t, ch, `error="invalid_token"`)
			assert.Contains(t, ch, "bound to a DPoP key")
			assert.Contains(t, ch, `DPoP algs="`)
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))

			_, err := tc.v.Verify(context.Background(), tc.tok)
			require.Error(t, err, "Verify, which sees no proof, refuses a bound token too")
		})
	}
}

// lateServer is an httptest server whose handler is set once its URL is
// known (the verifier's Resource must be that URL for the client).
type lateServer struct {
	*httptest.Server
	h atomic.Pointer[http.Handler]
}

func newLateServer(t *testing.T) *lateServer {
	ls := &lateServer{}
	ls.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*ls.h.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(ls.Close)
	return ls
}

func (ls *lateServer) serve(h http.Handler) { ls.h.Store(&h) }

// TestDPoPWithTheProjectsClient: package client/oauth with a DPoPKey
// gets a DPoP-bound token from the issuer (client credentials) and calls
// tools through the verifier, each request with a fresh proof, with JWT
// and with introspected tokens, and with server nonces (the client
// answers use_dpop_nonce once and then keeps the nonce). The token it
// holds is useless to a thief: as Bearer, as DPoP without a proof, and
// as DPoP with a proof of the thief's own key.
func TestDPoPWithTheProjectsClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opaque bool
		nonces bool
	}{
		{name: "JWT"},
		{name: "introspection", opaque: true},
		{name: "JWT with server nonces", nonces: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			is := newIssuer(t)
			is.opaque = tc.opaque
			ls := newLateServer(t)
			cfg := resourceserver.Config{Issuer: is.url, Resource: ls.URL + "/mcp", RequiredScopes: []string{"mcp:tools"}}
			if tc.opaque {
				cfg.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
			}
			if tc.nonces {
				cfg.DPoP = &resourceserver.DPoPConfig{NonceKey: bytes.Repeat([]byte{7}, 32)}
			}
			v, err := resourceserver.New(context.Background(), cfg)
			require.NoError(t, err)
			var nonceChallenges atomic.Int32
			inner := mcpHandler(t, v)
			ls.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec := &statusRecorder{ResponseWriter: w}
				inner.ServeHTTP(rec, r)
				if rec.status == 401 && w.Header().Get("DPoP-Nonce") != "" {
					nonceChallenges.Add(1)
				}
			}))

			auth := oauth.New(oauth.Config{ClientID: ccID, ClientSecret: ccSecret, ClientCredentials: true, DPoPKey: newDPoPKey(t)})
			ctx := t.Context()
			c, err := client.Connect(ctx, client.HTTP(ls.URL+"/mcp", &client.HTTPOptions{Auth: auth}), nil)
			require.NoError(t, err)
			defer c.Close()
			for range 3 {
				res, err := c.CallTool(ctx, "whoami", nil, nil)
				require.NoError(t, err)
				require.False(t, res.IsError, res.Text())
				assert.Contains(t, res.Text(), `"sub":"job"`)
			}
			tok, err := auth.Token(ctx, ls.URL+"/mcp")
			require.NoError(t, err)
			require.Equal(t, "DPoP", tok.TokenType, "the issuer bound the token")
			if tc.nonces {
				assert.Equal(t, int32(1), nonceChallenges.Load(), "one use_dpop_nonce, then the client keeps the nonce")
			}

			thief := newDPoPKey(t)
			for name, hdr := range map[string]http.Header{
				"as Bearer":                {"Authorization": {"Bearer " + tok.AccessToken}},
				"as DPoP without a proof":  {"Authorization": {"DPoP " + tok.AccessToken}},
				"with the thief's own key": {"Authorization": {"DPoP " + tok.AccessToken}, "Dpop": {dpopProof(t, thief, jose.ES256, "POST", ls.URL+"/mcp", tok.AccessToken, nil)}},
			} {
				req, err := http.NewRequest(http.MethodPost, ls.URL+"/mcp", strings.NewReader(initBody))
				require.NoError(t, err)
				req.Header = hdr
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, 401, resp.StatusCode, name)
			}
		})
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// dpopProof is a DPoP proof for a request of method to u, carrying tok,
// signed with key (alg), its public key as jwk; mod changes the claims
// and header before signing (a nil member is removed).
func dpopProof(t *testing.T, key crypto.Signer, alg jose.SignatureAlgorithm, method, u, tok string, mod func(h, c map[string]any)) string {
	t.Helper()
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	sum := sha256.Sum256([]byte(tok))
	c := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(jti), "htm": method, "htu": u,
		"iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	h := map[string]any{"typ": "dpop+jwt", "jwk": jose.JSONWebKey{Key: key.Public()}}
	if mod != nil {
		mod(h, c)
	}
	opts := &jose.SignerOptions{}
	for k, v := range h {
		if v != nil {
			opts = opts.WithHeader(jose.HeaderKey(k), v)
		}
	}
	for k, v := range c {
		if v == nil {
			delete(c, k)
		}
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	require.NoError(t, err)
	payload, err := json.Marshal(c)
	require.NoError(t, err)
	jws, err := s.Sign(payload)
	require.NoError(t, err)
	p, err := jws.CompactSerialize()
	require.NoError(t, err)
	return p
}

// dpopCall posts initialize to ts with the given Authorization and DPoP
// headers and returns the status, the challenge and the body's error
// and error_description.
func dpopCall(t *testing.T, ts *httptest.Server, path, authz string, proofs ...string) (int, string, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(initBody))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", authz)
	for _, p := range proofs {
		req.Header.Add("DPoP", p)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]string
	if resp.StatusCode != http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	}
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body
}

func mustRSA(t *testing.T, bits int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	require.NoError(t, err)
	return k
}

// TestDPoPProofRefusals: a bound token with a valid proof passes (ES256,
// and RS256, PS256 and EdDSA keys); each check of RFC 9449 §4.3 and §7,
// broken one at a time, is a 401 whose DPoP challenge and body say
// invalid_dpop_proof (or invalid_token for the token's own binding) and
// which check failed.
func TestDPoPProofRefusals(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	key := newDPoPKey(t)
	other := newDPoPKey(t)
	rsaKey := mustRSA(t, 2048)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	small := mustRSA(t, 1024)
	boundTo := func(k crypto.Signer, extra map[string]any) string {
		c := is.claims()
		cnf := map[string]any{"jkt": thumbprint(t, k)}
		for m, v := range extra {
			cnf[m] = v
		}
		c["cnf"] = cnf
		return is.sign("k1", c)
	}
	tok := boundTo(key, nil)
	rsaTok, edTok, smallTok := boundTo(rsaKey, nil), boundTo(edKey, nil), boundTo(small, nil)
	// The verifier's clock stands still, so that the time checks do not
	// depend on when the parallel subtests get to run.
	clock := &fakeClock{t: time.Now()}
	ts := server(t, newVerifier(t, is, func(c *resourceserver.Config) { c.Now = clock.now }))
	proof := func(mod func(h, c map[string]any)) string {
		return dpopProof(t, key, jose.ES256, "POST", resource, tok, func(h, c map[string]any) {
			c["iat"] = clock.now().Unix()
			if mod != nil {
				mod(h, c)
			}
		})
	}
	atClock := func(_, c map[string]any) { c["iat"] = clock.now().Unix() }
	unsigned := func(h, c map[string]any) string {
		hb, _ := json.Marshal(h)
		cb, _ := json.Marshal(c)
		return base64.RawURLEncoding.EncodeToString(hb) + "." + base64.RawURLEncoding.EncodeToString(cb) + "."
	}
	now := clock.now().Unix()
	sum := sha256.Sum256([]byte(tok))
	ath := base64.RawURLEncoding.EncodeToString(sum[:])
	hs, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: bytes.Repeat([]byte("k"), 32)},
		(&jose.SignerOptions{}).WithType("dpop+jwt").WithHeader("jwk", jose.JSONWebKey{Key: key.Public()}))
	require.NoError(t, err)
	hsJWS, err := hs.Sign([]byte(`{"jti":"x","htm":"POST","htu":"` + resource + `","iat":` + fmt.Sprint(now) + `,"ath":"` + ath + `"}`))
	require.NoError(t, err)
	hsProof, err := hsJWS.CompactSerialize()
	require.NoError(t, err)

	tests := []struct {
		name   string
		authz  string   // default "DPoP " + tok
		proofs []string // the DPoP headers
		status int      // default 401
		code   string   // the error code; default invalid_dpop_proof
		desc   string   // a substring of error_description
	}{
		{name: "valid ES256 proof", proofs: []string{proof(nil)}, status: 200},
		{name: "htu with query, fragment, default port and upper-case host", proofs: []string{proof(func(_, c map[string]any) {
			c["htu"] = "HTTPS://MCP.Example.com:443/mcp?x=1#f"
		})}, status: 200},
		{name: "valid RS256 proof", authz: "DPoP " + rsaTok, status: 200,
			proofs: []string{dpopProof(t, rsaKey, jose.RS256, "POST", resource, rsaTok, atClock)}},
		{name: "valid PS256 proof", authz: "DPoP " + rsaTok, status: 200,
			proofs: []string{dpopProof(t, rsaKey, jose.PS256, "POST", resource, rsaTok, atClock)}},
		{name: "valid EdDSA proof", authz: "DPoP " + edTok, status: 200,
			proofs: []string{dpopProof(t, edKey, jose.EdDSA, "POST", resource, edTok, atClock)}},

		{name: "no DPoP header", desc: "no DPoP header"},
		{name: "two DPoP headers", proofs: []string{proof(nil), proof(nil)}, desc: "more than one DPoP header"},
		{name: "not a JWT", proofs: []string{"abc.def"}, desc: "not a JWT signed with an accepted algorithm"},
		{name: "huge", proofs: []string{strings.Repeat("a", 9000)}, desc: "longer than"},
		{name: "typ JWT", proofs: []string{proof(func(h, _ map[string]any) { h["typ"] = "JWT" })}, desc: "typ is not dpop+jwt"},
		{name: "no typ", proofs: []string{proof(func(h, _ map[string]any) { h["typ"] = nil })}, desc: "typ is not dpop+jwt"},
		{name: "alg none", proofs: []string{unsigned(
			map[string]any{"typ": "dpop+jwt", "alg": "none", "jwk": jose.JSONWebKey{Key: key.Public()}},
			map[string]any{"jti": "x", "htm": "POST", "htu": resource, "iat": now, "ath": ath})},
			desc: "not a JWT signed with an accepted algorithm"},
		{name: "alg HS256 (a MAC)", proofs: []string{hsProof}, desc: "not a JWT signed with an accepted algorithm"},
		{name: "no jwk", proofs: []string{proof(func(h, _ map[string]any) { h["jwk"] = nil })}, desc: "no public jwk"},
		{name: "a private jwk", proofs: []string{proof(func(h, _ map[string]any) { h["jwk"] = jose.JSONWebKey{Key: key} })},
			desc: "public jwk"},
		{name: "signed by another key than its jwk", proofs: []string{dpopProof(t, other, jose.ES256, "POST", resource, tok,
			func(h, c map[string]any) { atClock(h, c); h["jwk"] = jose.JSONWebKey{Key: key.Public()} })}, desc: "does not verify with its jwk"},
		{name: "an RSA key of 1024 bits", authz: "DPoP " + smallTok,
			proofs: []string{dpopProof(t, small, jose.RS256, "POST", resource, smallTok, atClock)}, desc: "RSA key must have"},
		{name: "htm GET", proofs: []string{proof(func(_, c map[string]any) { c["htm"] = "GET" })}, desc: "htm"},
		{name: "htm post (methods are case-sensitive)", proofs: []string{proof(func(_, c map[string]any) { c["htm"] = "post" })}, desc: "htm"},
		{name: "htu of another host", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "https://evil.example.com/mcp" })}, desc: "htu"},
		{name: "htu of another path", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "https://mcp.example.com/admin" })}, desc: "htu"},
		{name: "htu over http", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "http://mcp.example.com/mcp" })}, desc: "htu"},
		{name: "htu with user info", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "https://u@mcp.example.com/mcp" })}, desc: "htu"},
		{name: "htu of another port", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "https://mcp.example.com:8443/mcp" })}, desc: "htu"},
		{name: "htu relative", proofs: []string{proof(func(_, c map[string]any) { c["htu"] = "/mcp" })}, desc: "htu"},
		{name: "iat two minutes old", proofs: []string{proof(func(_, c map[string]any) { c["iat"] = now - 120 })}, desc: "too old"},
		{name: "iat a minute ahead", proofs: []string{proof(func(_, c map[string]any) { c["iat"] = now + 60 })}, desc: "in the future"},
		{name: "iat a string", proofs: []string{proof(func(_, c map[string]any) { c["iat"] = fmt.Sprint(now) })}, desc: "iat"},
		{name: "no iat", proofs: []string{proof(func(_, c map[string]any) { c["iat"] = nil })}, desc: "no iat"},
		{name: "no jti", proofs: []string{proof(func(_, c map[string]any) { c["jti"] = nil })}, desc: "no jti"},
		{name: "jti too long", proofs: []string{proof(func(_, c map[string]any) { c["jti"] = strings.Repeat("j", 257) })}, desc: "jti"},
		{name: "jti a number", proofs: []string{proof(func(_, c map[string]any) { c["jti"] = 7 })}, desc: "jti"},
		{name: "no ath", proofs: []string{proof(func(_, c map[string]any) { c["ath"] = nil })}, desc: "ath is not the hash"},
		{name: "ath of another token", proofs: []string{proof(func(_, c map[string]any) { c["ath"] = "AAAA" })}, desc: "ath is not the hash"},
		{name: "a valid proof of another key than cnf.jkt",
			proofs: []string{dpopProof(t, other, jose.ES256, "POST", resource, tok, atClock)}, desc: "not signed with the key the access token is bound to"},
		{name: "claims not an object", proofs: []string{
			func() string {
				s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
					(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
				require.NoError(t, err)
				j, err := s.Sign([]byte(`["jti"]`))
				require.NoError(t, err)
				p, err := j.CompactSerialize()
				require.NoError(t, err)
				return p
			}()}, desc: "not a JSON object"},

		{name: "an unbound token as DPoP", authz: "DPoP " + is.sign("k1", is.claims()), proofs: []string{proof(nil)},
			code: "invalid_token", desc: "not bound to a DPoP key"},
		{name: "a bound token as Bearer, proof or not", authz: "Bearer " + tok, proofs: []string{proof(nil)},
			code: "invalid_token", desc: "bound to a DPoP key"},
		{name: "a token bound to a client certificate too", authz: "DPoP " + boundTo(key, map[string]any{"x5t#S256": "abc"}),
			proofs: []string{proof(nil)}, code: "invalid_token", desc: "does not check"},
		{name: "an expired bound token with a valid proof", authz: "DPoP " + func() string {
			c := is.claims()
			c["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
			c["exp"] = now - 3600
			return is.sign("k1", c)
		}(), proofs: []string{proof(nil)}, code: "invalid_token", desc: "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			authz := tt.authz
			if authz == "" {
				authz = "DPoP " + tok
			}
			status, ch, body := dpopCall(t, ts, "/mcp", authz, tt.proofs...)
			want := cmp.Or(tt.status, 401)
			require.Equal(t, want, status, "%s %v", ch, body)
			if want == 200 {
				return
			}
			code := cmp.Or(tt.code, "invalid_dpop_proof")
			assert.Equal(t, code, body["error"])
			assert.Contains(t, body["error_description"], tt.desc)
			assert.Contains(t, ch, `error="`+code+`"`)
			assert.Contains(t, ch, `algs="ES256 `)
			assert.Contains(t, ch, `resource_metadata="`+metaURL+`"`)
			if strings.HasPrefix(authz, "DPoP ") {
				assert.True(t, strings.HasPrefix(ch, "DPoP "), "the DPoP challenge first: %s", ch)
			} else {
				assert.True(t, strings.HasPrefix(ch, "Bearer "), ch)
			}
		})
	}

	t.Run("a proof used twice", func(t *testing.T) {
		t.Parallel()
		p := proof(nil)
		status, _, _ := dpopCall(t, ts, "/mcp", "DPoP "+tok, p)
		require.Equal(t, 200, status)
		status, ch, body := dpopCall(t, ts, "/mcp", "DPoP "+tok, p)
		require.Equal(t, 401, status)
		assert.Equal(t, "invalid_dpop_proof", body["error"])
		assert.Contains(t, body["error_description"], "used before")
		assert.Contains(t, ch, `error="invalid_dpop_proof"`)
	})
}

// TestDPoPNonces: with a NonceKey, a proof without a nonce of this
// server, with a made-up one, with one of another key or with one older
// than five minutes is a 401 use_dpop_nonce carrying a fresh nonce in
// DPoP-Nonce; a proof with that nonce passes, on any verifier sharing the
// key.
func TestDPoPNonces(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	key := newDPoPKey(t)
	c := is.claims()
	c["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
	tok := is.sign("k1", c)
	clock := &fakeClock{t: time.Now()}
	withKey := func(k byte) *httptest.Server {
		return server(t, newVerifier(t, is, func(c *resourceserver.Config) {
			c.DPoP = &resourceserver.DPoPConfig{NonceKey: bytes.Repeat([]byte{k}, 32)}
			c.Now = clock.now
		}))
	}
	a, b, stranger := withKey(1), withKey(1), withKey(2)
	proof := func(nonce string) string {
		return dpopProof(t, key, jose.ES256, "POST", resource, tok, func(_, c map[string]any) {
			c["iat"] = clock.now().Unix()
			if nonce != "" {
				c["nonce"] = nonce
			}
		})
	}
	call := func(ts *httptest.Server, p string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initBody))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "DPoP "+tok)
		req.Header.Set("DPoP", p)
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 401 {
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `DPoP error="use_dpop_nonce"`)
			assert.Contains(t, string(body), `"error":"use_dpop_nonce"`)
		}
		return resp.StatusCode, resp.Header.Get("DPoP-Nonce")
	}

	status, nonce := call(a, proof(""))
	require.Equal(t, 401, status, "no nonce")
	require.NotEmpty(t, nonce)
	status, _ = call(a, proof(nonce))
	require.Equal(t, 200, status, "with the nonce")
	status, _ = call(b, proof(nonce))
	require.Equal(t, 200, status, "another replica with the same key takes it")
	status, fresh := call(stranger, proof(nonce))
	require.Equal(t, 401, status, "a server with another key does not")
	require.NotEmpty(t, fresh)
	status, _ = call(a, proof("made-up"))
	require.Equal(t, 401, status, "a made-up nonce")
	status, _ = call(a, proof(nonce[:len(nonce)-2]+"AA"))
	require.Equal(t, 401, status, "a nonce with a forged MAC")

	clock.advance(5*time.Minute + time.Second)
	status, newer := call(a, proof(nonce))
	require.Equal(t, 401, status, "a nonce older than five minutes")
	require.NotEqual(t, nonce, newer)
	status, _ = call(a, proof(newer))
	require.Equal(t, 200, status)
}

// TestDPoPReplayAcrossReplicas: two verifiers (two replicas of one
// server) sharing a redisreplay cache on one Redis: a proof accepted by
// one is refused by the other; fresh proofs pass on both.
func TestDPoPReplayAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	is := newIssuer(t)
	key := newDPoPKey(t)
	c := is.claims()
	c["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
	tok := is.sign("k1", c)
	replica := func() *httptest.Server {
		return server(t, newVerifier(t, is, func(c *resourceserver.Config) {
			c.DPoP = &resourceserver.DPoPConfig{ReplayCache: redisreplay.New(rdb, "")}
		}))
	}
	a, b := replica(), replica()
	p := dpopProof(t, key, jose.ES256, "POST", resource, tok, nil)
	status, _, _ := dpopCall(t, a, "/mcp", "DPoP "+tok, p)
	require.Equal(t, 200, status)
	status, _, body := dpopCall(t, b, "/mcp", "DPoP "+tok, p)
	require.Equal(t, 401, status, "replayed at the other replica")
	assert.Contains(t, body["error_description"], "used before")
	for _, ts := range []*httptest.Server{a, b} {
		status, _, _ := dpopCall(t, ts, "/mcp", "DPoP "+tok, dpopProof(t, key, jose.ES256, "POST", resource, tok, nil))
		require.Equal(t, 200, status)
	}

	_ = rdb.Close() // Redis gone: refused with 503, never admitted
	status, _, body = dpopCall(t, a, "/mcp", "DPoP "+tok, dpopProof(t, key, jose.ES256, "POST", resource, tok, nil))
	require.Equal(t, 503, status)
	assert.Equal(t, "temporarily_unavailable", body["error"])
}

// TestDPoPPublicURL: htu is compared with the public URL, not with what
// the Host header says: behind a proxy that strips /api, PublicURL
// https://example.com/api makes https://example.com/api/mcp the htu of
// /mcp; under an http.StripPrefix of the server's own, the request's
// original path counts; a proof naming the Host the request came with
// (the test server's address) is refused.
func TestDPoPPublicURL(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	key := newDPoPKey(t)
	const res = "https://example.com/api/mcp"
	c := is.claims()
	c["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
	c["aud"] = res
	tok := is.sign("k1", c)

	proxied := server(t, newVerifier(t, is, func(c *resourceserver.Config) {
		c.Resource = res
		c.DPoP = &resourceserver.DPoPConfig{PublicURL: "https://example.com/api/"}
	}))
	v := newVerifier(t, is, func(c *resourceserver.Config) { c.Resource = res })
	stripped := httptest.NewServer(http.StripPrefix("/api", mcpHandler(t, v)))
	t.Cleanup(stripped.Close)

	for _, tc := range []struct {
		name   string
		ts     *httptest.Server
		path   string
		htu    string
		status int
	}{
		{"proxy: the public URL", proxied, "/mcp", res, 200},
		{"proxy: the path as received", proxied, "/mcp", "https://example.com/mcp", 401},
		{"proxy: the Host of the request", proxied, "/mcp", proxied.URL + "/mcp", 401},
		{"StripPrefix: the original path", stripped, "/api/mcp", res, 200},
		{"StripPrefix: the stripped path", stripped, "/api/mcp", "https://example.com/mcp", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, ch, _ := dpopCall(t, tc.ts, tc.path, "DPoP "+tok, dpopProof(t, key, jose.ES256, "POST", tc.htu, tok, nil))
			require.Equal(t, tc.status, status, ch)
		})
	}
}

// TestDPoPOneKeyCannotFillTheReplayCache: a client
// holding a bound token and its key makes proofs as fast as it can (about
// a million in a proof's lifetime filled the in-memory replay cache, and
// then every client's DPoP requests were answered 503). One key now holds
// at most a share of the cache: past it, that key's requests are refused
// (503, saying why) and another key's pass.
func TestDPoPOneKeyCannotFillTheReplayCache(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	flooder, other := newDPoPKey(t), newDPoPKey(t)
	bound := func(k crypto.Signer) string {
		c := is.claims()
		c["cnf"] = map[string]any{"jkt": thumbprint(t, k)}
		return is.sign("k1", c)
	}
	v := newVerifier(t, is, nil)
	ts := server(t, v)
	taken := resourceserver.FillDPoPReplayForTest(v, thumbprint(t, flooder), resourceserver.MaxReplayIDs)
	t.Logf("the flooding key's proofs taken: %d of %d", taken, resourceserver.MaxReplayIDs)
	assert.Less(t, taken, resourceserver.MaxReplayIDs/8, "one key takes a share of the cache, not all of it")

	tok := bound(other)
	status, _, body := dpopCall(t, ts, "/mcp", "DPoP "+tok, dpopProof(t, other, jose.ES256, "POST", resource, tok, nil))
	assert.Equal(t, 200, status, "another key's request passes: %v", body)

	tok = bound(flooder)
	status, _, body = dpopCall(t, ts, "/mcp", "DPoP "+tok, dpopProof(t, flooder, jose.ES256, "POST", resource, tok, nil))
	assert.Equal(t, 503, status, "the flooding key is refused")
	assert.Equal(t, "temporarily_unavailable", body["error"])
}

package resourceserver_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"
)

// issuer is a real authorization server's key and token side, in
// process: OpenID Connect discovery, a JWKS whose keys the test rotates,
// an RFC 7662 introspection endpoint, and JWTs signed with go-jose.
type issuer struct {
	t   *testing.T
	ts  *httptest.Server
	url string

	mu        sync.Mutex
	keys      map[string]any // kid → private key
	published []string       // kids in the JWKS
	active    map[string]map[string]any
	down      bool // the JWKS and introspection answer 503

	opaque bool // the token endpoint issues opaque tokens, known to introspection

	jwksHits     atomic.Int32
	introHits    atomic.Int32
	introWaiting atomic.Int32                  // introspection calls held by hold
	hold         atomic.Pointer[chan struct{}] // when set, introspection answers wait for it to close
}

const (
	resource = "https://mcp.example.com/mcp"
	introID  = "rs-client"
	introSec = "rs-secret"
	ccID     = "job-client" // a client of the client credentials grant
	ccSecret = "job-secret"
)

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{t: t, keys: map[string]any{}, active: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": is.url, "jwks_uri": is.url + "/jwks",
			"introspection_endpoint": is.url + "/introspect", "authorization_endpoint": is.url + "/authorize",
			"token_endpoint": is.url + "/token", "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
			"response_types_supported":              []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"dpop_signing_alg_values_supported": []string{"ES256"}})
	})
	mux.HandleFunc("POST /token", is.token)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		if is.down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var set jose.JSONWebKeySet
		for _, kid := range is.published {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: publicOf(is.keys[kid]), KeyID: kid, Use: "sig", Algorithm: algOf(is.keys[kid])})
		}
		writeJSON(w, set)
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		is.introHits.Add(1)
		if h := is.hold.Load(); h != nil {
			is.introWaiting.Add(1)
			<-*h
		}
		id, sec, ok := r.BasicAuth()
		if !ok || id != introID || sec != introSec {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		is.mu.Lock()
		down := is.down
		c, ok := is.active[r.PostFormValue("token")]
		is.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			writeJSON(w, map[string]any{"active": false})
			return
		}
		if raw, ok := c[rawAnswer].(string); ok {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(raw))
			return
		}
		writeJSON(w, c)
	})
	is.ts = httptest.NewServer(mux)
	is.url = is.ts.URL
	t.Cleanup(is.ts.Close)
	is.addKey("k1", true)
	return is
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func publicOf(k any) any {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return &k.PublicKey
	case *ecdsa.PrivateKey:
		return &k.PublicKey
	}
	panic("key type")
}

func algOf(k any) string {
	if _, ok := k.(*rsa.PrivateKey); ok {
		return string(jose.RS256)
	}
	return string(jose.ES256)
}

// addKey makes a key (RSA for "k1", ECDSA otherwise) and, if publish,
// lists it in the JWKS.
func (is *issuer) addKey(kid string, publish bool) {
	var k any
	var err error
	if kid == "k1" {
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	require.NoError(is.t, err)
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = k
	if publish {
		is.published = append(is.published, kid)
	}
}

// publish sets the kids the JWKS lists.
func (is *issuer) publish(kids ...string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = kids
}

func (is *issuer) setDown(down bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.down = down
}

// claims are a valid token's: this issuer, this resource, an hour left.
func (is *issuer) claims() map[string]any {
	now := time.Now()
	return map[string]any{"iss": is.url, "sub": "user-42", "aud": resource, "exp": now.Add(time.Hour).Unix(),
		"iat": now.Unix(), "nbf": now.Unix(), "scope": "mcp:tools profile", "client_id": "client-7", "email": "ada@example.com"}
}

// sign returns a JWT of claims signed with kid's key.
func (is *issuer) sign(kid string, claims map[string]any) string {
	is.mu.Lock()
	k := is.keys[kid]
	is.mu.Unlock()
	require.NotNil(is.t, k, kid)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(algOf(k)), Key: k},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	require.NoError(is.t, err)
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	require.NoError(is.t, err)
	return tok
}

// forge returns a JWT of claims signed with the key named signer but
// whose header names kid (none when kid is empty): what a stranger who
// knows the published key ids but not the keys can make.
func (is *issuer) forge(signer, kid string, claims map[string]any) string {
	is.mu.Lock()
	k := is.keys[signer]
	is.mu.Unlock()
	require.NotNil(is.t, k, signer)
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(algOf(k)), Key: k}, opts)
	require.NoError(is.t, err)
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	require.NoError(is.t, err)
	return tok
}

// activate makes tok known to the introspection endpoint with claims.
func (is *issuer) activate(tok string, claims map[string]any) {
	c := map[string]any{"active": true, "token_type": "Bearer"}
	for k, v := range claims {
		c[k] = v
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.active[tok] = c
}

// rawAnswer, as the only member of an answer set with answer, makes the
// introspection endpoint send its value as the body.
const rawAnswer = "\x00raw"

// answer makes the introspection endpoint answer a for tok, as it is.
func (is *issuer) answer(tok string, a map[string]any) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.active[tok] = a
}

// holdIntrospection makes introspection answers wait until release is
// closed.
func (is *issuer) holdIntrospection(release chan struct{}) { is.hold.Store(&release) }

func (is *issuer) deactivate(tok string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	delete(is.active, tok)
}

// token is the token endpoint: the client credentials grant for ccID,
// and with a DPoP proof (RFC 9449 §5) a token bound to the proof's key
// (cnf.jkt; token_type DPoP). The token's aud is the resource asked for.
func (is *issuer) token(w http.ResponseWriter, r *http.Request) {
	id, sec, ok := r.BasicAuth()
	if !ok {
		id, sec = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id != ccID || sec != ccSecret || r.PostFormValue("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": "invalid_client"})
		return
	}
	c := is.claims()
	c["sub"], c["client_id"], c["scope"] = "job", ccID, r.PostFormValue("scope")
	if res := r.PostFormValue("resource"); res != "" {
		c["aud"] = res
	}
	typ := "Bearer"
	if p := r.Header.Get("DPoP"); p != "" {
		jws, err := jose.ParseSignedCompact(p, []jose.SignatureAlgorithm{jose.ES256})
		var claims struct {
			Htm string `json:"htm"`
			Htu string `json:"htu"`
		}
		if err == nil {
			var b []byte
			if b, err = jws.Verify(jws.Signatures[0].Header.JSONWebKey); err == nil {
				err = json.Unmarshal(b, &claims)
			}
		}
		if err != nil || claims.Htm != http.MethodPost || claims.Htu != is.url+"/token" {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_dpop_proof"})
			return
		}
		tp, err := jws.Signatures[0].Header.JSONWebKey.Thumbprint(crypto.SHA256)
		require.NoError(is.t, err)
		c["cnf"] = map[string]any{"jkt": base64.RawURLEncoding.EncodeToString(tp)}
		typ = "DPoP"
	}
	tok := ""
	if is.opaque {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		tok = "opaque-" + base64.RawURLEncoding.EncodeToString(b)
		is.activate(tok, c)
	} else {
		tok = is.sign("k1", c)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, map[string]any{"access_token": tok, "token_type": typ, "expires_in": 3600})
}

package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// verifyProof checks a DPoP proof with go-jose as a server would, and
// returns its claims.
func verifyProof(t *testing.T, p string, key *ecdsa.PrivateKey) map[string]any {
	t.Helper()
	jws, err := jose.ParseSignedCompact(p, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("proof %q: %v", p, err)
	}
	h := jws.Signatures[0].Header
	if h.ExtraHeaders["typ"] != "dpop+jwt" {
		t.Errorf("typ = %v, want dpop+jwt", h.ExtraHeaders["typ"])
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		t.Fatalf("jwk header = %v, want the public key", h.JSONWebKey)
	}
	if !h.JSONWebKey.Key.(*ecdsa.PublicKey).Equal(&key.PublicKey) {
		t.Error("jwk is not the configured key's public key")
	}
	b, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		t.Fatalf("signature: %v", err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if iat, _ := c["iat"].(float64); time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute {
		t.Errorf("iat = %v, not now", c["iat"])
	}
	if jti, _ := c["jti"].(string); len(jti) < 16 {
		t.Errorf("jti = %v, want a random identifier", c["jti"])
	}
	return c
}

// dpopServer is an MCP endpoint (/mcp) and its authorization server
// (/token) at one origin, with DPoP.
type dpopServer struct {
	srv      *httptest.Server
	asNonce  string // the token endpoint wants this nonce
	rsNonce  string // the MCP endpoint wants this nonce
	rsAlways bool   // the MCP endpoint refuses every proof with use_dpop_nonce
	dpop     bool   // the token endpoint issues DPoP tokens to a proof

	mu       *sync.Mutex
	tokenHdr []http.Header
	mcpHdr   []http.Header
}

func newDPoPServer(t *testing.T, s *dpopServer) *dpopServer {
	s.mu = &sync.Mutex{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, s.srv.URL+"/mcp", s.srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"dpop_signing_alg_values_supported":["ES256"]}`,
			s.srv.URL, s.srv.URL+"/token")
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.tokenHdr = append(s.tokenHdr, r.Header.Clone())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		p := r.Header.Get("DPoP")
		if p != "" && s.asNonce != "" && !strings.Contains(claimsOf(p), `"nonce":"`+s.asNonce+`"`) {
			w.Header().Set("DPoP-Nonce", s.asNonce)
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"use_dpop_nonce"}`)
			return
		}
		if p != "" && s.dpop {
			fmt.Fprint(w, `{"access_token":"tok-dpop","token_type":"DPoP","expires_in":3600}`)
			return
		}
		fmt.Fprint(w, `{"access_token":"tok-bearer","token_type":"Bearer","expires_in":3600}`)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.mcpHdr = append(s.mcpHdr, r.Header.Clone())
		s.mu.Unlock()
		a := r.Header.Get("Authorization")
		if a == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+s.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		if p := r.Header.Get("DPoP"); p != "" && (s.rsAlways ||
			s.rsNonce != "" && !strings.Contains(claimsOf(p), `"nonce":"`+s.rsNonce+`"`)) {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.Header().Set("DPoP-Nonce", s.rsNonce)
			w.WriteHeader(401)
			return
		}
		fmt.Fprint(w, "ok")
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// claimsOf is the payload of a compact JWS, unverified.
func claimsOf(p string) string {
	parts := strings.Split(p, ".")
	if len(parts) != 3 {
		return ""
	}
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	return string(b)
}

func TestDPoP(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ath := func(tok string) string {
		s := sha256.Sum256([]byte(tok))
		return base64.RawURLEncoding.EncodeToString(s[:])
	}
	tests := []struct {
		name       string
		key        *ecdsa.PrivateKey
		srv        dpopServer
		wantStatus int
		wantAuth   string // the MCP request's last Authorization
		wantToken  int    // token requests
		wantMCP    int    // MCP requests
	}{
		{"off: Bearer", nil, dpopServer{dpop: true}, 200, "Bearer tok-bearer", 1, 2},
		{"on: DPoP token", key, dpopServer{dpop: true}, 200, "DPoP tok-dpop", 1, 2},
		{"on, server issues Bearer", key, dpopServer{}, 200, "Bearer tok-bearer", 1, 2},
		{"AS nonce", key, dpopServer{dpop: true, asNonce: "as-n"}, 200, "DPoP tok-dpop", 2, 2},
		{"RS nonce", key, dpopServer{dpop: true, rsNonce: "rs-n"}, 200, "DPoP tok-dpop", 1, 3},
		{"both nonces", key, dpopServer{dpop: true, asNonce: "as-n", rsNonce: "rs-n"}, 200, "DPoP tok-dpop", 2, 3},
		// A server that keeps asking for a nonce: one retry, then the 401
		// stands; no loop.
		{"RS nonce refused", key, dpopServer{dpop: true, rsAlways: true, rsNonce: "x"}, 401, "DPoP tok-dpop", 1, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.srv
			newDPoPServer(t, &s)
			h := New(Config{ClientID: "c", ClientSecret: "s", ClientCredentials: true, DPoPKey: tc.key})
			hc := &http.Client{Transport: h.Wrap(s.srv.URL+"/mcp", http.DefaultTransport)}
			resp, err := hc.Post(s.srv.URL+"/mcp?q=1#f", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.tokenHdr) != tc.wantToken || len(s.mcpHdr) != tc.wantMCP {
				t.Fatalf("token requests %d, MCP requests %d; want %d, %d", len(s.tokenHdr), len(s.mcpHdr), tc.wantToken, tc.wantMCP)
			}
			if got := s.mcpHdr[len(s.mcpHdr)-1].Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tc.wantAuth)
			}
			if tc.key == nil {
				for _, hd := range append(s.tokenHdr, s.mcpHdr...) {
					if hd.Get("DPoP") != "" {
						t.Error("a DPoP header without DPoPKey")
					}
				}
				return
			}
			for i, hd := range s.tokenHdr {
				c := verifyProof(t, hd.Get("DPoP"), tc.key)
				if c["htm"] != "POST" || c["htu"] != s.srv.URL+"/token" || c["ath"] != nil {
					t.Errorf("token proof claims %v", c)
				}
				if i == 1 && c["nonce"] != s.asNonce {
					t.Errorf("retried token proof nonce = %v, want %q", c["nonce"], s.asNonce)
				}
			}
			jtis := map[any]bool{}
			for i, hd := range s.mcpHdr[1:] {
				if !strings.HasPrefix(hd.Get("Authorization"), "DPoP ") {
					continue
				}
				c := verifyProof(t, hd.Get("DPoP"), tc.key)
				if c["htm"] != "POST" || c["htu"] != s.srv.URL+"/mcp" || c["ath"] != ath("tok-dpop") {
					t.Errorf("MCP proof claims %v", c)
				}
				if jtis[c["jti"]] {
					t.Error("a jti used twice")
				}
				jtis[c["jti"]] = true
				if s.rsNonce != "" && !s.rsAlways && i == 1 && c["nonce"] != s.rsNonce {
					t.Errorf("retried MCP proof nonce = %v, want %q", c["nonce"], s.rsNonce)
				}
			}
		})
	}
}

func TestHTU(t *testing.T) {
	for in, want := range map[string]string{
		"https://EXAMPLE.com/mcp?x=1#f": "https://example.com/mcp",
		"http://127.0.0.1:8080/a/b":     "http://127.0.0.1:8080/a/b",
		"https://example.com":           "https://example.com",
		"https://example.com/a%2Fb?q":   "https://example.com/a%2Fb",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := htu(u); got != want {
			t.Errorf("htu(%q) = %q, want %q", in, got, want)
		}
	}
}

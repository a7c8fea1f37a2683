package resourceserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
)

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzAssertionClaims holds the decoders of an ID-JAG's claims (the
// unverified issuer that picks the keys, then every claim with its type)
// and the scope grant to: no panic; a claim of the wrong type an error,
// never a zero value taken for it; the scopes granted always within those
// offered and those asked for or granted by the assertion; and Verify of
// the same bytes as an assertion refused, never admitted (no IdP key
// signs them).
func FuzzAssertionClaims(f *testing.F) {
	for _, s := range []string{
		`{"iss":"https://idp.example","sub":"u","aud":"https://as.example","resource":"https://mcp.example/mcp","client_id":"c","jti":"j","iat":1,"exp":2,"scope":"a b"}`,
		`{"iss":"https://idp.example","resource":["https://a","https://b"],"scope":""}`,
		`{"iss":7}`, `{"resource":null}`, `{"resource":[1]}`, `{"jti":{}}`, `{"ISS":"x","iss":"y"}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s), "a c")
	}
	v, err := NewAssertionVerifier(AssertionVerifierConfig{IdPs: []EnterpriseIdP{{Issuer: "https://idp.example",
		JWKSURL: "https://idp.example/jwks"}}, Audience: "https://as.example", Resources: []string{"https://mcp.example/mcp"},
		Scopes: []string{"a", "b"}, Now: func() time.Time { return time.Unix(1, 0) },
		// No network: a well-formed JWS naming the IdP meets an outage.
		HTTPClient: &http.Client{Transport: roundTripper(func(*http.Request) (*http.Response, error) {
			return nil, errors.New("no network in the fuzz target")
		})}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, scope string) {
		_, _ = unverifiedIssuer(b)
		a, err := parseAssertionClaims(b)
		if err == nil {
			if a.Claims == nil {
				t.Fatal("claims decoded without their map")
			}
			if _, ok := a.Claims["resource"]; ok && a.Resource == nil {
				if s, isStr := a.Claims["resource"].([]any); !isStr || len(s) > 0 {
					t.Fatalf("a resource claim %v read as none", a.Claims["resource"])
				}
			}
			granted, gerr := v.grant(a.Scopes, scope)
			if gerr == nil {
				for _, s := range granted {
					if !slices.Contains(v.cfg.Scopes, s) {
						t.Fatalf("granted %q, which the server does not offer", s)
					}
				}
			}
		}
		_, err = v.Verify(context.Background(), string(b), "c", scope)
		var ae *AssertionError
		if err == nil || (!errors.As(err, &ae) && !errors.Is(err, mcp.ErrAuthUnavailable)) {
			t.Fatalf("bytes that no IdP signed: %v", err)
		}
	})
}

package resourceserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpchain/mcp"
)

// FuzzBearerToken: any Authorization header either yields a token of the
// RFC 6750 alphabet, at most 16 KiB, or an error wrapping
// mcp.ErrUnauthorized; never a panic. The DPoP scheme is VerifyRequest's
// alone: BearerToken refuses it.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Bearer ", "Bearer ==", "Basic x", "Bearer a b", "Bearer\ta",
		"Bearer " + strings.Repeat("A", 100), "", "Bearer a=", "Bearer =a", "DPoP abc", "dpop a.b", "DPoP  a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		scheme, atok, aerr := authorization(http.Header{"Authorization": {v}})
		if aerr == nil && (scheme != schemeBearer && scheme != schemeDPoP || !strings.HasSuffix(v, " "+atok)) {
			t.Fatalf("%q: scheme %q, token %q", v, scheme, atok)
		}
		tok, err := BearerToken(http.Header{"Authorization": {v}})
		if (err == nil) != (aerr == nil && scheme == schemeBearer) {
			t.Fatalf("%q: BearerToken %v, authorization %q %v", v, err, scheme, aerr)
		}
		if err != nil {
			if !errors.Is(err, mcp.ErrUnauthorized) || tok != "" {
				t.Fatalf("%q: %q, %v", v, tok, err)
			}
			return
		}
		if tok == "" || len(tok) > maxTokenLen || strings.ContainsAny(tok, " \t\"\\,") || !strings.HasSuffix(v, tok) {
			t.Fatalf("%q: bad token %q", v, tok)
		}
	})
}

// FuzzParseClaims: a token payload or introspection answer decodes to
// claims with the registered members' types, or to an error; a decoded
// one goes through the claim checks without a panic.
func FuzzParseClaims(f *testing.F) {
	for _, s := range []string{
		`{"iss":"https://i","sub":"u","aud":"https://r","exp":4102444800,"scope":"a b"}`,
		`{"aud":["x","y"],"scp":["a"],"exp":1e10,"nbf":0,"iat":1}`,
		`{"scp":"a b","exp":-1}`, `{"exp":"1"}`, `{"aud":[1]}`, `null`, `[]`, `{} {}`, `{"active":true}`,
		`{"iss":null}`, `{"exp":1e400}`, `{"cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}`, `{"cnf":{}}`,
		`{"cnf":"x"}`, `{"cnf":{"jkt":1}}`, `{"cnf":{"x5t#S256":"a"}}`,
	} {
		f.Add([]byte(s))
	}
	v := &Verifier{cfg: Config{Issuer: "https://i", Resource: "https://r", Leeway: time.Second,
		Now: func() time.Time { return time.Unix(1700000000, 0) }}, audiences: []string{"https://r"}}
	in := &introspector{v: v}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseClaims(b)
		if err != nil {
			if c != nil {
				t.Fatal("claims with an error")
			}
		} else {
			s, err := v.checkClaims(c)
			if err == nil && (s.Sub == "" || s.Issuer != "https://i" || !s.Expiry.After(time.Unix(1700000000-2, 0)) ||
				c.cnfOther || (s.jkt != "" && len(s.jkt) != 43)) {
				t.Fatalf("admitted %+v", s)
			}
		}
		if _, err := in.decode(b); err == nil {
			if c == nil || c.all["active"] != true {
				t.Fatalf("%s: an answer without active=true passed", b)
			}
		}
	})
}

// FuzzParseProof: any DPoP header value either parses to a proof whose
// signature verified with its own public key, with the required claims
// and a SHA-256 thumbprint, or is refused with a *proofError; never a
// panic.
func FuzzParseProof(f *testing.F) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	sign := func(hdr map[string]any, claims string) string {
		opts := &jose.SignerOptions{EmbedJWK: true}
		for k, v := range hdr {
			opts = opts.WithHeader(jose.HeaderKey(k), v)
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
		if err != nil {
			f.Fatal(err)
		}
		j, err := s.Sign([]byte(claims))
		if err != nil {
			f.Fatal(err)
		}
		p, _ := j.CompactSerialize()
		return p
	}
	valid := `{"jti":"j","htm":"POST","htu":"https://h/mcp","iat":1700000000,"ath":"a"}`
	for _, s := range []string{
		sign(map[string]any{"typ": "dpop+jwt"}, valid),
		sign(map[string]any{"typ": "application/dpop+jwt"}, `{"jti":"j","htm":"GET","htu":"x","iat":1.5,"nonce":"n"}`),
		sign(map[string]any{"typ": "jwt"}, valid),
		sign(map[string]any{"typ": "dpop+jwt"}, `{"jti":"j","htm":"POST","htu":"x","iat":"1"}`),
		sign(map[string]any{"typ": "dpop+jwt"}, `[]`),
		sign(map[string]any{"typ": "dpop+jwt"}, valid+` {}`),
		"", "a.b.c", "a.b", "....", "eyJhbGciOiJub25lIn0.e30.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		pr, err := parseProof(p, defaultDPoPAlgs)
		if err != nil {
			var pe *proofError
			if pr != nil || !errors.As(err, &pe) || pe.desc == "" {
				t.Fatalf("%q: %v, %v", p, pr, err)
			}
			return
		}
		if pr.jti == "" || pr.htm == "" || pr.htu == "" || len(pr.jkt) != 43 || pr.iat.IsZero() {
			t.Fatalf("%q: accepted %+v", p, pr)
		}
		jws, err := jose.ParseSignedCompact(p, defaultDPoPAlgs)
		if err != nil || jws.Signatures[0].Header.JSONWebKey == nil || !jws.Signatures[0].Header.JSONWebKey.IsPublic() {
			t.Fatalf("%q: accepted without a public jwk", p)
		}
		if _, err := jws.Verify(jws.Signatures[0].Header.JSONWebKey); err != nil {
			t.Fatalf("%q: accepted with a bad signature", p)
		}
	})
}

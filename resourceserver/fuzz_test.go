package resourceserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
)

// FuzzBearerToken: any Authorization header either yields a token of the
// RFC 6750 alphabet, at most 16 KiB, or an error wrapping
// mcp.ErrUnauthorized; never a panic.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Bearer ", "Bearer ==", "Basic x", "Bearer a b", "Bearer\ta",
		"Bearer " + strings.Repeat("A", 100), "", "Bearer a=", "Bearer =a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		tok, err := BearerToken(http.Header{"Authorization": {v}})
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
		`{"iss":null}`, `{"exp":1e400}`,
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
			if err == nil && (s.Sub == "" || s.Issuer != "https://i" || !s.Expiry.After(time.Unix(1700000000-2, 0))) {
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

package oauth

import (
	"testing"
	"time"
)

// FuzzChallenge: any WWW-Authenticate value parses without a panic, and
// a Bearer challenge's parameters come back as sent.
func FuzzChallenge(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="a b"`,
		`Bearer error="insufficient_scope", scope="mcp:write", error_description="more"`,
		`Basic realm="x", Bearer scope=plain`,
		`Negotiate abc==, Bearer error=invalid_token`,
		`Bearer scope="a\"b`, `bearer`, `=,=`, ``,
		`DPoP error="use_dpop_nonce", resource_metadata="https://a.example/prm"`, `DPoP algs="ES256", Bearer scope=x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := parseChallenge([]string{s})
		if !ok && (c != challenge{}) {
			t.Fatalf("no Bearer challenge in %q, yet %+v", s, c)
		}
	})
}

// FuzzResourceMetadata: any document decodes or fails, never a panic; a
// decoded one has its resource.
func FuzzResourceMetadata(f *testing.F) {
	for _, s := range []string{
		`{"resource":"https://a.example/mcp","authorization_servers":["https://as.example"],"scopes_supported":["a"]}`,
		`{"resource":""}`, `{"authorization_servers":"x"}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseResourceMetadata(b)
		if err == nil && m.Resource == "" {
			t.Fatal("decoded without a resource")
		}
	})
}

// FuzzServerMetadata: any document decodes or fails; a decoded one has an
// issuer, a token endpoint, and only http(s) endpoints.
func FuzzServerMetadata(f *testing.F) {
	for _, s := range []string{
		`{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t","code_challenge_methods_supported":["S256"]}`,
		`{"issuer":"x","token_endpoint":"javascript:alert(1)"}`, `{"issuer":1}`, `{}`, `nul`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseServerMetadata(b)
		if err != nil {
			return
		}
		if m.Issuer == "" || !isHTTPURL(m.TokenEndpoint) {
			t.Fatalf("decoded %+v", m)
		}
	})
}

// FuzzTokenResponse: any answer decodes to a Bearer token with an access
// token, or fails.
func FuzzTokenResponse(f *testing.F) {
	for _, s := range []string{
		`{"access_token":"t","token_type":"Bearer","expires_in":3600,"refresh_token":"r","scope":"a b"}`,
		`{"access_token":"t","token_type":"DPoP"}`, `{"error":"invalid_grant","error_description":"x"}`,
		`{"access_token":"t","expires_in":"1e400"}`, `{"access_token":"t","expires_in":-5}`, `[`,
	} {
		f.Add([]byte(s))
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := parseTokenResponse(b, now)
		if err != nil {
			return
		}
		if tok.AccessToken == "" || (tok.TokenType != "Bearer" && tok.TokenType != "DPoP") || (!tok.Expiry.IsZero() && !tok.Expiry.After(now)) {
			t.Fatalf("decoded %+v", tok)
		}
	})
}

// FuzzRegistration: any registration answer decodes with a client_id, or
// fails.
func FuzzRegistration(f *testing.F) {
	for _, s := range []string{`{"client_id":"c","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}`, `{}`, `{"client_id":5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRegistration(b)
		if err == nil && r.ClientID == "" {
			t.Fatal("decoded without a client_id")
		}
	})
}

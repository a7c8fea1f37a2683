package exchange

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParse: the answers of token endpoints in the field decode, errors
// name the provider's code, and members of the wrong type are refused.
func TestParse(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name   string
		status int
		body   string
		want   *Result
		err    string
	}{
		{"RFC 8693", 200, `{"access_token":"at","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":60,"scope":"a b"}`,
			&Result{AccessToken: "at", IssuedTokenType: TypeAccessToken, TokenType: "Bearer", Scope: "a b", Expiry: now.Add(time.Minute)}, ""},
		{"ID-JAG", 200, `{"access_token":"jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}`,
			&Result{AccessToken: "jag", IssuedTokenType: TypeIDJAG, TokenType: "N_A"}, ""},
		{"Entra: expires_in as a string", 200, `{"access_token":"at","token_type":"Bearer","expires_in":"3599","ext_expires_in":3599,"refresh_token":"rt"}`,
			&Result{AccessToken: "at", TokenType: "Bearer", RefreshToken: "rt", Expiry: now.Add(3599 * time.Second)}, ""},
		{"absurd expires_in ignored", 200, `{"access_token":"at","expires_in":-5}`, &Result{AccessToken: "at"}, ""},
		{"error answer", 400, `{"error":"invalid_grant","error_description":"AADSTS50013: assertion failed"}`, nil, "invalid_grant: AADSTS50013: assertion failed (HTTP 400)"},
		{"error without body", 502, `<html>bad gateway</html>`, nil, "HTTP 502 without an OAuth error"},
		{"error with 200", 200, `{"error":"invalid_request"}`, nil, "invalid_request (HTTP 200)"},
		{"no token", 200, `{"token_type":"Bearer"}`, nil, "the answer has no access_token"},
		{"token not a string", 200, `{"access_token":7}`, nil, "access_token is not a string"},
		{"not an object", 200, `[1]`, nil, "the answer is not a JSON object"},
		{"control characters in the description", 400, `{"error":"x","error_description":"a\nb"}`, nil, "x: a?b (HTTP 400)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.status, []byte(tt.body), now)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDo: the form and the client authentication reach the endpoint as
// configured, and a refusal's error holds the provider's code but never
// the subject token or the secret.
func TestDo(t *testing.T) {
	t.Parallel()
	var got http.Header
	var form map[string][]string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		got, form = r.Header.Clone(), r.PostForm
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "http://elsewhere.example/token", http.StatusTemporaryRedirect)
			return
		}
		if r.PostForm.Get("subject_token") == "refuse-me" {
			w.WriteHeader(400)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "new", "expires_in": 60})
	}))
	t.Cleanup(ts.Close)
	req := Request{TokenURL: ts.URL, ClientID: "api", ClientSecret: "s3cret", Form: map[string][]string{
		"grant_type": {GrantTokenExchange}, "subject_token": {"user-token"}, "subject_token_type": {TypeAccessToken}}}
	res, err := Do(context.Background(), ts.Client(), req, time.Now)
	require.NoError(t, err)
	assert.Equal(t, "new", res.AccessToken)
	assert.True(t, strings.HasPrefix(got.Get("Authorization"), "Basic "))
	assert.Empty(t, form["client_secret"])

	req.AuthMethod = "client_secret_post"
	_, err = Do(context.Background(), ts.Client(), req, time.Now)
	require.NoError(t, err)
	assert.Equal(t, []string{"s3cret"}, form["client_secret"])
	assert.Empty(t, got.Get("Authorization"))

	req.Form["subject_token"] = []string{"refuse-me"}
	_, err = Do(context.Background(), ts.Client(), req, time.Now)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "invalid_grant", e.Code)
	assert.NotContains(t, err.Error(), "refuse-me")
	assert.NotContains(t, err.Error(), "s3cret")

	moved := req
	moved.TokenURL = ts.URL + "/moved"
	_, err = Do(context.Background(), ts.Client(), moved, time.Now)
	require.ErrorAs(t, err, &e, "a redirect is not followed")
	assert.Equal(t, http.StatusTemporaryRedirect, e.Status)

	req.AuthMethod = "private_key_jwt"
	_, err = Do(context.Background(), ts.Client(), req, time.Now)
	assert.ErrorContains(t, err, "not supported")
}

// FuzzParse holds the decoder of token endpoint answers to no panic, a
// success only with a token, and an expiry never in the past.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"access_token":"a","expires_in":"60"}`, `{"error":"x","error_description":7}`, `null`, `{}`,
		`{"access_token":"a","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A","scope":"s"}`} {
		f.Add(200, []byte(s))
		f.Add(400, []byte(s))
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		r, err := Parse(status, body, now)
		if err != nil {
			return
		}
		if r.AccessToken == "" || status != http.StatusOK {
			t.Fatalf("a success without a token or with status %d: %+v", status, r)
		}
		if !r.Expiry.IsZero() && !r.Expiry.After(now) {
			t.Fatalf("expiry %v before now", r.Expiry)
		}
	})
}

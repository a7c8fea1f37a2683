package middleware_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/middleware"
)

type user struct{ Name string }

// bearerAuth admits "good", refuses a missing or unknown token, asks for
// a scope "reader" lacks, and fails outright for "broken".
func bearerAuth(r *http.Request) (any, error) {
	if r.Header.Get("X-API-Key") != "" {
		return nil, fmt.Errorf("%w: unknown API key", mcp.ErrInvalidToken)
	}
	switch r.Header.Get("Authorization") {
	case "Bearer expired":
		return nil, &mcp.AuthError{Err: fmt.Errorf("%w: exp 1700000000 is past", mcp.ErrUnauthorized),
			Description: "the access token expired", Scope: "tools:read"}
	case "Bearer quote":
		return nil, &mcp.AuthError{Err: fmt.Errorf("%w: quote", mcp.ErrUnauthorized), Description: "bad \"token\"\nhere"}
	case "Bearer narrow":
		return nil, fmt.Errorf("wrapped: %w", &mcp.AuthError{Err: fmt.Errorf("%w: token lacks scope tools:write", mcp.ErrInsufficientScope),
			Description: "the token lacks tools:write", Scope: "tools:read tools:write"})
	case "DPoP proofless":
		return nil, &mcp.AuthError{Err: fmt.Errorf("%w: no DPoP header", mcp.ErrInvalidToken),
			Description: "the request has no DPoP proof", Code: "invalid_dpop_proof",
			Header: http.Header{"WWW-Authenticate": {`DPoP error="invalid_dpop_proof", algs="ES256"`},
				"Dpop-Nonce": {"n-1"}, "Content-Type": {"text/html"}}}
	case "Bearer good":
		return user{Name: "ada"}, nil
	case "":
		return nil, fmt.Errorf("%w: missing bearer token", mcp.ErrUnauthorized)
	case "Bearer reader":
		return nil, fmt.Errorf("%w: token lacks scope tools:write", mcp.ErrInsufficientScope)
	case "Bearer unreachable":
		return nil, fmt.Errorf("%w: jwks at 10.0.0.7 refused", mcp.ErrAuthUnavailable)
	case "Bearer broken":
		return nil, errors.New("dial tcp 10.0.0.7:5432: connection refused")
	default:
		return nil, fmt.Errorf("%w: invalid bearer token secret-detail", mcp.ErrUnauthorized)
	}
}

func TestCheckCredentials(t *testing.T) {
	t.Parallel()
	const challenge = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`
	tests := []struct {
		name          string
		authorization string
		challenge     string
		wantStatus    int
		wantAuth      any
		wantError     string // the "error" member of the body
		wantChallenge string
		wantLog       string // a substring of the logged reason
		wantLevel     string
		apiKey        string // an X-API-Key header

		wantDescription string // the body's error_description, when set
		wantNonce       string // the DPoP-Nonce header
	}{
		{name: "valid token puts auth in the context", authorization: "Bearer good", challenge: challenge,
			wantStatus: http.StatusOK, wantAuth: user{Name: "ada"}},
		{name: "missing token is 401 with the challenge", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "unauthorized", wantChallenge: challenge,
			wantLog: "missing bearer token", wantLevel: "INFO"},
		{name: "bad token is 401 with error=invalid_token", authorization: "Bearer bad", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token", wantChallenge: challenge + `, error="invalid_token"`,
			wantLog: "invalid bearer token", wantLevel: "INFO"},
		{name: "no challenge configured: Bearer with invalid_token", authorization: "Bearer bad",
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token", wantChallenge: `Bearer error="invalid_token"`,
			wantLog: "invalid bearer token", wantLevel: "INFO"},
		{name: "missing token and no challenge configured sends plain Bearer",
			wantStatus: http.StatusUnauthorized, wantError: "unauthorized", wantChallenge: "Bearer",
			wantLog: "missing bearer token", wantLevel: "INFO"},
		{name: "another auth scheme presented is invalid_token too", authorization: "Basic YWRhOnB3", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token", wantChallenge: challenge + `, error="invalid_token"`,
			wantLog: "invalid bearer token", wantLevel: "INFO"},
		{name: "ErrInvalidToken without an Authorization header", challenge: challenge, apiKey: "wrong",
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token", wantChallenge: challenge + `, error="invalid_token"`,
			wantLog: "unknown API key", wantLevel: "INFO"},
		{name: "AuthError adds description and scope", authorization: "Bearer expired", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token",
			wantChallenge:   challenge + `, error="invalid_token", error_description="the access token expired", scope="tools:read"`,
			wantDescription: "the access token expired", wantLog: "exp 1700000000", wantLevel: "INFO"},
		{name: "AuthError description is made header-safe", authorization: "Bearer quote", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid_token",
			wantChallenge: challenge + `, error="invalid_token", error_description="bad  token  here"`,
			wantLog:       "quote", wantLevel: "INFO"},
		{name: "AuthError with its own code, challenge and headers", authorization: "DPoP proofless", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid_dpop_proof",
			wantChallenge:   `DPoP error="invalid_dpop_proof", algs="ES256"`,
			wantDescription: "the request has no DPoP proof", wantLog: "no DPoP header", wantLevel: "INFO", wantNonce: "n-1"},
		{name: "insufficient scope AuthError names the scope", authorization: "Bearer narrow", challenge: challenge,
			wantStatus: http.StatusForbidden, wantError: "insufficient_scope",
			wantChallenge:   challenge + `, error="insufficient_scope", error_description="the token lacks tools:write", scope="tools:read tools:write"`,
			wantDescription: "the token lacks tools:write", wantLog: "tools:write", wantLevel: "INFO"},
		{name: "insufficient scope is 403 with error=insufficient_scope", authorization: "Bearer reader", challenge: challenge,
			wantStatus: http.StatusForbidden, wantError: "insufficient_scope",
			wantChallenge: challenge + `, error="insufficient_scope"`, wantLog: "tools:write", wantLevel: "INFO"},
		{name: "insufficient scope without a configured challenge", authorization: "Bearer reader",
			wantStatus: http.StatusForbidden, wantError: "insufficient_scope",
			wantChallenge: `Bearer error="insufficient_scope"`, wantLog: "tools:write", wantLevel: "INFO"},
		{name: "unavailable is 503 with Retry-After and no challenge", authorization: "Bearer unreachable", challenge: challenge,
			wantStatus: http.StatusServiceUnavailable, wantError: "temporarily_unavailable",
			wantLog: "jwks at", wantLevel: "WARN"},
		{name: "any other error is 500 and logged, with no challenge", authorization: "Bearer broken", challenge: challenge,
			wantStatus: http.StatusInternalServerError, wantError: "server_error",
			wantLog: "connection refused", wantLevel: "ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log, logs := newLogger()
			var called bool
			var gotAuth any
			h := middleware.CheckCredentials(bearerAuth, &middleware.AuthOptions{Challenge: tt.challenge, Logger: log})(
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					called = true
					gotAuth = mcp.AuthFromContext(r.Context())
					_, _ = io.WriteString(w, "ok")
				}))
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			if tt.apiKey != "" {
				req.Header.Set("X-API-Key", tt.apiKey)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantChallenge, rec.Header().Get("WWW-Authenticate"))
			assert.Equal(t, tt.wantNonce, rec.Header().Get("DPoP-Nonce"))
			if tt.wantStatus == http.StatusServiceUnavailable {
				assert.Equal(t, "10", rec.Header().Get("Retry-After"))
			}
			if tt.wantStatus == http.StatusOK {
				require.True(t, called)
				assert.Equal(t, tt.wantAuth, gotAuth)
				assert.Empty(t, logs.lines(t))
				return
			}
			assert.False(t, called, "the wrapped handler must not run on a refusal")
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			var body map[string]string
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, tt.wantError, body["error"])
			assert.NotEmpty(t, body["error_description"])
			if tt.wantDescription != "" {
				assert.Equal(t, tt.wantDescription, body["error_description"])
			}
			assert.NotContains(t, rec.Body.String(), "secret-detail", "the error's text must not reach the client")
			assert.NotContains(t, rec.Body.String(), "10.0.0.7", "the error's text must not reach the client")
			lines := logs.lines(t)
			require.Len(t, lines, 1)
			assert.Equal(t, tt.wantLevel, lines[0]["level"])
			assert.Contains(t, fmt.Sprint(lines[0]["reason"], lines[0]["err"]), tt.wantLog)
		})
	}
}

// TestCheckCredentialsAnonymous: a check that admits a caller without auth
// data (nil, nil) leaves nil in the context, replacing what an earlier
// check put there, and passes a request that had none on unchanged.
func TestCheckCredentialsAnonymous(t *testing.T) {
	t.Parallel()
	anonymous := func(*http.Request) (any, error) { return nil, nil }
	tests := []struct {
		name    string
		earlier any // auth data an earlier check put in the context
		sameReq bool
	}{
		{name: "no earlier auth data: the request as it came", sameReq: true},
		{name: "earlier auth data is replaced by none", earlier: user{Name: "ada"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tt.earlier != nil {
				req = req.WithContext(mcp.WithAuth(req.Context(), tt.earlier))
			}
			var got *http.Request
			h := middleware.CheckCredentials(anonymous, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
			h.ServeHTTP(httptest.NewRecorder(), req)
			require.NotNil(t, got, "the request went on")
			assert.Nil(t, mcp.AuthFromContext(got.Context()))
			assert.Equal(t, tt.sameReq, got == req)
		})
	}
}

func TestFixedAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		auth any
	}{
		{name: "fixed auth data", auth: user{Name: "local"}},
		{name: "nil leaves the context alone", auth: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got any = "unset"
			h := middleware.FixedAuth(tt.auth)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = mcp.AuthFromContext(r.Context())
			}))
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
			assert.Equal(t, tt.auth, got)
		})
	}
}

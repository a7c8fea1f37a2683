package middleware_test

import (
	"encoding/json"
	"errors"
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

func bearerAuth(r *http.Request) (any, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer good":
		return user{Name: "ada"}, nil
	case "":
		return nil, errors.New("missing bearer token")
	default:
		return nil, errors.New("invalid bearer token")
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	const challenge = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`
	tests := []struct {
		name          string
		authorization string
		challenge     string
		wantStatus    int
		wantAuth      any
		wantError     string
		wantChallenge string
	}{
		{name: "valid token puts auth in the context", authorization: "Bearer good", challenge: challenge,
			wantStatus: http.StatusOK, wantAuth: user{Name: "ada"}},
		{name: "missing token is 401 with the challenge", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "missing bearer token", wantChallenge: challenge},
		{name: "bad token is 401 with the challenge", authorization: "Bearer bad", challenge: challenge,
			wantStatus: http.StatusUnauthorized, wantError: "invalid bearer token", wantChallenge: challenge},
		{name: "no challenge configured sends none", authorization: "Bearer bad",
			wantStatus: http.StatusUnauthorized, wantError: "invalid bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var called bool
			var gotAuth any
			h := middleware.Authenticate(bearerAuth, tt.challenge)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				gotAuth = mcp.AuthFromContext(r.Context())
				_, _ = io.WriteString(w, "ok")
			}))
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantChallenge, rec.Header().Get("WWW-Authenticate"))
			if tt.wantStatus == http.StatusOK {
				require.True(t, called)
				assert.Equal(t, tt.wantAuth, gotAuth)
				return
			}
			assert.False(t, called, "the wrapped handler must not run on 401")
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			var body map[string]string
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, map[string]string{"error": "unauthorized", "error_description": tt.wantError}, body)
		})
	}
}

func TestWithAuth(t *testing.T) {
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
			h := middleware.WithAuth(tt.auth)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = mcp.AuthFromContext(r.Context())
			}))
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
			assert.Equal(t, tt.auth, got)
		})
	}
}

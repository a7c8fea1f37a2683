package middleware_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/middleware"
)

const allMCPHeaders = "authorization,content-type,last-event-id,mcp-method,mcp-name,mcp-protocol-version,mcp-session-id"

func TestCORS(t *testing.T) {
	t.Parallel()
	const app = "https://app.example"
	listed := &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{app}}}
	tests := []struct {
		name       string
		opts       *middleware.CORSOptions
		method     string
		header     map[string]string
		wantStatus int
		wantNext   bool              // the wrapped handler ran
		want       map[string]string // response headers; "" means absent
	}{
		{
			name: "default refuses a preflight but answers it", opts: nil, method: http.MethodOptions,
			header:     map[string]string{"Origin": app, "Access-Control-Request-Method": "POST"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": ""},
		},
		{
			name: "default adds nothing to an actual request", opts: &middleware.CORSOptions{}, method: http.MethodPost,
			header:     map[string]string{"Origin": app},
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": "", "Vary": "Origin"},
		},
		{
			name: "listed origin, preflight with every MCP header", opts: listed, method: http.MethodOptions,
			header: map[string]string{"Origin": app, "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": allMCPHeaders},
			wantStatus: http.StatusNoContent,
			want: map[string]string{"Access-Control-Allow-Origin": app, "Access-Control-Allow-Methods": "POST",
				"Access-Control-Allow-Headers": allMCPHeaders, "Access-Control-Max-Age": "",
				"Access-Control-Allow-Credentials": ""},
		},
		{
			name: "listed origin, DELETE preflight", opts: listed, method: http.MethodOptions,
			header:     map[string]string{"Origin": app, "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "mcp-session-id"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": app, "Access-Control-Allow-Methods": "DELETE"},
		},
		{
			name: "method outside the transport is refused", opts: listed, method: http.MethodOptions,
			header:     map[string]string{"Origin": app, "Access-Control-Request-Method": "PUT"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "unknown request header is refused", opts: listed, method: http.MethodOptions,
			header:     map[string]string{"Origin": app, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-tenant"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "extra allowed header", opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{app}}, AllowedHeaders: []string{"X-Tenant"}},
			method:     http.MethodOptions,
			header:     map[string]string{"Origin": app, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-tenant"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": app, "Access-Control-Allow-Headers": "content-type,x-tenant"},
		},
		{
			name: "other origin is refused", opts: listed, method: http.MethodOptions,
			header:     map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "listed origin, actual request exposes the MCP headers", opts: listed, method: http.MethodPost,
			header:     map[string]string{"Origin": app},
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Allow-Origin": app,
				"Access-Control-Expose-Headers": "Mcp-Session-Id, Www-Authenticate"},
		},
		{
			name: "extra exposed header", opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{app}}, ExposedHeaders: []string{"X-Request-Id", "mcp-session-id"}},
			method:     http.MethodGet,
			header:     map[string]string{"Origin": app},
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Expose-Headers": "Mcp-Session-Id, Www-Authenticate, X-Request-Id"},
		},
		{
			name: "star allows any origin", opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{"*"}}}, method: http.MethodOptions,
			header:     map[string]string{"Origin": "https://anyone.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "last-event-id,mcp-session-id"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET"},
		},
		{
			name: "wildcard origin", opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{"https://*.example.com"}}}, method: http.MethodPost,
			header:     map[string]string{"Origin": "https://inspector.example.com"},
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Allow-Origin": "https://inspector.example.com"},
		},
		{
			name: "origin func decides", method: http.MethodPost,
			opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{"https://ignored.example"}},
				AllowOriginFunc: func(r *http.Request, origin string) bool { return origin == "http://localhost:6274" }},
			header:     map[string]string{"Origin": "http://localhost:6274"},
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Allow-Origin": "http://localhost:6274"},
		},
		{
			name: "max age, credentials and private network", method: http.MethodOptions,
			opts: &middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{app}}, MaxAge: 10 * time.Minute,
				AllowCredentials: true, AllowPrivateNetwork: true},
			header: map[string]string{"Origin": app, "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Private-Network": "true"},
			wantStatus: http.StatusNoContent,
			want: map[string]string{"Access-Control-Max-Age": "600", "Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Private-Network": "true"},
		},
		{
			name: "no Origin: not a CORS request", opts: listed, method: http.MethodPost,
			wantStatus: http.StatusOK, wantNext: true,
			want: map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "OPTIONS that is not a preflight reaches the handler", opts: listed, method: http.MethodOptions,
			header:     map[string]string{"Origin": app},
			wantStatus: http.StatusOK, wantNext: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next := false
			h := middleware.CORS(tt.opts)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { next = true }))
			req := httptest.NewRequest(tt.method, "/mcp", nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantNext, next, "wrapped handler ran")
			for k, v := range tt.want {
				assert.Equal(t, v, rec.Header().Get(k), "header %s", k)
			}
		})
	}
}

func TestCORSCredentialsWithStarPanics(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() {
		middleware.CORS(&middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{"https://a.example", "*"}}, AllowCredentials: true})
	})
}

func TestCORSBeforeAuthenticate(t *testing.T) {
	t.Parallel()
	const (
		app       = "https://app.example"
		challenge = `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"`
	)
	tests := []struct {
		name       string
		method     string
		header     map[string]string
		wantStatus int
		wantAuth   bool
		want       map[string]string
	}{
		{
			name: "preflight is answered without authentication", method: http.MethodOptions,
			header: map[string]string{"Origin": app, "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "authorization,content-type"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": app, "Access-Control-Allow-Headers": "authorization,content-type"},
		},
		{
			name: "preflight from a refused origin is answered too", method: http.MethodOptions,
			header:     map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
			wantStatus: http.StatusNoContent,
			want:       map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "401 carries CORS headers so the browser can read the challenge", method: http.MethodPost,
			header:     map[string]string{"Origin": app},
			wantStatus: http.StatusUnauthorized, wantAuth: true,
			want: map[string]string{"Access-Control-Allow-Origin": app, "WWW-Authenticate": challenge,
				"Access-Control-Expose-Headers": "Mcp-Session-Id, Www-Authenticate"},
		},
		{
			name: "authenticated request", method: http.MethodPost,
			header:     map[string]string{"Origin": app, "Authorization": "Bearer good"},
			wantStatus: http.StatusOK, wantAuth: true,
			want: map[string]string{"Access-Control-Allow-Origin": app},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			authCalled := false
			auth := func(r *http.Request) (any, error) {
				authCalled = true
				return bearerAuth(r)
			}
			h := alice.New(
				middleware.CORS(&middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{app}}}),
				middleware.CheckCredentials(auth, &middleware.AuthOptions{Challenge: challenge, Logger: slog.New(slog.DiscardHandler)}),
			).ThenFunc(func(http.ResponseWriter, *http.Request) {})
			req := httptest.NewRequest(tt.method, "/mcp", nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantAuth, authCalled, "auth func called")
			for k, v := range tt.want {
				assert.Equal(t, v, rec.Header().Get(k), "header %s", k)
			}
		})
	}
}

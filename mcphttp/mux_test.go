package mcphttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/mcphttp"
)

func newMuxServer(t *testing.T, o mcp.Options) *httptest.Server {
	t.Helper()
	return newMuxServerWith(t, o, nil)
}

// newMuxServerWith is newMuxServer with handler options.
func newMuxServerWith(t *testing.T, o mcp.Options, ho *mcphttp.Options) *httptest.Server {
	t.Helper()
	o.Name, o.Version, o.Logger = "mux", "1.0.0", discardLogger()
	srv := mcp.NewServer(o)
	srv.AddRoute("GET", "/users/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "auth": mcp.AuthFromContext(r.Context())})
	}), nil)
	srv.AddRoute("post", "/hooks", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusCreated, map[string]bool{"ok": true})
	}), &mcp.RouteOptions{Public: true})
	h := mcphttp.New(srv, ho)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

func fetch(t *testing.T, method, url, token string) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestMuxHealthAndRoutes(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, fmt.Errorf("%w: bad or missing token", mcp.ErrUnauthorized)
		}
		return "good-user", nil
	}
	ts := newMuxServer(t, mcp.Options{Authenticate: auth})
	custom := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{Health: &mcphttp.HealthOptions{Path: "/healthz", Message: "fine", Status: 299}})
	off := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{Health: &mcphttp.HealthOptions{Disabled: true}})
	tests := []struct {
		name, method, url, token string
		status                   int
		body                     string
	}{
		{"health default", "GET", ts.URL + "/health", "", 200, "ok"},
		{"health HEAD", "HEAD", ts.URL + "/health", "", 200, ""},
		{"health is public", "GET", ts.URL + "/health", "", 200, "ok"},
		{"health custom", "GET", custom.URL + "/healthz", "", 299, "fine"},
		{"health custom old path", "GET", custom.URL + "/health", "", 404, "404 page not found\n"},
		{"health disabled", "GET", off.URL + "/health", "", 404, "404 page not found\n"},
		{"route needs auth", "GET", ts.URL + "/users/7", "", 401, `"error_description":"Unauthorized: the request needs valid credentials"`},
		{"route with auth and param", "GET", ts.URL + "/users/7", "good", 200, `{"auth":"good-user","id":"7"}`},
		{"public route, lower-case method", "POST", ts.URL + "/hooks", "", 201, `{"ok":true}`},
		{"route method mismatch", "PUT", ts.URL + "/hooks", "", 405, ""},
		{"MCP endpoint behind auth", "POST", ts.URL + "/mcp", "", 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := fetch(t, tt.method, tt.url, tt.token)
			require.Equal(t, tt.status, resp.StatusCode, body)
			if tt.body != "" {
				if tt.body[0] == '{' {
					require.JSONEq(t, tt.body, body)
				} else {
					require.Contains(t, body, tt.body)
				}
			}
			if tt.name == "health default" {
				require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestMuxServesDiscoveryWhenOAuthEnabled(t *testing.T) {
	t.Parallel()
	ts := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{OAuth: &discovery.Options{Enabled: true,
		ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://api.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}}}})
	resp, body := fetch(t, "GET", ts.URL+"/.well-known/oauth-protected-resource/mcp", "")
	require.Equal(t, 200, resp.StatusCode, body)
	require.JSONEq(t, `{"resource":"https://api.example.com/mcp","authorization_servers":["https://auth.example.com"]}`, body)
}

func TestAddRouteRejectsBadInput(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "x", Version: "1.0.0", Logger: discardLogger()})
	ok := http.NotFoundHandler()
	require.PanicsWithValue(t, `mcp: AddRoute: method "TRACE" is not one of GET, POST, PUT, PATCH, DELETE, OPTIONS`, func() { srv.AddRoute("TRACE", "/x", ok, nil) })
	require.PanicsWithValue(t, `mcp: AddRoute: path "x" must start with /`, func() { srv.AddRoute("GET", "x", ok, nil) })
	require.PanicsWithValue(t, "mcp: AddRoute: nil handler", func() { srv.AddRoute("GET", "/x", nil, nil) })
}

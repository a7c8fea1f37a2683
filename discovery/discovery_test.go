package discovery_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/discovery"
)

func TestMountServesBothDocuments(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	discovery.Mount(mux, &discovery.Options{
		Enabled: true,
		AuthorizationServer: &discovery.AuthorizationServerMetadata{
			Issuer: "https://auth.example.com", AuthorizationEndpoint: "https://auth.example.com/authorize",
			TokenEndpoint: "https://auth.example.com/token", ResponseTypesSupported: []string{"code"},
			CodeChallengeMethodsSupported: []string{"S256"},
		},
		ProtectedResource: &discovery.ProtectedResourceMetadata{
			Resource: "https://api.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"},
			ScopesSupported: []string{"read"},
		},
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	tests := []struct {
		path string
		want map[string]any
	}{
		{discovery.AuthorizationServerPath, map[string]any{
			"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize",
			"token_endpoint": "https://auth.example.com/token", "response_types_supported": []any{"code"},
			"code_challenge_methods_supported": []any{"S256"}}},
		{discovery.ProtectedResourcePath, map[string]any{
			"resource": "https://api.example.com", "authorization_servers": []any{"https://auth.example.com"},
			"scopes_supported": []any{"read"}}},
		{discovery.ProtectedResourcePath + "/mcp", map[string]any{
			"resource": "https://api.example.com/mcp", "authorization_servers": []any{"https://auth.example.com"},
			"scopes_supported": []any{"read"}}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			resp, err := http.Get(ts.URL + tt.path)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, 200, resp.StatusCode)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var got map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
			require.Equal(t, tt.want, got)
		})
	}
	resp, err := http.Post(ts.URL+discovery.ProtectedResourcePath, "application/json", nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 405, resp.StatusCode, string(b))
	require.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
}

func TestMountPathRulesAndIdempotence(t *testing.T) {
	t.Parallel()
	o := &discovery.Options{
		Enabled: true,
		AuthorizationServer: &discovery.AuthorizationServerMetadata{Issuer: "https://h.example/tenant1",
			AuthorizationEndpoint: "https://h.example/tenant1/oauth/authorize", TokenEndpoint: "https://h.example/tenant1/oauth/token",
			ResponseTypesSupported: []string{"code"}, AuthorizationResponseIssParameterSupported: true},
		ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://h.example/tenant1/mcp",
			AuthorizationServers: []string{"https://h.example/tenant1"}},
	}
	mux := http.NewServeMux()
	discovery.Mount(mux, o)
	require.NotPanics(t, func() { discovery.Mount(mux, o) }, "mounting the same documents twice is harmless")
	tests := []struct{ path, field, want string }{
		{"/.well-known/oauth-authorization-server/tenant1", "issuer", "https://h.example/tenant1"},
		{"/.well-known/oauth-authorization-server", "issuer", "https://h.example/tenant1"},
		{"/.well-known/oauth-protected-resource/tenant1/mcp", "resource", "https://h.example/tenant1/mcp"},
		{"/.well-known/oauth-protected-resource", "resource", "https://h.example"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		require.Equal(t, 200, rec.Code, tt.path)
		require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
		require.Contains(t, rec.Header().Get("Cache-Control"), "max-age")
		var got map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		require.Equal(t, tt.want, got[tt.field], tt.path)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-authorization-server/tenant1", nil))
	require.Contains(t, rec.Body.String(), `"authorization_response_iss_parameter_supported":true`)
}

func TestMountDisabled(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	discovery.Mount(mux, &discovery.Options{Enabled: false, ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://x"}})
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", discovery.ProtectedResourcePath, nil))
	require.Equal(t, 404, rec.Code)
}

func TestResourceMetadataURLAndChallenge(t *testing.T) {
	t.Parallel()
	tests := []struct{ resource, want string }{
		{"https://api.example.com/mcp", "https://api.example.com/.well-known/oauth-protected-resource/mcp"},
		{"https://api.example.com/", "https://api.example.com/.well-known/oauth-protected-resource"},
		{"https://api.example.com", "https://api.example.com/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:8000/a/mcp?x=1", "http://127.0.0.1:8000/.well-known/oauth-protected-resource/a/mcp"},
	}
	for _, tt := range tests {
		got, err := discovery.ResourceMetadataURL(tt.resource)
		require.NoError(t, err)
		require.Equal(t, tt.want, got, tt.resource)
	}
	require.Equal(t, `Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="read write"`,
		discovery.Challenge("https://h/.well-known/oauth-protected-resource/mcp", "read write"))
	require.Equal(t, `Bearer resource_metadata="https://h/\"x\""`, discovery.Challenge(`https://h/"x"`, ""))
}

func ExampleChallenge() {
	u, _ := discovery.ResourceMetadataURL("https://api.example.com/mcp")
	fmt.Println(discovery.Challenge(u, ""))
	// Output: Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"
}

package mcphttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestDiscoveryUnderPrefix: with NewMux mounted under /api by
// http.StripPrefix, the 401 challenge points at the RFC 9728 path of the
// resource (/.well-known/oauth-protected-resource/api/mcp, at the host's
// root). The recipe's second line, the same mux at /.well-known/, serves
// the document there (and the RFC 8414 one of an issuer under /api);
// without it the client following the challenge gets 404.
func TestDiscoveryUnderPrefix(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		wellKnown bool
		want      int
	}{
		{"with the well-known line", true, http.StatusOK},
		{"prefix alone", false, http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent := http.NewServeMux()
			ts := httptest.NewUnstartedServer(parent)
			base := "http://" + ts.Listener.Addr().String()
			srv := mcp.NewServer(mcp.Options{Name: "prefixed", Version: "1.0.0", Logger: discardLogger(),
				Authenticate: func(*http.Request) (any, error) { return nil, mcp.ErrUnauthorized }})
			h := mcphttp.New(srv, &mcphttp.Options{OAuth: &discovery.Options{Enabled: true,
				ProtectedResource:   &discovery.ProtectedResourceMetadata{Resource: base + "/api/mcp", AuthorizationServers: []string{base + "/api"}},
				AuthorizationServer: &discovery.AuthorizationServerMetadata{Issuer: base + "/api", AuthorizationEndpoint: base + "/api/authorize", TokenEndpoint: base + "/api/token"},
			}})
			m := mcphttp.NewMux(h, nil)
			parent.Handle("/api/", http.StripPrefix("/api", m))
			if tt.wellKnown {
				parent.Handle("/.well-known/", m)
			}
			ts.Start()
			t.Cleanup(func() { _ = h.Close(); ts.Close() })

			req := wiretest.NewRequest(t.Context(), http.MethodPost, base+"/api/mcp",
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			resp, _, err := wiretest.Do(ts.Client(), req)
			require.NoError(t, err)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			found := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(resp.Header.Get("WWW-Authenticate"))
			require.NotNil(t, found, "the challenge names the metadata: %q", resp.Header.Get("WWW-Authenticate"))
			require.Equal(t, base+"/.well-known/oauth-protected-resource/api/mcp", found[1], "RFC 9728: the well-known path, then the resource's path")

			var doc discovery.ProtectedResourceMetadata
			assert.Equal(t, tt.want, getJSON(t, ts.Client(), found[1], &doc))
			if tt.want != http.StatusOK {
				return
			}
			assert.Equal(t, base+"/api/mcp", doc.Resource, "the document names the resource the client asked for")
			require.Len(t, doc.AuthorizationServers, 1)
			var as discovery.AuthorizationServerMetadata
			// RFC 8414 §3.1: the issuer's path after the well-known path.
			require.Equal(t, http.StatusOK, getJSON(t, ts.Client(), base+"/.well-known/oauth-authorization-server/api", &as))
			assert.Equal(t, doc.AuthorizationServers[0], as.Issuer)
		})
	}
}

// getJSON GETs url and decodes a 200 answer into v; it returns the status.
func getJSON(t *testing.T, hc *http.Client, url string, v any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(body, v), "%s", body)
	}
	return resp.StatusCode
}

package oauth

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestLegacySSEAuthorized: the deprecated HTTP+SSE transport goes through
// the handler too: the GET of the event stream gets the 401 and the
// authorization, the POSTs to the endpoint it names carry the token.
func TestLegacySSEAuthorized(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "legacy", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Context, in struct{ S string }) (string, error) {
		return in.S, nil
	})
	h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true})
	defer h.Close()
	mcpMux := mcphttp.NewMux(h, nil)
	f := &fake{prmPath: "/.well-known/oauth-protected-resource/sse", prmInHeader: true,
		asMetaPath: "/.well-known/oauth-authorization-server"}
	newFake(t, f)
	f.rs.Close()
	posts := 0
	f.rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			f.serveRS(w, r)
			return
		}
		f.mu.Lock()
		_, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if r.Method == http.MethodPost {
			posts++
		}
		f.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.rs.URL+f.prmPath+`"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpMux.ServeHTTP(w, r)
	}))
	defer f.rs.Close()
	f.prmResource = f.rs.URL + mcphttp.LegacySSEPath
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	auth := newHandler(f, Config{})
	c, err := client.Connect(ctx, client.LegacySSE(f.rs.URL+mcphttp.LegacySSEPath,
		&client.HTTPOptions{Client: &http.Client{Transport: tr}, Auth: auth}), &client.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	res, err := c.CallTool(ctx, "echo", map[string]string{"S": "hi"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Text())
	require.NoError(t, c.Close())
	assert.Len(t, f.authReqs, 1)
	assert.Equal(t, f.rs.URL+mcphttp.LegacySSEPath, f.authReqs[0].Get("resource"))
	assert.Positive(t, posts)
}

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestCacheHintsTypeScript: the official TypeScript SDK's client
// (@modelcontextprotocol/client, pinned to 2026-07-28) reads the caching
// hints the author set, and its response cache acts on them: a list or a
// read with a positive ttlMs is asked once for two calls, one with ttlMs
// 0 twice. A resource with CanAccess goes out private although its hint
// says public.
func TestCacheHintsTypeScript(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "cache-e2e", Version: "1.0.0",
		Cache: &mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}}})
	mcp.AddTool(srv, mcp.Tool{Name: "search"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	srv.AddPrompt(mcp.Prompt{Name: "summarize", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("Summarize."), nil
	}})
	text := func(s string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: s}}, nil
		}
	}
	srv.AddResource(mcp.Resource{URI: "docs://license", Name: "license", Load: text("MIT"),
		Cache: mcp.CacheHint{TTL: 24 * time.Hour, Scope: mcp.CachePublic}})
	srv.AddResource(mcp.Resource{URI: "me://inbox", Name: "inbox", Load: text("empty")})
	srv.AddResource(mcp.Resource{URI: "team://notes", Name: "notes", Load: text("notes"),
		CanAccess: func(context.Context, any) bool { return true },
		Cache:     mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}})

	// asked counts the requests that reached the server, by method and
	// Mcp-Name (the URI of a read).
	var mu sync.Mutex
	asked := map[string]int{}
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := r.Header.Get("Mcp-Method"); m != "" {
			mu.Lock()
			asked[m+" "+r.Header.Get("Mcp-Name")]++
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	run := runNode(t, 70*time.Second, "cache-client.mjs", ts.URL, "docs://license", "me://inbox", "team://notes")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cache-client.mjs stderr:\n%s\nstdout:\n%s", run.stderr, run.stdout)
		}
	})
	var out struct {
		ProtocolVersion string `json:"protocolVersion"`
		Results         map[string]struct {
			TTLMs      *int64  `json:"ttlMs"`
			CacheScope *string `json:"cacheScope"`
		} `json:"results"`
		Error *string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(run.stdout, &out), "cache-client.mjs must print one JSON object")
	require.Nil(t, out.Error)
	require.Equal(t, 0, run.exitCode)
	assert.Equal(t, "2026-07-28", out.ProtocolVersion)

	for _, tt := range []struct {
		key   string // in out.Results
		asked string // in asked
		ttl   int64
		scope string
		times int
	}{
		{"tools/list", "tools/list ", 60000, "public", 1},
		{"prompts/list", "prompts/list ", 0, "public", 2},
		{"docs://license", "resources/read docs://license", 86400000, "public", 1},
		{"me://inbox", "resources/read me://inbox", 0, "public", 2},
		{"team://notes", "resources/read team://notes", 60000, "private", 1},
	} {
		got, ok := out.Results[tt.key]
		require.True(t, ok, "%s: no result", tt.key)
		require.NotNil(t, got.TTLMs, "%s: no ttlMs", tt.key)
		require.NotNil(t, got.CacheScope, "%s: no cacheScope", tt.key)
		assert.Equal(t, tt.ttl, *got.TTLMs, "%s ttlMs", tt.key)
		assert.Equal(t, tt.scope, *got.CacheScope, "%s cacheScope", tt.key)
		mu.Lock()
		n := asked[tt.asked]
		mu.Unlock()
		assert.Equal(t, tt.times, n, "%s: requests the server saw for two calls", tt.key)
	}
}

package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestCacheHintChecked: a negative TTL or an unknown scope is a
// programmer's error: NewServer panics naming the option, and a resource
// or template is refused with ErrInvalidDefinition naming the field.
func TestCacheHintChecked(t *testing.T) {
	t.Parallel()
	bad := []struct {
		name string
		hint mcp.CacheHint
		want string
	}{
		{"negative TTL", mcp.CacheHint{TTL: -time.Second}, "TTL is -1s: a TTL is 0 (stale at once) or more"},
		{"unknown scope", mcp.CacheHint{Scope: "shared"}, `Scope "shared" is not a scope`},
	}
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }
	tload := func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
		return nil, nil
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, o := range []struct {
				field string
				opts  mcp.CacheOptions
			}{
				{"Tools", mcp.CacheOptions{Tools: tt.hint}},
				{"Resources", mcp.CacheOptions{Resources: tt.hint}},
				{"ResourceTemplates", mcp.CacheOptions{ResourceTemplates: tt.hint}},
				{"Prompts", mcp.CacheOptions{Prompts: tt.hint}},
				{"Discover", mcp.CacheOptions{Discover: tt.hint}},
			} {
				func() {
					defer func() {
						v := recover()
						require.NotNil(t, v, "NewServer accepted Options.Cache.%s", o.field)
						assert.Contains(t, v, "mcp: NewServer: Options.Cache."+o.field+"."+tt.want)
					}()
					mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Cache: &o.opts})
				}()
			}
			srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
			err := srv.Registry().AddResource(mcp.Resource{URI: "mem://r", Name: "r", Load: load, Cache: tt.hint})
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), `resource "mem://r": Resource.Cache.`+tt.want)
			err = srv.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://{x}", Name: "t", Load: tload, Cache: tt.hint})
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), `template "mem://{x}": ResourceTemplate.Cache.`+tt.want)
			assert.Empty(t, srv.ListResources(context.Background(), nil))
			assert.Empty(t, srv.ListResourceTemplates(context.Background(), nil))
		})
	}
	// The server keeps a copy of the options: the caller's may change
	// afterwards.
	opts := &mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}}
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Cache: opts})
	opts.Tools = mcp.CacheHint{TTL: -time.Minute, Scope: "shared"}
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{ProtocolVersion: mcp.Version20260728})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	var res struct {
		TTLMs      int64  `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	require.NoError(t, c.Call(t.Context(), "tools/list", nil, &res))
	assert.Equal(t, int64(60000), res.TTLMs)
	assert.Equal(t, "public", res.CacheScope)
}

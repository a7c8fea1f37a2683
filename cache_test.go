package mcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
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

// cacheSetup is wiretest.CacheServer with the list hints cache; add
// registers more, and wrap, when set, is middleware around the engine.
type cacheSetup struct {
	cache *mcp.CacheOptions
	add   func(srv *mcp.Server)
	wrap  func(http.Handler) http.Handler
}

// handler is the engine serving the setup's server, behind wrap.
func (cs cacheSetup) handler(t *testing.T) http.Handler {
	t.Helper()
	srv := wiretest.CacheServer(cs.cache)
	if cs.add != nil {
		cs.add(srv)
	}
	engine := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = engine.Close() })
	if cs.wrap != nil {
		return cs.wrap(engine)
	}
	return engine
}

// cacheReq is one cacheable request: its method and, for resources/read,
// the URI.
type cacheReq struct{ method, uri string }

var (
	toolsList     = cacheReq{"tools/list", ""}
	resourcesList = cacheReq{"resources/list", ""}
	templatesList = cacheReq{"resources/templates/list", ""}
	promptsList   = cacheReq{"prompts/list", ""}
	discover      = cacheReq{"server/discover", ""}
)

func read(uri string) cacheReq { return cacheReq{"resources/read", uri} }

// scope sends q to h at 2026-07-28, as user ("": anonymous), and returns
// the cacheScope of its result.
func (q cacheReq) scope(t *testing.T, h http.Handler, user string) string {
	t.Helper()
	var header http.Header
	if user != "" {
		header = http.Header{"X-User": {user}}
	}
	c, err := client.Connect(t.Context(), client.InProcess(h, header), &client.Options{ProtocolVersion: mcp.Version20260728, Logger: quietLogger()})
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	var params any
	if q.uri != "" {
		params = map[string]string{"uri": q.uri}
	}
	var res struct {
		CacheScope string `json:"cacheScope"`
	}
	require.NoError(t, c.Call(t.Context(), q.method, params, &res))
	return res.CacheScope
}

// TestCacheScopeRules: the scope each result goes out with at 2026-07-28,
// by the rules of mcp.CacheHint: the author's private always wins; what
// may depend on the caller is private whatever the author asked; the
// author's public holds otherwise, even authenticated; with no scope
// asked, authenticated is private and anonymous public.
func TestCacheScopeRules(t *testing.T) {
	t.Parallel()
	allPublic := &mcp.CacheOptions{
		Tools:             mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Resources:         mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		ResourceTemplates: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Prompts:           mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Discover:          mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
	}
	adminOnly := access.Check(func(_ context.Context, auth any) bool { return auth == wiretest.CacheUser("admin") })
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "x"}}, nil
	}
	publicMinute := mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}
	child := func(add func(*mcp.Server)) *mcp.Server {
		c := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: quietLogger()})
		mcp.AddTool(c, mcp.Tool{Name: "inner"}, noop)
		if add != nil {
			add(c)
		}
		return c
	}

	type check struct {
		req  cacheReq
		user string
		want string // cacheScope
	}
	tests := []struct {
		name   string
		server cacheSetup
		checks []check
	}{
		{"no hints: authenticated private, anonymous public", cacheSetup{}, []check{
			{toolsList, "", "public"}, {toolsList, "alice", "private"},
			{resourcesList, "alice", "private"}, {templatesList, "alice", "private"}, {promptsList, "alice", "private"},
			{discover, "", "public"}, {discover, "alice", "private"},
			{read("mem://plain"), "", "public"}, {read("mem://plain"), "alice", "private"},
		}},
		{"the author's public holds for an authenticated caller", cacheSetup{cache: allPublic}, []check{
			{toolsList, "alice", "public"}, {resourcesList, "alice", "public"}, {templatesList, "alice", "public"},
			{promptsList, "alice", "public"}, {discover, "alice", "public"},
			{read("mem://shared"), "alice", "public"}, {read("doc://a"), "alice", "public"},
		}},
		{"a read the author marked nothing is private when authenticated", cacheSetup{cache: allPublic}, []check{
			{read("mem://plain"), "alice", "private"}, {read("mem://plain"), "", "public"},
		}},
		{"the author's private holds for an anonymous caller", cacheSetup{cache: &mcp.CacheOptions{
			Tools: mcp.CacheHint{Scope: mcp.CachePrivate}, Discover: mcp.CacheHint{Scope: mcp.CachePrivate}},
			add: func(srv *mcp.Server) {
				srv.AddResource(mcp.Resource{URI: "mem://mine", Name: "mine", Load: load, Cache: mcp.CacheHint{Scope: mcp.CachePrivate}})
			}}, []check{
			{toolsList, "", "private"}, {discover, "", "private"}, {read("mem://mine"), "", "private"},
			{promptsList, "", "public"},
		}},
		{"a tool with CanAccess makes tools/list private, and only it", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			mcp.AddTool(srv, mcp.Tool{Name: "admin", CanAccess: adminOnly}, noop)
		}}, []check{
			{toolsList, "admin", "private"}, {toolsList, "alice", "private"}, {toolsList, "", "private"},
			{promptsList, "alice", "public"}, {resourcesList, "alice", "public"}, {discover, "alice", "public"},
		}},
		{"a prompt, resource or template with CanAccess makes its list private", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			srv.AddPrompt(mcp.Prompt{Name: "secret", CanAccess: access.Authenticated, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
				return mcp.UserText("s"), nil
			}})
			srv.AddResource(mcp.Resource{URI: "mem://secret", Name: "secret", CanAccess: access.Authenticated, Load: load, Cache: publicMinute})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "vault://{k}", Name: "vault", CanAccess: access.Authenticated, Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "v"}}, nil
				}})
		}}, []check{
			{promptsList, "alice", "private"}, {resourcesList, "", "private"}, {templatesList, "alice", "private"},
			{toolsList, "alice", "public"},
		}},
		{"a read of an object with CanAccess is private, even marked public", cacheSetup{add: func(srv *mcp.Server) {
			srv.AddResource(mcp.Resource{URI: "mem://secret", Name: "secret", CanAccess: access.Authenticated, Load: load, Cache: publicMinute})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "vault://{k}", Name: "vault", CanAccess: access.Authenticated, Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "v"}}, nil
				}})
		}}, []check{
			{read("mem://secret"), "alice", "private"}, {read("vault://k1"), "alice", "private"},
			{read("mem://shared"), "alice", "public"}, {read("doc://a"), "alice", "public"},
		}},
		{"a read another caller would get from an object this one is refused is private", cacheSetup{add: func(srv *mcp.Server) {
			// doc://secret is a static resource only admin sees; others
			// read it through the public template doc://{page}.
			srv.AddResource(mcp.Resource{URI: "doc://secret", Name: "secret", CanAccess: adminOnly, Load: load})
			// A template with a check before a public one that matches too.
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "wiki://{a}/{b}", Name: "gated", CanAccess: adminOnly,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "gated"}}, nil
				}})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "wiki://{+path}", Name: "open", Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "open"}}, nil
				}})
		}}, []check{
			{read("doc://secret"), "alice", "private"}, {read("doc://secret"), "", "private"},
			{read("doc://other"), "alice", "public"},
			{read("wiki://x/y"), "alice", "private"}, {read("wiki://x"), "alice", "public"},
		}},
		{"a version with CanAccess makes tools/list private", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			mcp.AddTool(srv, mcp.Tool{Name: "calc", Version: "1.0.0"}, noop)
			mcp.AddTool(srv, mcp.Tool{Name: "calc", Version: "2.0.0", CanAccess: adminOnly}, noop)
		}}, []check{{toolsList, "alice", "private"}, {toolsList, "admin", "private"}, {promptsList, "alice", "public"}}},
		{"an access policy in the request makes every list and read private", cacheSetup{cache: allPublic,
			wrap: middleware.RestrictAccess(func(context.Context, access.Query) bool { return true })}, []check{
			{toolsList, "alice", "private"}, {resourcesList, "", "private"}, {templatesList, "alice", "private"},
			{promptsList, "alice", "private"}, {read("mem://shared"), "alice", "private"}, {read("doc://a"), "", "private"},
			{discover, "alice", "public"},
		}},
		{"a session access policy too", cacheSetup{cache: allPublic, wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p := mcp.Restrict(mcp.Match{Tags: []string{"admin"}}, access.Roles("admin"))
				next.ServeHTTP(w, r.WithContext(access.WithPolicy(r.Context(), p)))
			})
		}}, []check{{toolsList, "alice", "private"}, {promptsList, "", "private"}}},
		{"a version filter makes tools/list private, and only it", cacheSetup{cache: allPublic, wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(w, r.WithContext(mcp.WithVersionFilter(r.Context(), func(string) bool { return true })))
			})
		}}, []check{{toolsList, "alice", "private"}, {promptsList, "alice", "public"}}},
		{"a mount with CanAccess makes the lists private", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(nil), &mcp.MountOptions{CanAccess: access.Authenticated})
		}}, []check{{toolsList, "alice", "private"}, {toolsList, "", "private"}, {promptsList, "alice", "private"}}},
		{"a mounted server's CanAccess makes the list private", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				mcp.AddTool(c, mcp.Tool{Name: "gated", CanAccess: adminOnly}, noop)
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
				c.AddResource(mcp.Resource{URI: "kid://gated", Name: "gated", Load: load, Cache: publicMinute, CanAccess: access.Authenticated})
			}), nil)
		}}, []check{
			{toolsList, "alice", "private"}, {promptsList, "alice", "public"}, {resourcesList, "alice", "private"},
			{read("kid://kid/open"), "alice", "public"}, {read("kid://kid/gated"), "alice", "private"},
		}},
		{"a plain mount keeps the author's public", cacheSetup{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
			}), nil)
		}}, []check{{toolsList, "alice", "public"}, {resourcesList, "alice", "public"}, {read("kid://kid/open"), "alice", "public"}}},
		{"reads through a mount with CanAccess are private", cacheSetup{add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
			}), &mcp.MountOptions{CanAccess: access.Authenticated})
		}}, []check{{read("kid://kid/open"), "alice", "private"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.server.handler(t)
			for _, c := range tt.checks {
				assert.Equal(t, c.want, c.req.scope(t, h, c.user), "%s %s as %q", c.req.method, c.req.uri, c.user)
			}
		})
	}
}

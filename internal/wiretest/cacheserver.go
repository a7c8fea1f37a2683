package wiretest

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpchain/mcp"
)

// CacheUser is the auth data CacheServer makes of a request's X-User
// header: a caller with a subject (which a requestState binds).
type CacheUser string

// Subject is the user's name.
func (u CacheUser) Subject() string { return string(u) }

// CacheServer is the server of the tests of the caching hints (ttlMs and
// cacheScope): cache as its list hints, the tool "echo", the prompt
// "greet", the resources mem://plain (no hint of its own) and
// mem://shared (90 s, public), and the template doc://{page} (2.5 s,
// public). A request with an X-User header is authenticated as that
// CacheUser, one without is anonymous. A test adds what else it needs.
func CacheServer(cache *mcp.CacheOptions) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "cache-test", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler), Cache: cache,
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return CacheUser(u), nil
			}
			return nil, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
	text := func(s string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: s}}, nil
		}
	}
	srv.AddResource(mcp.Resource{URI: "mem://plain", Name: "plain", Load: text("plain")})
	srv.AddResource(mcp.Resource{URI: "mem://shared", Name: "shared", Load: text("shared"),
		Cache: mcp.CacheHint{TTL: 90 * time.Second, Scope: mcp.CachePublic}})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "doc://{page}", Name: "doc",
		Cache: mcp.CacheHint{TTL: 2500 * time.Millisecond, Scope: mcp.CachePublic},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: args["page"]}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("hi"), nil
	}})
	return srv
}

package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// Caching hints tell a client of revision 2026-07-28 how long it may
// reuse a list, a read or server/discover (ttlMs), and whether a shared
// cache may serve it to other users (cacheScope). Lists and discover take
// theirs from Options.Cache, reads from the resource or template. A
// result that may depend on who asks is private whatever the hint says:
// here the tool only admins see makes tools/list private.
func ExampleCacheHint() {
	tenMinutes := mcp.CacheHint{TTL: 10 * time.Minute, Scope: mcp.CachePublic}
	srv := mcp.NewServer(mcp.Options{Name: "docs", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Cache: &mcp.CacheOptions{
			Tools:    tenMinutes,
			Prompts:  tenMinutes,
			Discover: mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic},
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "search"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "purge", CanAccess: access.Roles("admin")},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	srv.AddPrompt(mcp.Prompt{Name: "summarize", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("Summarize the page."), nil
	}})
	// The licence is the same for everyone: a day, any cache.
	srv.AddResource(mcp.Resource{URI: "docs://license", Name: "license", MIMEType: "text/plain",
		Cache: mcp.CacheHint{TTL: 24 * time.Hour, Scope: mcp.CachePublic},
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "MIT"}}, nil
		}})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{ProtocolVersion: mcp.Version20260728})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for _, call := range []struct {
		method string
		params any
	}{
		{"tools/list", nil},
		{"prompts/list", nil},
		{"resources/read", map[string]string{"uri": "docs://license"}},
		{"server/discover", nil},
	} {
		var res struct {
			TTLMs      int64  `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		}
		if err := c.Call(ctx, call.method, call.params, &res); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(call.method, res.TTLMs, res.CacheScope)
	}
	// Output:
	// tools/list 600000 private
	// prompts/list 600000 public
	// resources/read 86400000 public
	// server/discover 3600000 public
}

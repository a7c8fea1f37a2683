package proxy_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// A gateway serves another MCP server's tools through mcpchain's chain.
// The upstream here is an mcpchain server in the same process; in
// production it is client.Command (a server in any language, over stdio)
// or client.HTTP (a URL), and the gateway's server gets Options.Auth,
// middleware and telemetry like any other.
func ExampleNew() {
	quiet := slog.New(slog.DiscardHandler)
	upstream := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(upstream, mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + in.City, nil
		})
	uh := mcphttp.New(upstream, nil)
	defer uh.Close()

	ctx := context.Background()
	g, err := proxy.New(ctx, proxy.Options{
		// Each downstream session gets its own upstream session. The
		// caller's identity is not forwarded: add headers here (from
		// c.Session) only if the upstream must know who calls.
		Upstream: func(c *mcp.Context) client.Transport { return client.InProcess(uh, nil) },
		Server:   mcp.Options{Name: "gateway", Version: "1.0.0", Logger: quiet},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	// A client of the gateway (here embedded; mcphttp.Start serves it
	// over HTTP) sees the upstream's tools.
	h := mcphttp.New(g.Server(), nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	tools, _ := session.ListTools(ctx)
	fmt.Println(tools[0].Name+":", tools[0].Description)
	res, _ := session.CallTool(ctx, "forecast", map[string]any{"city": "Lyon"}, nil)
	fmt.Println(res.Text())
	// Output:
	// forecast: Tomorrow's weather
	// sunny in Lyon
}

// The bridge: a desktop client that speaks only stdio starts this
// program, which serves it the tools of a remote server over Streamable
// HTTP (with the remote server's own token).
func ExampleServeStdio() {
	upstream := client.HTTP("https://mcp.example.com/mcp", &client.HTTPOptions{
		Header: http.Header{"Authorization": {"Bearer " + os.Getenv("REMOTE_TOKEN")}},
	})
	if err := proxy.ServeStdio(context.Background(), upstream, os.Stdin, os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Every server of a project's mcp.json behind one stdio entry: tool
// "search" of server "docs" is served as "docs_search".
func ExampleServeConfigStdio() {
	cfg, err := mcpjson.Load(".cursor/mcp.json")
	if err == nil {
		err = proxy.ServeConfigStdio(context.Background(), cfg, os.Stdin, os.Stdout, nil)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// An upstream written in any language, spawned over stdio, and a header
// derived from the downstream caller (what it carries is this program's
// choice: the caller's own token is never passed on).
func ExampleOptions_upstream() {
	opts := proxy.Options{
		Upstream: func(c *mcp.Context) client.Transport {
			cmd := exec.Command("python3", "server.py")
			if c != nil {
				cmd.Env = append(os.Environ(), "CALLER_SESSION="+c.SessionID)
			}
			return client.Command(cmd)
		},
	}
	_ = opts
}

package proxy_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// A remote server as one child of a composition: the gateway's server is
// mounted in the parent next to local children, under its own prefix.
// Each session of the parent gets its own upstream session, closed when
// the parent's session ends; the upstream's sampling, elicitation and
// roots requests reach the parent's client, and its list changes reach
// the parent's clients as list_changed. The upstream here is in process;
// in production it is client.HTTP(url, …) or client.Command(cmd).
func ExampleGateway_mount() {
	quiet := slog.New(slog.DiscardHandler)
	remote := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(remote, mcp.Tool{Name: "forecast"}, func(_ context.Context, _ *mcp.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny in " + in.City, nil
	})
	rh := mcphttp.New(remote, nil)
	defer rh.Close()

	ctx := context.Background()
	g, err := proxy.New(ctx, proxy.Options{
		Upstream: func(*mcp.Context) client.Transport { return client.InProcess(rh, nil) },
		Server:   mcp.Options{Logger: quiet},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	math := mcp.NewServer(mcp.Options{Name: "math", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(math, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct{ A, B int }) (int, error) {
		return in.A + in.B, nil
	})
	hub := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: quiet})
	hub.Mount("math", math, nil)
	hub.Mount("weather", g.Server(), nil)

	h := mcphttp.New(hub, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	res, _ := session.CallTool(ctx, "weather_forecast", map[string]any{"city": "Lyon"}, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "math_add", map[string]any{"A": 2, "B": 3}, nil)
	fmt.Println(res.Text())
	// Output:
	// sunny in Lyon
	// 5
}

package mcp_test

import (
	"context"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// weatherServer is a small server the composition examples mount.
func weatherServer() *mcp.Server {
	w := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0"})
	type cityArgs struct {
		City string `json:"city"`
	}
	mcp.AddTool(w, mcp.Tool{Name: "forecast"}, func(_ context.Context, c *mcp.Context, in cityArgs) (string, error) {
		return "sunny in " + in.City + " for " + c.Client.Name, nil
	})
	w.AddResource(mcp.Resource{URI: "weather://stations", Name: "stations",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "Oslo, Lima"}}, nil
		}})
	w.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "weather://city/{name}", Name: "city",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "the weather of " + args["name"]}}, nil
		}})
	w.AddPrompt(mcp.Prompt{Name: "brief", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("Summarize the weather."), nil
	}})
	return w
}

// A parent serves a child's tools, resources, templates and prompts under
// a prefix: forecast becomes weather_forecast, weather://stations becomes
// weather://weather/stations. The child's tool runs with the parent's
// request (its Context is the parent's: the same client, session and
// way back). The mount is live: a
// tool the child registers later is listed by the parent at once.
func ExampleServer_Mount() {
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0"})
	child := weatherServer()
	parent.Mount("weather", child, nil)

	ctx := context.Background()
	h := mcphttp.New(parent, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), &client.Options{Info: mcp.Implementation{Name: "desk", Version: "1.0.0"}})
	defer s.Close()
	fmt.Println(names(ctx, s))
	res, _ := s.CallTool(ctx, "weather_forecast", map[string]string{"city": "Oslo"}, nil)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	r, _ := s.ReadResource(ctx, "weather://weather/city/Lima")
	fmt.Println(r.Contents[0].URI, "=", r.Contents[0].Text)
	templates, _ := s.ListResourceTemplates(ctx)
	fmt.Println(templates[0].URITemplate)

	mcp.AddTool(child, mcp.Tool{Name: "alerts"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "none", nil
	})
	fmt.Println(names(ctx, s))
	// Output:
	// [weather_forecast]
	// sunny in Oslo for desk
	// weather://weather/city/Lima = the weather of Lima
	// weather://weather/city/{name}
	// [weather_forecast weather_alerts]
}

// Registry.Mount refuses a cycle and a prefix already taken; Unmount takes the
// child's objects away again.
func ExampleRegistry_Mount() {
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0"})
	child := weatherServer()
	m, err := parent.Registry().Mount("w", child, &mcp.MountOptions{Tags: []string{"weather"}})
	fmt.Println(err)
	_, err = parent.Registry().Mount("w", weatherServer(), nil)
	fmt.Println(err)
	_, err = child.Registry().Mount("hub", parent, nil)
	fmt.Println(err)

	ctx := context.Background()
	fmt.Println(len(parent.ListTools(ctx, nil)))
	m.Unmount()
	fmt.Println(len(parent.ListTools(ctx, nil)))
	// Output:
	// <nil>
	// mount prefix "w" is already registered
	// invalid definition: mount "hub": server "weather" is already mounted in server "hub" (or below it): mounting it would make a cycle
	// 1
	// 0
}

// Import copies the child's definitions once: what the child registers
// afterwards stays the child's.
func ExampleServer_Import() {
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0"})
	child := weatherServer()
	parent.Import("weather", child, nil)
	mcp.AddTool(child, mcp.Tool{Name: "alerts"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "none", nil
	})
	if err := parent.Registry().Import("weather", child, nil); err != nil {
		fmt.Println(err)
	}
	for _, t := range parent.ListTools(context.Background(), nil) {
		fmt.Println(t.Name)
	}
	// Output:
	// import "weather": tool "weather_forecast" is already registered
	// weather_forecast
}

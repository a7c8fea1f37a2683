package mcp_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// An MCP App: a tool whose result a host renders in the HTML view it
// links to, a refresh tool only the view calls, and the view itself,
// read once from a file system (an embed.FS in a real program).
func ExampleServer_AddAppResource() {
	// //go:embed ui
	// var ui embed.FS
	ui := fstest.MapFS{"ui/weather.html": {Data: []byte(`<!DOCTYPE html><html><body><div id="out">…</div>
<script type="module">/* talks to the host over postMessage (ui/initialize, tools/call) */</script></body></html>`)}}

	srv := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://weather/view.html", Name: "weather-view",
		FS: ui, File: "ui/weather.html",
		CSP:         &apps.CSP{ConnectDomains: []string{"https://api.example.com"}},
		Permissions: &apps.Permissions{Geolocation: true}, PrefersBorder: new(true)})
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "The forecast for a city",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html"}},
		func(ctx context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			// The text is what the model reads, and all a client without
			// the extension shows.
			return "Sunny in " + in.City, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", Description: "Reload the view's data",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "refreshed (the client renders apps: " + fmt.Sprint(c.ClientCapabilities.SupportsApps()) + ")", nil
		})
	// A view that cannot be read is an error, not a panic, with Registry.AddAppResource.
	err := srv.Registry().AddAppResource(mcp.AppResource{URI: "ui://weather/map.html", Name: "map", FS: ui, File: "ui/map.html"})
	fmt.Println(err != nil)

	h := mcphttp.New(srv, nil)
	defer h.Close()
	var view mcp.Resource // as a host lists it
	for _, host := range []bool{true, false} {
		opts := &client.Options{}
		if host { // a host that renders apps declares the extension
			opts.Extensions = map[string]any{apps.Extension: map[string]any{"mimeTypes": []string{apps.MIMEType}}}
		}
		s, err := client.Connect(context.Background(), client.InProcess(h, nil), opts)
		if err != nil {
			panic(err)
		}
		tools, _ := s.ListTools(context.Background())
		if host {
			resources, _ := s.ListResources(context.Background())
			view = resources[0]
		}
		fmt.Print("host=", host, ": ")
		for _, t := range tools {
			fmt.Print(t.Name, " ")
		}
		res, err := s.CallTool(context.Background(), "refresh", struct{}{}, nil)
		if err != nil {
			fmt.Println("| refresh:", err)
		} else {
			fmt.Println("|", res.Text())
		}
		_ = s.Close()
	}
	fmt.Println(view.URI, view.MIMEType, view.Meta["ui"] != nil, apps.VisibleToModel)
	// Output:
	// true
	// host=true: forecast refresh | refreshed (the client renders apps: true)
	// host=false: forecast | refresh: mcp client: "weather" answered tools/call with mcp error -32602: Unknown tool: "refresh"
	// ui://weather/view.html text/html;profile=mcp-app true model
}

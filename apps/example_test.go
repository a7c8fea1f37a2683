package apps_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A view with its CSP and permissions, a tool the model calls and one only
// the view calls; what the server lists carries the link, and a CSP entry
// that would change the host's policy is refused.
func Example() {
	srv := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://weather/view.html", Name: "weather-view",
		HTML:        "<!doctype html><title>Weather</title><p id=out></p>",
		CSP:         &apps.CSP{ConnectDomains: []string{"https://api.example.com"}},
		Permissions: &apps.Permissions{Geolocation: true}})
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html"}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "Sunny, 21 °C", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "refresh",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "refreshed", nil })

	ctx := context.Background()
	for _, t := range srv.ListTools(ctx, nil) {
		fmt.Println(t.Name, t.UI.ResourceURI, t.UI.Visibility)
	}
	// What resources/list shows a host of MCP Apps, in process.
	h := mcphttp.New(srv, nil)
	defer h.Close()
	c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{
		Extensions: map[string]any{apps.Extension: map[string]any{"mimeTypes": []string{apps.MIMEType}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	list, err := c.ListResources(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	view := list[0]
	meta, _ := json.Marshal(view.Meta["ui"])
	fmt.Println(view.MIMEType == apps.MIMEType, string(meta))

	err = (&apps.CSP{ConnectDomains: []string{"https://api.example.com; script-src *"}}).Validate()
	fmt.Println(err)
	// Output:
	// forecast ui://weather/view.html []
	// refresh ui://weather/view.html [app]
	// true {"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"geolocation":{}}}
	// ConnectDomains[0] "https://api.example.com; script-src *": a CSP source has no space, control character, ";", "," or quote
}

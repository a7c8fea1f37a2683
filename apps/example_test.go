package apps_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
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
	view := srv.ListResources(ctx, nil)[0]
	meta, _ := json.Marshal(view.Meta["ui"])
	fmt.Println(view.MIMEType == apps.MIMEType, string(meta))

	err := (&apps.CSP{ConnectDomains: []string{"https://api.example.com; script-src *"}}).Validate()
	fmt.Println(err)
	// Output:
	// forecast ui://weather/view.html []
	// refresh ui://weather/view.html [app]
	// true {"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"geolocation":{}}}
	// ConnectDomains[0] "https://api.example.com; script-src *": a CSP source has no space, control character, ";", "," or quote
}

// Package apps holds the data types of MCP Apps, the extension
// io.modelcontextprotocol/ui (SEP-1865): a server registers HTML views as
// ui:// resources and links tools to them; a host that supports the
// extension renders a tool's view in a sandboxed iframe, hands it the
// tool's input and result, and lets it call the server's tools back.
//
// A server registers a view with mcp.Server.AddAppResource, whose
// mcp.AppResource carries the view's [CSP] (the origins it may reach) and
// [Permissions] (the browser features it asks for), and links a tool to
// it with mcp.Tool.UI, a [ToolUI]:
//
//	srv.AddAppResource(mcp.AppResource{URI: "ui://weather/view.html", Name: "weather-view",
//		HTML: page, CSP: &apps.CSP{ConnectDomains: []string{"https://api.example.com"}}})
//	mcp.AddTool(srv, mcp.Tool{Name: "forecast",
//		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html"}}, forecast)
//	mcp.AddTool(srv, mcp.Tool{Name: "refresh", // a button of the view, hidden from the model
//		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, refresh)
//
// Registration checks both ([CSP.Validate], [ToolUI.Validate], and that
// the view is registered before the tools linked to it), so a program
// needs the checks here only to try a definition before it registers it.
// A client that renders apps declares [Extension] with the MIME types it
// renders ([MIMEType]); mcp.ClientCapabilities.SupportsApps reads that
// declaration. The package imports nothing of the module but an internal
// JSON helper: the root package imports it.
package apps

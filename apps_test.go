package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/mcptest"
)

const viewHTML = "<!DOCTYPE html><html><body>view</body></html>"

// TestAddAppResourceRefuses: each bad view is a registration error that
// names the field and the rule, and registers nothing.
func TestAddAppResourceRefuses(t *testing.T) {
	fsys := fstest.MapFS{"ui/view.html": {Data: []byte(viewHTML)}, "ui/empty.html": {Data: []byte(" \n")},
		"ui/bin.html": {Data: []byte{0xff, 0xfe}}}
	ok := mcp.AppResource{URI: "ui://v/view.html", Name: "view", HTML: viewHTML}
	tests := []struct {
		name string
		edit func(r *mcp.AppResource)
		want string
	}{
		{"no URI", func(r *mcp.AppResource) { r.URI = "" }, "AppResource.URI is required"},
		{"not ui://", func(r *mcp.AppResource) { r.URI = "https://example.com/v.html" }, "ui:// URI"},
		{"ui:// alone", func(r *mcp.AppResource) { r.URI = "ui://" }, "ui:// URI"},
		{"space in URI", func(r *mcp.AppResource) { r.URI = "ui://v/my view" }, "white space"},
		{"no name", func(r *mcp.AppResource) { r.Name = "" }, "AppResource.Name is required"},
		{"empty HTML", func(r *mcp.AppResource) { r.HTML = "  " }, "the view is empty"},
		{"HTML and FS", func(r *mcp.AppResource) { r.FS, r.File = fsys, "ui/view.html" }, "not both"},
		{"FS without File", func(r *mcp.AppResource) { r.HTML, r.FS = "", fsys }, "AppResource.File is required"},
		{"File without FS", func(r *mcp.AppResource) { r.HTML, r.File = "", "ui/view.html" }, "needs AppResource.FS"},
		{"missing file", func(r *mcp.AppResource) { r.HTML, r.FS, r.File = "", fsys, "ui/nope.html" }, "reading the view"},
		{"empty file", func(r *mcp.AppResource) { r.HTML, r.FS, r.File = "", fsys, "ui/empty.html" }, "the view is empty"},
		{"not UTF-8", func(r *mcp.AppResource) { r.HTML, r.FS, r.File = "", fsys, "ui/bin.html" }, "not valid UTF-8"},
		{"CSP directive injected", func(r *mcp.AppResource) {
			r.CSP = &apps.CSP{ConnectDomains: []string{"https://a.example.com; script-src *"}}
		}, `CSP.ConnectDomains[0]`},
		{"CSP quoted keyword", func(r *mcp.AppResource) { r.CSP = &apps.CSP{ResourceDomains: []string{"'unsafe-eval'"}} }, "CSP.ResourceDomains[0]"},
		{"CSP empty source", func(r *mcp.AppResource) { r.CSP = &apps.CSP{FrameDomains: []string{""}} }, "CSP.FrameDomains[0]"},
		{"CSP bad port", func(r *mcp.AppResource) { r.CSP = &apps.CSP{BaseURIDomains: []string{"https://a.example.com:http"}} }, "port"},
		{"CSP bad host", func(r *mcp.AppResource) { r.CSP = &apps.CSP{ConnectDomains: []string{"https://a_b!.example.com"}} }, "not a CSP source"},
		{"domain with space", func(r *mcp.AppResource) { r.Domain = "a b.example.com" }, "Domain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
			r := ok
			tt.edit(&r)
			err := srv.Registry().AddAppResource(r)
			require.Error(t, err)
			assert.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, srv.ListResources(context.Background(), nil))
			assert.PanicsWithValue(t, "mcp: AddAppResource: "+err.Error(), func() { srv.AddAppResource(r) })
		})
	}
	t.Run("taken URI", func(t *testing.T) {
		srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
		srv.AddAppResource(ok)
		assert.ErrorIs(t, srv.Registry().AddAppResource(ok), mcp.ErrAlreadyRegistered)
	})
}

// TestAppResourceAccepts: the CSP sources the extension documents, and a
// view read from an fs.FS.
func TestAppResourceAccepts(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
	require.NoError(t, srv.Registry().AddAppResource(mcp.AppResource{URI: "ui://v/fs.html", Name: "fs",
		FS: fstest.MapFS{"ui/view.html": {Data: []byte(viewHTML)}}, File: "ui/view.html",
		CSP: &apps.CSP{
			ConnectDomains:  []string{"https://api.example.com", "wss://live.example.com:8443", "http://127.0.0.1:*"},
			ResourceDomains: []string{"https://*.cloudflare.com", "cdn.example.com", "https://cdn.example.com/lib/"},
			FrameDomains:    []string{"https://www.youtube.com", "*"},
			BaseURIDomains:  []string{"https://[::1]:8080"},
		},
		Permissions: &apps.Permissions{Camera: true, Microphone: true, Geolocation: true, ClipboardWrite: true},
		Domain:      "a904794854a047f6.claudemcpcontent.com", PrefersBorder: new(false)}))
	s := mcptest.NewSession(t, srv, nil)
	got := s.ReadResource("ui://v/fs.html").Contents
	require.Len(t, got, 1)
	assert.Equal(t, viewHTML, got[0].Text)
	assert.Equal(t, apps.MIMEType, got[0].MIMEType)
	b, err := json.Marshal(got[0].Meta["ui"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"csp":{"connectDomains":["https://api.example.com","wss://live.example.com:8443","http://127.0.0.1:*"],
		"resourceDomains":["https://*.cloudflare.com","cdn.example.com","https://cdn.example.com/lib/"],
		"frameDomains":["https://www.youtube.com","*"],"baseUriDomains":["https://[::1]:8080"]},
		"permissions":{"camera":{},"microphone":{},"geolocation":{},"clipboardWrite":{}},
		"domain":"a904794854a047f6.claudemcpcontent.com","prefersBorder":false}`, string(b))
}

// TestToolUIRefuses: a tool's link to a view is checked when the tool is
// added.
func TestToolUIRefuses(t *testing.T) {
	tests := []struct {
		name string
		tool mcp.Tool
		want string
	}{
		{"no URI", mcp.Tool{Name: "t", UI: &apps.ToolUI{}}, "Tool.UI.ResourceURI is required"},
		{"not ui://", mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "config://app"}}, "not a ui:// URI"},
		{"unregistered view", mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://v/other.html"}}, "not a registered app resource"},
		{"plain ui:// resource", mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://v/plain.html"}}, "not an app's view"},
		{"unknown visibility", mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://v/view.html", Visibility: []apps.Visibility{"user"}}}, `Tool.UI.Visibility[0] is "user"`},
		{"visibility twice", mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://v/view.html", Visibility: []apps.Visibility{apps.VisibleToApp, apps.VisibleToApp}}}, "twice"},
		{"Meta has ui", mcp.Tool{Name: "t", Meta: map[string]any{"ui": 1}, UI: &apps.ToolUI{ResourceURI: "ui://v/view.html"}}, `Tool.Meta has "ui"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
			srv.AddAppResource(mcp.AppResource{URI: "ui://v/view.html", Name: "view", HTML: viewHTML})
			srv.AddResource(mcp.Resource{URI: "ui://v/plain.html", Name: "plain",
				Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }})
			err := mcp.TryAddTool(srv.Registry(), tt.tool, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
			require.Error(t, err)
			assert.True(t, errors.Is(err, mcp.ErrInvalidDefinition), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, srv.ListTools(context.Background(), nil))
		})
	}
}

// TestToolUIKeepsMeta: the link is added to a copy of the tool's Meta.
func TestToolUIKeepsMeta(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://v/view.html", Name: "view", HTML: viewHTML})
	meta := map[string]any{"team": "weather"}
	mcp.AddTool(srv, mcp.Tool{Name: "t", Meta: meta, UI: &apps.ToolUI{ResourceURI: "ui://v/view.html",
		Visibility: []apps.Visibility{apps.VisibleToModel, apps.VisibleToApp}}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	assert.Equal(t, map[string]any{"team": "weather"}, meta, "the caller's map is not changed")
	b, err := json.Marshal(srv.ListTools(context.Background(), nil)[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"_meta":{"team":"weather","ui":{"resourceUri":"ui://v/view.html","visibility":["model","app"]},"ui/resourceUri":"ui://v/view.html"}`)
}

// TestClientCapabilitiesExtensions: extensions are kept as sent, and a
// declaration of another shape is dropped instead of failing the decode.
func TestClientCapabilitiesExtensions(t *testing.T) {
	var c mcp.ClientCapabilities
	require.NoError(t, json.Unmarshal([]byte(`{"roots":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`), &c))
	assert.True(t, c.SupportsApps())
	assert.JSONEq(t, `{"mimeTypes":["text/html;profile=mcp-app"]}`, string(c.Extensions[apps.Extension]))
	for _, bad := range []string{`{"extensions":[]}`, `{"extensions":"x"}`, `{"extensions":null}`} {
		c = mcp.ClientCapabilities{}
		require.NoError(t, json.Unmarshal([]byte(bad), &c), bad)
		assert.Nil(t, c.Extensions, bad)
		assert.False(t, c.SupportsApps(), bad)
	}
}

// FuzzClientCapabilitiesApps: any capabilities object decodes without a
// panic, and SupportsApps answers for whatever extensions it kept.
func FuzzClientCapabilitiesApps(f *testing.F) {
	for _, s := range []string{`{}`, `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":[1,null]}}}`, `{"extensions":{"io.modelcontextprotocol/ui":[]}}`,
		`{"extensions":[]}`, `{"sampling":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html; profile=\"mcp-app\""]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c mcp.ClientCapabilities
		if json.Unmarshal(data, &c) != nil {
			return
		}
		_ = c.SupportsApps()
	})
}

// TestAppResourceCopiesMeta: changing the values given to AddAppResource
// afterwards changes nothing that is served.
func TestAppResourceCopiesMeta(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
	csp := &apps.CSP{ConnectDomains: []string{"https://api.example.com"}}
	perms := &apps.Permissions{Camera: true}
	border := true
	srv.AddAppResource(mcp.AppResource{URI: "ui://v/view.html", Name: "view", HTML: viewHTML, CSP: csp, Permissions: perms, PrefersBorder: &border})
	csp.ConnectDomains[0] = "https://evil.example.com; script-src *"
	csp.FrameDomains = []string{"*"}
	perms.Microphone = true
	border = false
	b, err := json.Marshal(mcptest.NewSession(t, srv, nil).ReadResource("ui://v/view.html").Contents[0].Meta)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"camera":{}},"prefersBorder":true}}`, string(b))
}

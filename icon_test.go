package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")

// TestIconRules: each rule of an icon, checked at the registration of
// every kind of item; the error names the field and the rule.
func TestIconRules(t *testing.T) {
	t.Parallel()
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngHeader)
	big := "data:image/png;base64," + strings.Repeat("AAAA", 64<<10/4)
	tests := []struct {
		name string
		icon mcp.Icon
		want string // "" when valid
	}{
		{"https", mcp.Icon{Src: "https://example.com/i.png"}, ""},
		{"data png", mcp.Icon{Src: png, MIMEType: "image/png", Sizes: []string{"16x16", "any"}, Theme: "light"}, ""},
		{"data svg", mcp.Icon{Src: "data:image/svg+xml;base64,PHN2Zy8+", Theme: "dark"}, ""},
		{"http", mcp.Icon{Src: "http://example.com/i.png"}, `Icons[0].Src: only https: and data: URIs are allowed`},
		{"javascript", mcp.Icon{Src: "javascript:alert(1)"}, `Icons[0].Src: only https: and data: URIs are allowed`},
		{"relative", mcp.Icon{Src: "/icon.png"}, `Icons[0].Src: only https: and data: URIs are allowed`},
		{"empty", mcp.Icon{}, `Icons[0].Src: only https: and data: URIs are allowed`},
		{"https without host", mcp.Icon{Src: "https:/icon.png"}, `Icons[0].Src: "https:/icon.png" is not an absolute https: URL with a host`},
		{"https with user", mcp.Icon{Src: "https://u:p@example.com/i.png"}, `Icons[0].Src: "https://u:p@example.com/i.png" is not an absolute https: URL with a host (and no user info)`},
		{"data html", mcp.Icon{Src: "data:text/html;base64,PGI+"}, `Icons[0].Src: data: URI: MIME type "text/html" is not an image type`},
		{"data not base64", mcp.Icon{Src: "data:image/svg+xml,%3Csvg%2F%3E"}, `Icons[0].Src: data: URI: the data must be base64`},
		{"data bad base64", mcp.Icon{Src: "data:image/png;base64,!!!"}, `Icons[0].Src: data: URI: the data is not valid base64`},
		{"data no comma", mcp.Icon{Src: "data:image/png;base64"}, `Icons[0].Src: data: URI: no comma before the data`},
		{"data too big", mcp.Icon{Src: big}, `Icons[0].Src: data: URI: 65558 bytes, over the limit of 65536 (64 KiB)`},
		{"mime not image", mcp.Icon{Src: "https://example.com/i", MIMEType: "text/html"}, `Icons[0].MIMEType: "text/html" is not an image type`},
		{"size", mcp.Icon{Src: png, Sizes: []string{"48"}}, `Icons[0].Sizes: "48" is neither "WxH"`},
		{"size zero", mcp.Icon{Src: png, Sizes: []string{"0x16"}}, `Icons[0].Sizes: "0x16" is neither "WxH"`},
		{"theme", mcp.Icon{Src: png, Theme: "blue"}, `Icons[0].Theme: "blue" is neither "light" nor "dark"`},
	}
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			icons := []mcp.Icon{tt.icon}
			register := map[string]func(srv *mcp.Server) error{
				`tool "t": Tool.`: func(srv *mcp.Server) error {
					return mcp.TryAddTool(srv.Registry(), mcp.Tool{Name: "t", Icons: icons},
						func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
				},
				`tool "r": Tool.`: func(srv *mcp.Server) error {
					return srv.Registry().AddRawTool(mcp.Tool{Name: "r", Icons: icons}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) { return nil, nil })
				},
				`resource "mem://r": Resource.`: func(srv *mcp.Server) error {
					return srv.Registry().AddResource(mcp.Resource{URI: "mem://r", Name: "r", Icons: icons, Load: load})
				},
				`template "mem://{x}": ResourceTemplate.`: func(srv *mcp.Server) error {
					return srv.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://{x}", Name: "x", Icons: icons,
						Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
							return nil, nil
						}})
				},
				`prompt "p": Prompt.`: func(srv *mcp.Server) error {
					return srv.Registry().AddPrompt(mcp.Prompt{Name: "p", Icons: icons,
						Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }})
				},
			}
			for prefix, add := range register {
				err := add(mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"}))
				if tt.want == "" {
					assert.NoError(t, err, prefix)
					continue
				}
				require.ErrorIs(t, err, mcp.ErrInvalidDefinition, prefix)
				assert.Contains(t, err.Error(), prefix+tt.want)
			}
			newServer := func() { mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Icons: icons}) }
			if tt.want == "" {
				assert.NotPanics(t, newServer)
				return
			}
			assert.Contains(t, panicText(t, newServer), "mcp: NewServer: Options."+tt.want)
		})
	}
}

// panicText is the string f panics with.
func panicText(t *testing.T, f func()) (s string) {
	t.Helper()
	defer func() { s, _ = recover().(string) }()
	f()
	t.Fatal("no panic")
	return ""
}

func TestWebsiteURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "https://example.com", "http://localhost:8080/docs"} {
		assert.NotPanics(t, func() { mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", WebsiteURL: u}) }, u)
	}
	for _, u := range []string{"example.com", "ftp://example.com", "javascript:alert(1)", "https://"} {
		assert.PanicsWithValue(t, `mcp: NewServer: Options.WebsiteURL: "`+u+`" is not an absolute http or https URL`,
			func() { mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", WebsiteURL: u}) }, u)
	}
}

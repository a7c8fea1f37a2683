package media_test

import (
	"context"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/media"
)

// An icon from a file of an embed.FS (here a MapFS) becomes a data: URI,
// its MIME type taken from the extension; the server and a tool show it.
func ExampleIconFromFS() {
	assets := fstest.MapFS{"logo.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>`)}}
	logo, err := media.IconFromFS(assets, "logo.svg")
	if err != nil {
		panic(err)
	}
	logo.Sizes = []string{"any"}
	srv := mcp.NewServer(mcp.Options{Name: "art", Version: "1.0.0",
		Icons: []mcp.Icon{logo}, WebsiteURL: "https://example.com/art"})
	mcp.AddTool(srv, mcp.Tool{Name: "draw", Icons: []mcp.Icon{logo}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "drawn", nil })
	fmt.Println(logo.MIMEType, strings.HasPrefix(logo.Src, "data:image/svg+xml;base64,"))

	// A type that is no image, or a URI other than https: or data:, is refused.
	_, err = media.IconFromBytes([]byte("hello"), "")
	fmt.Println(err)
	err = mcp.TryAddTool(srv.Registry(), mcp.Tool{Name: "fetch", Icons: []mcp.Icon{{Src: "http://example.com/i.png"}}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	fmt.Println(err)
	// Output:
	// image/svg+xml true
	// media: unrecognised media type: icon: MIME type "text/plain; charset=utf-8" is not an image type an icon may have (image/png, image/jpeg, image/svg+xml, image/webp, image/gif, image/avif, image/x-icon)
	// invalid definition: tool "fetch": Tool.Icons[0].Src: only https: and data: URIs are allowed, not "http://example.com/i.png"
}

package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/media"
	"github.com/mcpchain/mcp/providers"
)

// TestConsentPageIconInBrowser: with the server's identity, Chromium
// shows its title and loads its data: icon under the page's CSP (the
// image decodes, and no violation is reported).
func TestConsentPageIconInBrowser(t *testing.T) {
	w := newConsentWorld(t)
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 64 {
		img.Set(i%8, i/8, color.RGBA{0x1d, 0x4e, 0xd8, 0xff})
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	icon, err := media.IconFromBytes(buf.Bytes(), "")
	require.NoError(t, err)
	w.proxy.UseServerInfo(mcp.Implementation{Name: "notes", Title: "Acme Notes Server", Version: "1.0.0", Icons: []mcp.Icon{icon}})
	client := w.register(t, "Acme Notes")

	ctx := newChromium(t)
	violations := cspErrors(t, ctx)
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(w.authorizeURL(client, "s", oauth2.GenerateVerifier())))
	require.NoError(t, err)
	require.Equal(t, int64(http.StatusOK), resp.Status)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(loc, w.server.URL+providers.ConsentPath+"?"), "on the consent page: %s", loc)

	name, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("server-name")))
	require.NoError(t, err)
	assert.Equal(t, "Acme Notes Server", name)
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("server-icon").complete ? document.getElementById("server-icon").naturalWidth : -1`))
	require.NoError(t, err)
	assert.Equal(t, 8, width, "the icon loaded and decoded under the CSP")
	screenshot(t, ctx, "consent-icon-desktop.png", 1280, false, false)
	assert.Empty(t, violations(), "the browser reported Content-Security-Policy violations")
}

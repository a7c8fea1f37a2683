package providers

import (
	"html"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/media"
)

// consentPageOf loads the consent page of a fresh authorization.
func consentPageOf(t *testing.T, e *env) (*http.Response, string) {
	t.Helper()
	c := e.register("none")
	b := browser(t)
	resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	resp.Body.Close()
	page := do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
	require.Equal(t, 200, page.StatusCode)
	return page, readBody(t, page)
}

// TestConsentPageServerInfo: with the server's identity, the consent
// page's header shows its title (else its name) and its first icon, the
// host beside them, and the CSP lets that one image load and no other.
func TestConsentPageServerInfo(t *testing.T) {
	t.Parallel()
	png, err := media.IconFromBytes([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), "")
	require.NoError(t, err)
	tests := []struct {
		name     string
		info     *mcp.Implementation
		server   string // the server-name shown
		img      string // the <img> src, "" when the padlock is shown
		imgSrc   string // the CSP's img-src, "" when absent
		showHost bool
	}{
		{"no server info", nil, "", "", "", false},
		{"data: icon and title", &mcp.Implementation{Name: "docs", Title: "Docs <Server>", Icons: []mcp.Icon{png, {Src: "https://cdn.example.com/b.png"}}},
			"Docs &lt;Server&gt;", png.Src, "data:", true},
		{"https icon and name", &mcp.Implementation{Name: "docs", Icons: []mcp.Icon{{Src: "https://cdn.example.com:8443/logo.svg?v=1&x=2"}, png}},
			"docs", "https://cdn.example.com:8443/logo.svg?v=1&x=2", "https://cdn.example.com:8443", true},
		{"no icon", &mcp.Implementation{Name: "docs"}, "docs", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			host := strings.TrimPrefix(e.ts.URL, "http://")
			if tt.info != nil {
				e.p.UseServerInfo(*tt.info)
			}
			page, body := consentPageOf(t, e)
			csp := cspDirectives(t, page.Header.Get("Content-Security-Policy"))
			server := tt.server
			if server == "" {
				server = host
			}
			assert.Contains(t, body, `id="server-name">`+server+`<`)
			if tt.showHost {
				assert.Contains(t, body, `<span id="server-host">`+host+`</span>`)
			} else {
				assert.NotContains(t, body, `id="server-host"`)
			}
			if tt.img == "" {
				assert.NotContains(t, body, "<img")
				assert.Contains(t, body, `<span class="mark"><svg`, "the padlock")
				assert.NotContains(t, csp, "img-src", "no image may load")
				return
			}
			assert.Contains(t, body, `<img class="mark icon" id="server-icon" src="`+html.EscapeString(tt.img)+`" alt=""`)
			assert.Equal(t, 1, strings.Count(body, "<img"), "the first icon only")
			assert.Equal(t, tt.imgSrc, csp["img-src"])
			assert.Equal(t, "'none'", csp["default-src"])
		})
	}
}

// TestErrorPageServerInfo: the error pages share the header, icon and
// img-src included.
func TestErrorPageServerInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.p.UseServerInfo(mcp.Implementation{Name: "docs", Icons: []mcp.Icon{{Src: "https://cdn.example.com/i.png"}}})
	page := do(t, browser(t), "GET", e.ts.URL+ConsentPath+"?txn=nope", nil, nil)
	body := readBody(t, page)
	assert.Equal(t, 400, page.StatusCode)
	assert.Contains(t, body, `id="server-name">docs<`)
	assert.Contains(t, body, `src="https://cdn.example.com/i.png"`)
	assert.Equal(t, "https://cdn.example.com", cspDirectives(t, page.Header.Get("Content-Security-Policy"))["img-src"])
}

// TestNewMuxGivesServerInfo: mcphttp.NewMux hands the server's identity
// to the proxy it mounts, with no call of the user's.
func TestNewMuxGivesServerInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	icon := mcp.Icon{Src: "https://cdn.example.com/i.png"}
	srv := mcp.NewServer(mcp.Options{Name: "docs", Title: "Docs", Version: "1.0.0", Icons: []mcp.Icon{icon},
		WebsiteURL: "https://example.com", Auth: e.p, Logger: slog.New(slog.DiscardHandler)})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	require.Nil(t, e.p.server.Load())
	mcphttp.NewMux(h, nil)
	got := e.p.server.Load()
	require.NotNil(t, got)
	assert.Equal(t, mcp.Implementation{Name: "docs", Title: "Docs", Version: "1.0.0", Icons: []mcp.Icon{icon}, WebsiteURL: "https://example.com"}, *got)
	_, body := consentPageOf(t, e)
	assert.Contains(t, body, `id="server-name">Docs<`)
}

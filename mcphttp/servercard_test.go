package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/mcphttp"
)

// cardServer serves a server named o.Name (default "io.example/weather")
// with card options card through NewMux.
func cardServer(t *testing.T, o mcp.Options, card *mcphttp.ServerCardOptions) *httptest.Server {
	t.Helper()
	return cardServerWith(t, o, &mcphttp.Options{ServerCard: card})
}

// cardServerWith is cardServer with handler options (ho.ServerCard the card).
func cardServerWith(t *testing.T, o mcp.Options, ho *mcphttp.Options) *httptest.Server {
	t.Helper()
	if o.Name == "" {
		o.Name = "io.example/weather"
	}
	o.Version, o.Logger = "2.1.0", discardLogger()
	srv := mcp.NewServer(o)
	mcp.AddTool(srv, mcp.Tool{Name: "secret_tool", Description: "must not show on the card"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	h := mcphttp.New(srv, ho)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

func cardRequest(t *testing.T, method, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// TestServerCard: the card's document, its headers (media type, ETag
// and If-None-Match, caching, CORS), the methods it answers, and who may
// read it on a server that authenticates.
func TestServerCard(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, fmt.Errorf("%w: bad or missing token", mcp.ErrUnauthorized)
		}
		return "good-user", nil
	}
	icon := mcp.Icon{Src: "https://example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48"}}
	full := &mcphttp.ServerCardOptions{Description: "Weather forecasts", URL: "https://mcp.example.com/mcp", Repository: "https://github.com/example/weather"}
	open := cardServer(t, mcp.Options{Title: "Weather", Icons: []mcp.Icon{icon}, WebsiteURL: "https://example.com"}, full)
	minimal := cardServer(t, mcp.Options{}, &mcphttp.ServerCardOptions{Description: "Weather forecasts"})
	none := cardServer(t, mcp.Options{}, nil)
	renamed := cardServer(t, mcp.Options{Name: "weather"}, &mcphttp.ServerCardOptions{Name: "io.github.example/weather", Description: "d"})
	closed := cardServer(t, mcp.Options{Authenticate: auth, Title: "Weather", Icons: []mcp.Icon{icon}, WebsiteURL: "https://example.com"}, full)
	public := cardServer(t, mcp.Options{Authenticate: auth}, &mcphttp.ServerCardOptions{Description: "d", Public: true})
	oauth := cardServerWith(t, mcp.Options{}, &mcphttp.Options{
		OAuth:      &discovery.Options{Enabled: true, ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://api.example.com/mcp"}},
		ServerCard: &mcphttp.ServerCardOptions{Description: "d", Public: true}})

	resp, _ := cardRequest(t, "GET", open.URL+"/mcp/server-card", nil)
	etag := resp.Header.Get("ETag")
	require.Regexp(t, `^"[0-9a-f]{32}"$`, etag)

	versions := make([]any, 0)
	for _, v := range mcphttp.SupportedVersions() {
		versions = append(versions, string(v))
	}
	wantFull := map[string]any{
		"$schema":     "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		"name":        "io.example/weather",
		"version":     "2.1.0",
		"description": "Weather forecasts",
		"title":       "Weather",
		"websiteUrl":  "https://example.com",
		"repository":  map[string]any{"url": "https://github.com/example/weather", "source": "github"},
		"icons":       []any{map[string]any{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": []any{"48x48"}}},
		"remotes":     []any{map[string]any{"type": "streamable-http", "url": "https://mcp.example.com/mcp", "supportedProtocolVersions": versions}},
	}
	base := func(name string) map[string]any {
		return map[string]any{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": name, "version": "2.1.0", "description": "d"}
	}
	wantOAuth := base("io.example/weather")
	wantOAuth["remotes"] = []any{map[string]any{"type": "streamable-http", "url": "https://api.example.com/mcp", "supportedProtocolVersions": versions}}
	wantMinimal := base("io.example/weather")
	wantMinimal["description"] = "Weather forecasts"

	for _, tc := range []struct {
		name, method, url string
		hdr               map[string]string
		status            int
		card              map[string]any // the body, when 200 and not HEAD
		public            bool           // CORS headers and a public Cache-Control
	}{
		{name: "full card", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Accept": "application/mcp-server-card+json"}, status: 200, card: wantFull, public: true},
		{name: "any Accept still gets the card", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Accept": "text/html"}, status: 200, card: wantFull, public: true},
		{name: "minimal: no remote without a URL", method: "GET", url: minimal.URL + "/mcp/server-card", status: 200, card: wantMinimal, public: true},
		{name: "name from the options", method: "GET", url: renamed.URL + "/mcp/server-card", status: 200, card: base("io.github.example/weather"), public: true},
		{name: "remote from the OAuth resource", method: "GET", url: oauth.URL + "/mcp/server-card", status: 200, card: wantOAuth, public: true},
		{name: "HEAD", method: "HEAD", url: open.URL + "/mcp/server-card", status: 200, public: true},
		{name: "If-None-Match the ETag", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"If-None-Match": etag}, status: 304, public: true},
		{name: "If-None-Match weak, in a list", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"If-None-Match": `"other", W/` + etag}, status: 304, public: true},
		{name: "If-None-Match *", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"If-None-Match": "*"}, status: 304, public: true},
		{name: "If-None-Match another", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"If-None-Match": `"0123"`}, status: 200, card: wantFull, public: true},
		{name: "If-None-Match garbage", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"If-None-Match": `"unterminated`}, status: 200, card: wantFull, public: true},
		{name: "CORS preflight", method: "OPTIONS", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}, status: 204, public: true},
		{name: "POST refused", method: "POST", url: open.URL + "/mcp/server-card", status: 405},
		{name: "DELETE refused", method: "DELETE", url: open.URL + "/mcp/server-card", status: 405},
		{name: "foreign Host refused (DNS rebinding)", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Host": "evil.example"}, status: 403},
		{name: "foreign Host refused, with an Origin", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Host": "evil.example", "Origin": "https://evil.example"}, status: 403},
		{name: "a web page of another origin reads the card", method: "GET", url: open.URL + "/mcp/server-card", hdr: map[string]string{"Origin": "https://app.example"}, status: 200, card: wantFull, public: true},
		{name: "authenticated server: another origin refused", method: "GET", url: closed.URL + "/mcp/server-card", hdr: map[string]string{"Authorization": "Bearer good", "Origin": "https://app.example"}, status: 403},
		{name: "no card unless asked", method: "GET", url: none.URL + "/mcp/server-card", status: 404},
		{name: "not at a well-known path", method: "GET", url: open.URL + "/.well-known/mcp/server-card.json", status: 404},
		{name: "authenticated server: anonymous refused", method: "GET", url: closed.URL + "/mcp/server-card", status: 401},
		{name: "authenticated server: no preflight answer", method: "OPTIONS", url: closed.URL + "/mcp/server-card", status: 405},
		{name: "authenticated server: signed-in caller", method: "GET", url: closed.URL + "/mcp/server-card", hdr: map[string]string{"Authorization": "Bearer good"}, status: 200, card: wantFull},
		{name: "authenticated server, public card", method: "GET", url: public.URL + "/mcp/server-card", status: 200, card: base("io.example/weather"), public: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := cardRequest(t, tc.method, tc.url, tc.hdr)
			require.Equal(t, tc.status, resp.StatusCode, body)
			if tc.status >= 300 && tc.status != 304 {
				require.NotContains(t, body, "io.example/weather")
				return
			}
			if tc.public {
				require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
				require.Equal(t, "GET", resp.Header.Get("Access-Control-Allow-Methods"))
				require.Equal(t, "Content-Type, If-None-Match", resp.Header.Get("Access-Control-Allow-Headers"))
				require.Equal(t, "ETag", resp.Header.Get("Access-Control-Expose-Headers"))
			} else {
				require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
			}
			if tc.method == "OPTIONS" {
				return
			}
			if tc.public {
				require.Equal(t, "public, max-age=3600", resp.Header.Get("Cache-Control"))
			} else {
				require.Equal(t, "private, max-age=3600", resp.Header.Get("Cache-Control"))
				require.Contains(t, resp.Header.Values("Vary"), "Authorization")
			}
			require.NotEmpty(t, resp.Header.Get("ETag"))
			if tc.status == 304 || tc.method == "HEAD" {
				require.Empty(t, body)
				return
			}
			require.Equal(t, "application/mcp-server-card+json", resp.Header.Get("Content-Type"))
			require.NotContains(t, body, "secret_tool", "the card lists no tools")
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(body), &got))
			require.Equal(t, tc.card, got)
		})
	}
}

// TestServerCardMatchesDiscover: the card says what initialize's
// serverInfo says (version, title, icons, website), so the two cannot
// drift apart.
func TestServerCardMatchesDiscover(t *testing.T) {
	t.Parallel()
	ts := cardServer(t, mcp.Options{Title: "Weather", Icons: []mcp.Icon{{Src: "https://example.com/i.png"}}, WebsiteURL: "https://example.com"},
		&mcphttp.ServerCardOptions{Description: "d", URL: "https://mcp.example.com/mcp"})
	_, body := cardRequest(t, "GET", ts.URL+"/mcp/server-card", nil)
	var card struct {
		Name, Version, Title, WebsiteURL string
		Icons                            []mcp.Icon
		Remotes                          []struct{ SupportedProtocolVersions []string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &card))
	c, err := client.Connect(context.Background(), client.HTTP(ts.URL+"/mcp", nil), nil)
	require.NoError(t, err)
	defer c.Close()
	si := c.Initialize().ServerInfo
	require.Equal(t, si.Name, card.Name)
	require.Equal(t, si.Version, card.Version)
	require.Equal(t, si.Title, card.Title)
	require.Equal(t, si.WebsiteURL, card.WebsiteURL)
	require.Equal(t, si.Icons, card.Icons)
	require.Contains(t, card.Remotes[0].SupportedProtocolVersions, string(c.ProtocolVersion()))
}

// TestServerCardBadOptions: New refuses a card the draft's schema would
// refuse, naming the field.
func TestServerCardBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, server string
		card         mcphttp.ServerCardOptions
		want         string
	}{
		{"server name not reverse-DNS", "weather", mcphttp.ServerCardOptions{Description: "d"}, `the server's name "weather" is not in reverse-DNS form`},
		{"bad name", "weather", mcphttp.ServerCardOptions{Name: "a/b/c", Description: "d"}, `Options.ServerCard.Name "a/b/c" must be in reverse-DNS form`},
		{"no description", "io.example/w", mcphttp.ServerCardOptions{}, "Description must have 1 to 100 characters, not 0"},
		{"long description", "io.example/w", mcphttp.ServerCardOptions{Description: strings.Repeat("é", 101)}, "not 101"},
		{"relative URL", "io.example/w", mcphttp.ServerCardOptions{Description: "d", URL: "/mcp"}, `Options.ServerCard.URL "/mcp" must be an absolute http(s) URL`},
		{"bad repository", "io.example/w", mcphttp.ServerCardOptions{Description: "d", Repository: "git@github.com:a/b"}, "Options.ServerCard.Repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: tc.server, Version: "1.0.0", Logger: discardLogger()})
			var got any
			func() {
				defer func() { got = recover() }()
				mcphttp.New(srv, &mcphttp.Options{ServerCard: &tc.card})
			}()
			msg, ok := got.(string)
			require.True(t, ok, "New panics with a message, got %v", got)
			require.True(t, strings.HasPrefix(msg, "mcphttp: New: "), msg)
			require.Contains(t, msg, tc.want)
		})
	}
}

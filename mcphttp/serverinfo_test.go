package mcphttp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/media"
)

// pngIcon is a data: URI icon of the smallest PNG media.IconFromBytes takes:
// its signature is enough for content sniffing.
var pngIcon = func() mcp.Icon {
	ic, err := media.IconFromBytes([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), "")
	if err != nil {
		panic(err)
	}
	ic.Sizes = []string{"16x16"}
	return ic
}()

// httpsIcon is an icon on the network, for a dark background.
var httpsIcon = mcp.Icon{Src: "https://example.com/icon.svg", MIMEType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"}

// newIconServer has icons on the server and on one item of each kind.
func newIconServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "icons", Title: "Icon Server", Version: "1.0.0",
		Icons: []mcp.Icon{pngIcon, httpsIcon}, WebsiteURL: "https://example.com/docs",
		Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "draw", Icons: []mcp.Icon{pngIcon}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "drawn", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "plain"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "plain", nil })
	srv.AddResource(mcp.Resource{URI: "mem://logo", Name: "logo", Icons: []mcp.Icon{httpsIcon},
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "logo"}}, nil
		}})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://{id}", Name: "item", Icons: []mcp.Icon{pngIcon},
		Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "item"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "paint", Icons: []mcp.Icon{httpsIcon},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("paint"), nil
		}})
	return srv
}

func iconJSON(t testing.TB, icons ...mcp.Icon) string {
	t.Helper()
	b, err := json.Marshal(icons)
	require.NoError(t, err)
	return string(b)
}

// listIcons maps each listed item's name to its "icons" member (absent:
// nil) in a list result's array key.
func listIcons(t testing.TB, result json.RawMessage, key string) map[string]json.RawMessage {
	t.Helper()
	var res map[string][]map[string]json.RawMessage
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(result, &raw))
	require.NoError(t, json.Unmarshal([]byte(`{"x":`+string(raw[key])+`}`), &res))
	out := map[string]json.RawMessage{}
	for _, item := range res["x"] {
		var name string
		require.NoError(t, json.Unmarshal(item["name"], &name))
		out[name] = item["icons"]
	}
	return out
}

// checkLists asserts the icons of every list of newIconServer; call
// sends one request and returns its result.
func checkLists(t *testing.T, call func(method string) json.RawMessage) {
	t.Helper()
	tools := listIcons(t, call("tools/list"), "tools")
	assert.JSONEq(t, iconJSON(t, pngIcon), string(tools["draw"]))
	assert.Nil(t, tools["plain"], "no icons member when the tool has none")
	assert.JSONEq(t, iconJSON(t, httpsIcon), string(listIcons(t, call("resources/list"), "resources")["logo"]))
	assert.JSONEq(t, iconJSON(t, pngIcon), string(listIcons(t, call("resources/templates/list"), "resourceTemplates")["item"]))
	assert.JSONEq(t, iconJSON(t, httpsIcon), string(listIcons(t, call("prompts/list"), "prompts")["paint"]))
}

// TestIconsHTTP2025: at 2025-11-25, initialize's serverInfo carries the
// server's icons and website, and every list its items' icons.
func TestIconsHTTP2025(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newIconServer(t), nil)
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1.0.0","icons":[{"src":"https://client.example/i.png"}]}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	var init struct {
		Result struct {
			ServerInfo json.RawMessage `json:"serverInfo"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(b, &init))
	assert.JSONEq(t, `{"name":"icons","title":"Icon Server","version":"1.0.0","icons":`+iconJSON(t, pngIcon, httpsIcon)+
		`,"websiteUrl":"https://example.com/docs"}`, string(init.Result.ServerInfo))
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	checkLists(t, func(method string) json.RawMessage {
		m, _ := c.call(1, method, "")
		require.Nil(t, m.Error)
		return m.Result
	})
}

// TestIconsNotSentWhenEmpty: a server without icons sends no icons or
// websiteUrl member.
func TestIconsNotSentWhenEmpty(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), nil)
	_, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1.0.0"}}}`)
	assert.NotContains(t, string(b), "icons")
	assert.NotContains(t, string(b), "websiteUrl")
}

// TestIconsHTTP2026: at 2026-07-28, server/discover's serverInfo carries
// the icons and website; lists carry their items' icons; the short
// serverInfo of other results leaves them out (they may be 64 KiB).
func TestIconsHTTP2026(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(newIconServer(t), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	call := func(method, params string, header ...string) json.RawMessage {
		resp, msgs := rev20260728Post(t, ts, rev20260728Body(method, params), header...)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, msgs, 1)
		require.Nil(t, msgs[0].Error)
		return msgs[0].Result
	}
	var disc struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(call("server/discover", ""), &disc))
	assert.JSONEq(t, `{"name":"icons","title":"Icon Server","version":"1.0.0","icons":`+iconJSON(t, pngIcon, httpsIcon)+
		`,"websiteUrl":"https://example.com/docs"}`, string(disc.Meta["io.modelcontextprotocol/serverInfo"]))
	checkLists(t, func(method string) json.RawMessage { return call(method, "") })
	var res struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(call("tools/call", `"name":"draw","arguments":{}`, "Mcp-Name", "draw"), &res))
	assert.JSONEq(t, `{"name":"icons","title":"Icon Server","version":"1.0.0"}`, string(res.Meta["io.modelcontextprotocol/serverInfo"]))
}

// TestIconsEmbedded: an embedded session (both eras) and mcptest list
// the icons, decoded into the typed fields.
func TestIconsEmbedded(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			e := mcptest.NewSession(t, newIconServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version}}).Client()
			tools, err := e.ListTools(t.Context())
			require.NoError(t, err)
			require.Len(t, tools, 2)
			assert.Equal(t, []mcp.Icon{pngIcon}, tools[0].Icons)
			assert.Nil(t, tools[1].Icons)
			res, err := e.ListResources(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []mcp.Icon{httpsIcon}, res[0].Icons)
			tmpls, err := e.ListResourceTemplates(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []mcp.Icon{pngIcon}, tmpls[0].Icons)
			prompts, err := e.ListPrompts(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []mcp.Icon{httpsIcon}, prompts[0].Icons)
		})
	}
	t.Run("discover", func(t *testing.T) {
		e := mcptest.NewSession(t, newIconServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728}}).Client()
		var disc struct {
			Meta struct {
				ServerInfo mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		require.NoError(t, e.Call(t.Context(), "server/discover", nil, &disc))
		assert.Equal(t, []mcp.Icon{pngIcon, httpsIcon}, disc.Meta.ServerInfo.Icons)
		assert.Equal(t, "https://example.com/docs", disc.Meta.ServerInfo.WebsiteURL)
	})
	t.Run("mcptest", func(t *testing.T) {
		s := mcptest.NewSession(t, newIconServer(t), nil)
		assert.Equal(t, []mcp.Icon{pngIcon}, s.ListTools()[0].Icons)
	})
}

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

func TestHelloRouteIsPublic(t *testing.T) {
	h := mcphttp.New(newServer(), nil)
	defer h.Close()
	rec := httptest.NewRecorder()
	mcphttp.NewMux(h, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"ok":true}`, rec.Body.String())
}

func TestWhoamiReturnsTheAuthSession(t *testing.T) {
	e := mcptest.NewSession(t, newServer(), &mcptest.Options{
		Header: http.Header{"Authorization": {"Bearer ada"}}, // the server's Authenticate reads it
	}).Client()
	res, err := e.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	require.JSONEq(t, `{"subject":"ada"}`, string(mustJSON(t, res.StructuredContent.(map[string]any)["session"])))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestIconIsShown: the server and its echo tool carry the embedded SVG
// icon as a data: URI.
func TestIconIsShown(t *testing.T) {
	e := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728}}).Client()
	var disc struct {
		Meta struct {
			ServerInfo struct {
				Icons []struct {
					Src   string   `json:"src"`
					Sizes []string `json:"sizes"`
				} `json:"icons"`
				WebsiteURL string `json:"websiteUrl"`
			} `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	require.NoError(t, e.Call(context.Background(), "server/discover", nil, &disc))
	require.Len(t, disc.Meta.ServerInfo.Icons, 1)
	require.Regexp(t, `^data:image/svg\+xml;base64,[A-Za-z0-9+/]+=*$`, disc.Meta.ServerInfo.Icons[0].Src)
	require.Equal(t, []string{"any"}, disc.Meta.ServerInfo.Icons[0].Sizes)
	require.Equal(t, "https://github.com/mcpchain/mcp", disc.Meta.ServerInfo.WebsiteURL)
	list, err := e.ListTools(context.Background())
	require.NoError(t, err)
	for _, tool := range list {
		if tool.Name == "echo" {
			require.Len(t, tool.Icons, 1)
			require.Equal(t, disc.Meta.ServerInfo.Icons[0].Src, tool.Icons[0].Src)
			return
		}
	}
	t.Fatal("no echo tool")
}

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/mcphttp"
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
	e, err := mcphttp.Embed(context.Background(), newServer(), &mcphttp.EmbedOptions{
		Header: http.Header{"Authorization": {"Bearer ada"}}, // the server's Authenticate reads it
	})
	require.NoError(t, err)
	defer e.Close()
	res, err := e.CallTool(context.Background(), "whoami", nil)
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

package mcphttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRev20260728ListenHearsServerWideRules checks that at revision 2026-07-28,
// which has no sessions, a subscriptions/listen stream hears of
// server-wide Disable and Enable, and not of another session's own
// changes; and that its lists follow the server-wide rules.
func TestRev20260728ListenHearsServerWideRules(t *testing.T) {
	t.Parallel()
	srv := visibilityServer()
	c, _ := newHTTP(t, srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + rev20260728Meta("") + `}}`
	resp, err := c.hc.Do(wiretest.NewRequest(ctx, http.MethodPost, c.url, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"))
	require.NoError(t, err)
	defer resp.Body.Close()
	frames := sseFrames(resp.Body)
	require.Equal(t, []string{"notifications/subscriptions/acknowledged"}, nextMethods(frames, 1, 5*time.Second))

	// A 2025 session's own tool is not the listener's business.
	old := &httpClient{t: t, url: c.url, hc: c.hc}
	old.initialize(string(mcp.Version20251125))
	res, _ := old.call(1, "tools/call", `{"name":"unlock","arguments":{}}`)
	require.Nil(t, res.Error)
	assert.Empty(t, nextMethods(frames, 1, 300*time.Millisecond))

	require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: mcp.KindTool, Tags: []string{"basic"}}))
	got := readFrames(frames, 1, 5*time.Second)
	require.Len(t, got, 1)
	assert.Equal(t, "notifications/tools/list_changed", got[0].Method)
	assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"}}`, string(got[0].Params))
	_, msgs := rev20260728PostURL(t, c, rev20260728Body("tools/list", ""))
	require.Len(t, msgs, 1)
	assert.Equal(t, []string{"unlock"}, listedTools(t, msgs[0]))

	require.NoError(t, srv.Registry().Enable(mcp.Match{Kind: mcp.KindTool, Tags: []string{"basic"}}))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(frames, 1, 5*time.Second))
}

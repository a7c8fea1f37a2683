package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// userAuth authenticates "Authorization: Bearer NAME" as caller{NAME}.
func userAuth(r *http.Request) (any, error) {
	name, ok := r.Header.Get("Authorization"), false
	if len(name) > 7 && name[:7] == "Bearer " {
		name, ok = name[7:], true
	}
	if !ok {
		return nil, mcp.ErrUnauthorized
	}
	return caller{Name: name}, nil
}

// TestLegacyStreamsAreBounded: a legacy SSE stream holds no session until
// its initialize, so streams were not counted at all: one client could
// open any number and hold them. Open streams now count against
// MaxSessionsPerClient per client (429) and MaxSessions in all (503),
// each refusal naming its option; a closed stream frees its place.
func TestLegacyStreamsAreBounded(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{Authenticate: userAuth})
	h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true, MaxSessionsPerClient: 2, MaxSessions: 3})
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	open := func(user string) (*legacyClient, *http.Response, string) {
		return dialLegacy(t, ts.Client(), ts.URL+"/sse", "Authorization", "Bearer "+user)
	}
	a1, _, _ := open("alice")
	require.NotNil(t, a1)
	a2, _, _ := open("alice")
	require.NotNil(t, a2)
	c, resp, body := open("alice")
	require.Nil(t, c, "a third stream of alice")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Contains(t, body, "mcphttp.Options.MaxSessionsPerClient")
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	b1, _, _ := open("bob")
	require.NotNil(t, b1, "another client is not held back")
	c, resp, body = open("carol")
	require.Nil(t, c, "a fourth stream in all")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, body, "mcphttp.Options.MaxSessions")

	a1.close()
	require.Eventually(t, func() bool {
		c, _, _ := open("alice")
		if c != nil {
			c.close()
		}
		return c != nil
	}, 5*time.Second, 20*time.Millisecond, "a closed stream frees its place")
}

// TestListenStreamsAreBoundedPerClient: subscriptions/listen streams were
// bounded by MaxSessions in all only, so one client could take them all;
// MaxSessionsPerClient now bounds one client's (429 naming the option).
func TestListenStreamsAreBoundedPerClient(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{Authenticate: userAuth})
	h := mcphttp.New(srv, &mcphttp.Options{MaxSessionsPerClient: 2})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + rev20260728Meta("") + `}}`
	listen := func(ctx context.Context, user string) *http.Response {
		resp, err := ts.Client().Do(wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", "Authorization", "Bearer "+user))
		require.NoError(t, err)
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for range 2 {
		resp := listen(ctx, "alice")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, readFrames(sseFrames(resp.Body), 1, 5*time.Second), 1, "acknowledged")
	}
	resp := listen(ctx, "alice")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "a third stream of alice")
	b := make([]byte, 4096)
	n, _ := resp.Body.Read(b)
	assert.Contains(t, string(b[:n]), "mcphttp.Options.MaxSessionsPerClient")
	resp = listen(ctx, "bob")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "another client is not held back")
}

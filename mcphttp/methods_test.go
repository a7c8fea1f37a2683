package mcphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubscriptionsAreBounded: a session's resource subscriptions are
// kept for its life (in memory and in the session store), so one client
// could make the server hold any number of URIs of 4 MiB each. A session
// subscribes to at most 1024 URIs of at most 8 KiB; beyond either,
// resources/subscribe is -32602 naming the bound, and the session keeps
// what it had. Subscribing again to a URI, or after an unsubscribe, works.
func TestSubscriptionsAreBounded(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	srv.AddResource(mcp.Resource{URI: "mem://a", Name: "a", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "a"}}, nil
	}})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{Logger: discardLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	var re *mcp.Error
	err = c.Subscribe(ctx, "mem://"+strings.Repeat("x", 8<<10))
	require.ErrorAs(t, err, &re, "a URI over 8 KiB")
	assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
	assert.Contains(t, re.Message, "8192")

	for i := range 1024 {
		require.NoError(t, c.Subscribe(ctx, fmt.Sprintf("mem://r/%d", i)), "subscription %d", i)
	}
	require.NoError(t, c.Subscribe(ctx, "mem://r/7"), "again to a URI it has")
	err = c.Subscribe(ctx, "mem://r/1024")
	require.ErrorAs(t, err, &re, "one more")
	assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
	assert.Contains(t, re.Message, "1024")
	require.NoError(t, c.Unsubscribe(ctx, "mem://r/0"))
	require.NoError(t, c.Subscribe(ctx, "mem://r/1024"), "room again after an unsubscribe")
}

// TestListenSubscriptionsAreBounded: the same bounds hold for the
// resourceSubscriptions of a subscriptions/listen stream (2026-07-28).
func TestListenSubscriptionsAreBounded(t *testing.T) {
	t.Parallel()
	ts, _ := newRev20260728Server(t, nil, nil)
	many := make([]string, 1025)
	for i := range many {
		many[i] = fmt.Sprintf(`"mem://r/%d"`, i)
	}
	for name, list := range map[string]string{
		"1025 URIs":        strings.Join(many, ","),
		"a URI over 8 KiB": `"mem://` + strings.Repeat("x", 8<<10) + `"`,
	} {
		resp, msgs := rev20260728Post(t, ts, rev20260728Body("subscriptions/listen", `"notifications":{"resourceSubscriptions":[`+list+`]}`),
			"Mcp-Method", "subscriptions/listen")
		assert.Equal(t, http.StatusOK, resp.StatusCode, name)
		require.Len(t, msgs, 1, name)
		require.NotNil(t, msgs[0].Error, name)
		assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code, name)
	}
}

package toolsearch_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
	"github.com/mcpchain/mcp/toolsearch"
)

// callVia calls name through call_tool and returns the result.
func callVia(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.ContentResult {
	t.Helper()
	res, err := c.CallTool(t.Context(), toolsearch.DefaultCallTool, map[string]any{"name": name, "arguments": args}, nil)
	require.NoError(t, err)
	return res
}

// Search and call_tool see what tools/list and tools/call would: a tool a
// CanAccess check, a server-wide rule or a session's rule hides is never
// found, by words or by pattern, and call_tool cannot call it (the
// engine's "Unknown tool", as a tool error the model reads); the caller
// it is not hidden from finds and calls it.
func TestSearchHonoursAccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, srv *mcp.Server)
		who   string
		tool  string // the hidden tool
		query string
		hide  func(t *testing.T, srv *mcp.Server, c *client.Client) // after connecting; nil: none
	}{
		{name: "CanAccess", who: "bob", tool: "wipe_everything", query: "delete every note"},
		{name: "server-wide Disable", who: "admin", tool: "wipe_everything", query: "delete every note",
			setup: func(t *testing.T, srv *mcp.Server) {
				require.NoError(t, srv.Registry().Disable(mcp.Match{Tags: []string{"admin"}}))
			}},
		{name: "Disable by name", who: "", tool: "send_email", query: "send a message to an inbox",
			setup: func(t *testing.T, srv *mcp.Server) {
				require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{"send_email"}}))
			}},
		{name: "session Disable", who: "", tool: "send_email", query: "send a message to an inbox",
			hide: func(t *testing.T, srv *mcp.Server, c *client.Client) {
				// whoami's answer is the session ID.
				res, err := c.CallTool(t.Context(), "whoami", nil, nil)
				require.NoError(t, err)
				require.NoError(t, srv.SessionRegistry(res.Text()).Disable(mcp.Match{Tags: []string{"mail"}}))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := notesServer(t)
			mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
				return c.SessionID, nil
			})
			if tc.setup != nil {
				tc.setup(t, srv)
			}
			s, err := toolsearch.New(srv, &toolsearch.Options{MaxResults: 50})
			require.NoError(t, err)
			c := connect(t, srv, s, tc.who)
			if tc.hide != nil {
				tc.hide(t, srv, c)
			}
			f, _ := search(t, c, map[string]any{"query": tc.query})
			assert.NotContains(t, f.names(), tc.tool, "found by words")
			f, _ = search(t, c, map[string]any{"pattern": "."})
			assert.NotContains(t, f.names(), tc.tool, "found by pattern")
			assert.NotEmpty(t, f.names(), "the visible tools are found")
			res := callVia(t, c, tc.tool, map[string]any{"to": "x", "subject": "y"})
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "Unknown tool")
			assert.NotContains(t, res.Text(), "wiped")
			assert.NotContains(t, res.Text(), "sent to")
		})
	}

	// The one the check admits finds and calls it.
	srv := notesServer(t)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "admin")
	f, _ := search(t, c, map[string]any{"query": "delete every note"})
	assert.Contains(t, f.names(), "wipe_everything")
	assert.Equal(t, "wiped", callVia(t, c, "wipe_everything", nil).Text())
}

// A session's own tools are found by that session alone, by words and by
// pattern, and only that session can call them through call_tool; a
// tool the session removes is no longer found.
func TestSearchSessionTools(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	mcp.AddTool(srv, mcp.Tool{Name: "open_diary"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "opened", mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "read_diary", Description: "Read the secret diary of this session"},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "dear diary", nil })
	})
	mcp.AddTool(srv, mcp.Tool{Name: "close_diary"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "closed", srv.SessionRegistry(c.SessionID).Remove(access.KindTool, "read_diary")
	})
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	alice := connect(t, srv, s, "alice")
	bob := connect(t, srv, s, "bob")

	// Bob searches first, so that his list is indexed before and after
	// Alice's session has a tool of its own.
	f, _ := search(t, bob, map[string]any{"query": "secret diary"})
	assert.NotContains(t, f.names(), "read_diary")

	assert.Equal(t, "opened", callVia(t, alice, "open_diary", nil).Text())
	f, _ = search(t, alice, map[string]any{"query": "secret diary"})
	require.NotEmpty(t, f.Tools)
	assert.Equal(t, "read_diary", f.Tools[0].Name)
	assert.Equal(t, "dear diary", callVia(t, alice, "read_diary", nil).Text())

	for _, args := range []map[string]any{{"query": "secret diary"}, {"pattern": "diary"}, {"pattern": "^read_"}} {
		f, _ = search(t, bob, args)
		assert.NotContains(t, f.names(), "read_diary", "%v", args)
	}
	res := callVia(t, bob, "read_diary", nil)
	assert.True(t, res.IsError)
	assert.NotContains(t, res.Text(), "dear diary")

	assert.Equal(t, "closed", callVia(t, alice, "close_diary", nil).Text())
	f, _ = search(t, alice, map[string]any{"query": "secret diary"})
	assert.NotContains(t, f.names(), "read_diary", "a removed tool is no longer found")
}

// The index follows the catalog: a tool added at run time is found, a
// removed one is not, a changed description ranks by its new words.
func TestSearchFollowsChanges(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "")
	f, _ := search(t, c, map[string]any{"query": "weather forecast"})
	assert.Empty(t, f.Tools)

	add := func(desc string) {
		srv.Registry().Remove(access.KindTool, "forecast")
		mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: desc},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "sunny", nil })
	}
	add("The weather forecast for a city")
	f, _ = search(t, c, map[string]any{"query": "weather forecast"})
	assert.Equal(t, []string{"forecast"}, f.names())

	add("Tide tables of a harbour")
	f, _ = search(t, c, map[string]any{"query": "weather"})
	assert.Empty(t, f.Tools, "the old description is forgotten")
	f, _ = search(t, c, map[string]any{"query": "tide harbour"})
	assert.Equal(t, []string{"forecast"}, f.names())

	srv.Registry().Remove(access.KindTool, "forecast")
	f, _ = search(t, c, map[string]any{"query": "tide harbour"})
	assert.Empty(t, f.Tools)
	res := callVia(t, c, "forecast", nil)
	assert.True(t, res.IsError)
}

// Tools of a mounted server and of a gateway's mirror are found under
// the names the parent gives them and called through call_tool; a tool
// the remote server adds at run time is found once the mirror has it.
func TestSearchMountsAndGateways(t *testing.T) {
	t.Parallel()
	remote := mcp.NewServer(mcp.Options{Name: "weather", Version: "1.0.0", Logger: quiet()})
	mcp.AddTool(remote, mcp.Tool{Name: "forecast", Description: "The weather forecast for a city"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + in.City, nil
		})
	mcp.AddTool(remote, mcp.Tool{Name: "grow"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "grown", mcp.TryAddTool(remote.Registry(), mcp.Tool{Name: "tides", Description: "Tide tables of a harbour"},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "high at noon", nil })
	})
	rh := mcphttp.New(remote, nil)
	t.Cleanup(func() { _ = rh.Close() })
	g, err := proxy.New(t.Context(), proxy.Options{
		Upstream: func(*mcp.Context) client.Transport { return client.InProcess(rh, nil) },
		Server:   mcp.Options{Logger: quiet()},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })

	hub := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: quiet()})
	hub.Mount("notes", notesServer(t), nil)
	hub.Mount("weather", g.Server(), nil)
	s, err := toolsearch.New(hub, nil)
	require.NoError(t, err)
	c := connect(t, hub, s, "")

	tools, err := c.ListTools(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"search_tools", "call_tool"}, names(tools))

	f, _ := search(t, c, map[string]any{"query": "weather forecast city"})
	require.NotEmpty(t, f.Tools)
	assert.Equal(t, "weather_forecast", f.Tools[0].Name)
	assert.Equal(t, "sunny in Lyon", callVia(t, c, "weather_forecast", map[string]any{"city": "Lyon"}).Text())
	f, _ = search(t, c, map[string]any{"query": "remove a note"})
	require.NotEmpty(t, f.Tools)
	assert.Equal(t, "notes_delete_note", f.Tools[0].Name)

	assert.Equal(t, "grown", callVia(t, c, "weather_grow", nil).Text())
	require.Eventually(t, func() bool {
		f, _ := search(t, c, map[string]any{"query": "tide tables"})
		return len(f.Tools) > 0 && f.Tools[0].Name == "weather_tides"
	}, 10*time.Second, 20*time.Millisecond, "the mirror's new tool is found")
	assert.Equal(t, "high at noon", callVia(t, c, "weather_tides", nil).Text())
}

// A tool only an MCP App's view may call is never a search result: a
// host keeps it from the model, and a search result is not filtered by
// the host.
func TestSearchLeavesOutAppOnlyTools(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	srv.AddAppResource(mcp.AppResource{URI: "ui://notes/view.html", Name: "view", HTML: "<!doctype html><title>v</title>"})
	mcp.AddTool(srv, mcp.Tool{Name: "refresh_view", Description: "Reload the notes view",
		UI: &apps.ToolUI{ResourceURI: "ui://notes/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "refreshed", nil })
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "")
	f, _ := search(t, c, map[string]any{"query": "reload the notes view"})
	assert.NotContains(t, f.names(), "refresh_view")
	f, _ = search(t, c, map[string]any{"pattern": "refresh"})
	assert.Empty(t, f.Tools)
}

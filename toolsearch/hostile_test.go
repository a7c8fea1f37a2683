package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// What a hostile or confused model (or client) may send: each gets a
// tool error (or the engine's JSON-RPC error) that says what was wrong,
// at once, and the server goes on serving.
func TestHostileSearches(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	// Many tools with long descriptions, so that a slow pattern has text
	// to chew on.
	long := strings.Repeat("lorem ipsum dolor sit amet ", 300)
	for i := range 500 {
		mcp.AddTool(srv, mcp.Tool{Name: fmt.Sprintf("filler_%d", i), Description: long},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	}
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "")
	// The first search indexes the catalog; the cases below time the
	// searches, not that.
	search(t, c, map[string]any{"query": "note"})

	for _, tc := range []struct {
		name string
		args map[string]any
		want string // in the error text
	}{
		{"nothing", map[string]any{}, "give query"},
		{"both", map[string]any{"query": "a", "pattern": "b"}, "not both"},
		{"huge query", map[string]any{"query": strings.Repeat("note ", 10000)}, "query"},
		{"long pattern", map[string]any{"pattern": strings.Repeat("a", 201)}, "pattern"},
		{"bad pattern", map[string]any{"pattern": "(unclosed"}, "not a regular expression"},
		{"Perl backreference", map[string]any{"pattern": `(a)\1`}, "not a regular expression"},
		{"counted repeats", map[string]any{"pattern": "((a{100}){100}){100}"}, ""},
		{"big program", map[string]any{"pattern": "[a-z]{1000}x"}, "too complex"},
		{"limit too large", map[string]any{"query": "note", "limit": 1000}, "limit"},
		{"limit zero", map[string]any{"query": "note", "limit": 0}, "limit"},
		{"unknown argument", map[string]any{"query": "note", "select": "*"}, "select"},
		{"query not a string", map[string]any{"query": []string{"note"}}, "query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := c.CallTool(t.Context(), toolsearch.DefaultSearchTool, tc.args, nil)
			require.NoError(t, err)
			require.True(t, res.IsError, "%s", res.Text())
			assert.Contains(t, res.Text(), tc.want)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}

	// A pattern that matches nothing but must be tried on every long
	// text ends within the search's time budget, with what it found.
	start := time.Now()
	res, err := c.CallTool(t.Context(), toolsearch.DefaultSearchTool, map[string]any{"pattern": `(\w+\s+){3,20}zzz`}, nil)
	require.NoError(t, err)
	assert.False(t, res.IsError, res.Text())
	assert.Less(t, time.Since(start), 3*time.Second, "the regex budget bounds a search")
	assert.Contains(t, res.Text(), "stopped before it tried every tool")

	// The server still answers.
	f, _ := search(t, c, map[string]any{"query": "remove a note"})
	assert.Equal(t, "delete_note", f.Tools[0].Name)
}

// call_tool refuses what it must not run, with an error that says why:
// itself and the search tool (no recursion), a hidden tool (the
// engine's Unknown tool), arguments that do not fit its schema; and a
// name spelled with JSON escapes is the same name.
func TestHostileCalls(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "bob")
	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"itself", map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "status"}}, "cannot call call_tool"},
		{"search", map[string]any{"name": "search_tools", "arguments": map[string]any{"query": "x"}}, "cannot call search_tools"},
		{"hidden", map[string]any{"name": "wipe_everything"}, "Unknown tool"},
		{"nonexistent", map[string]any{"name": "no_such_tool"}, "Unknown tool"},
		{"no name", map[string]any{"arguments": map[string]any{}}, "name"},
		{"empty name", map[string]any{"name": ""}, "name"},
		{"arguments not an object", map[string]any{"name": "status", "arguments": []int{1}}, "arguments"},
		{"unknown member", map[string]any{"name": "status", "tool": "wipe_everything"}, "tool"},
		{"bad inner arguments", map[string]any{"name": "delete_note", "arguments": map[string]any{"id": "seven"}}, "id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.CallTool(t.Context(), toolsearch.DefaultCallTool, tc.args, nil)
			require.NoError(t, err)
			require.True(t, res.IsError, "%s", res.Text())
			assert.Contains(t, res.Text(), tc.want)
			assert.NotContains(t, res.Text(), "wiped")
		})
	}
	// Escapes in the request's JSON: the name is call_tool all the same,
	// and the tool it names runs through the engine's checks.
	var raw struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	err = c.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"call\u005ftool","arguments":{"name":"wipe_everything"}}`), &raw)
	require.NoError(t, err)
	assert.True(t, raw.IsError)
	assert.Contains(t, raw.Content[0].Text, "Unknown tool")
	raw.IsError = false
	require.NoError(t, c.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"call\u005ftool","arguments":{"name":"status"}}`), &raw))
	assert.False(t, raw.IsError, "%+v", raw)
	assert.Equal(t, "up", raw.Content[0].Text)
}

// tools/list is one page, whatever the engine's page size, and a cursor
// this server never issued is refused.
func TestListOnePage(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	for i := range 30 {
		mcp.AddTool(srv, mcp.Tool{Name: fmt.Sprintf("extra_%d", i)},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	}
	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{"create_note", "extra_29"}})
	require.NoError(t, err)
	h := mcphttp.New(srv, &mcphttp.Options{PageSize: 4})
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(t.Context(), client.InProcess(s.Middleware(h), nil), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	var page struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	require.NoError(t, c.Call(t.Context(), "tools/list", map[string]any{}, &page))
	var got []string
	for _, tl := range page.Tools {
		got = append(got, tl.Name)
	}
	assert.Equal(t, []string{"create_note", "extra_29", "search_tools", "call_tool"}, got)
	assert.Empty(t, page.NextCursor)
	for _, params := range []any{map[string]any{"cursor": "NA"}, json.RawMessage(`[]`), json.RawMessage(`"x"`), json.RawMessage(`7`)} {
		page.Tools = nil
		err = c.Call(t.Context(), "tools/list", params, &page)
		var rerr *mcp.Error
		require.ErrorAs(t, err, &rerr, "%s", params)
		assert.Contains(t, []int64{mcp.CodeInvalidParams, jsonrpc.CodeInvalidRequest}, rerr.Code, "%s", params)
		assert.Empty(t, page.Tools)
	}
}

// New refuses options that cannot work, and names already taken.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts toolsearch.Options
		want string
	}{
		{"too many results", toolsearch.Options{MaxResults: 51}, "MaxResults"},
		{"negative results", toolsearch.Options{MaxResults: -1}, "MaxResults"},
		{"same names", toolsearch.Options{SearchTool: "x", CallTool: "x"}, "both named"},
		{"bad pin", toolsearch.Options{Pinned: []string{"no spaces"}}, "pinned"},
		{"taken", toolsearch.Options{SearchTool: "status"}, "already registered"},
		{"bad name", toolsearch.Options{CallTool: "call tool"}, "call tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := notesServer(t)
			before := len(srv.ListTools(t.Context(), "admin"))
			_, err := toolsearch.New(srv, &tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Len(t, srv.ListTools(t.Context(), "admin"), before, "nothing registered")
		})
	}
	srv := notesServer(t)
	_, err := toolsearch.New(srv, &toolsearch.Options{SearchTool: "find", CallTool: "run"})
	require.NoError(t, err)
	_, err = toolsearch.New(srv, &toolsearch.Options{SearchTool: "find2", CallTool: "run"})
	require.ErrorIs(t, err, mcp.ErrAlreadyRegistered)
	assert.Len(t, srv.ListTools(t.Context(), nil), 6, "the failed second one took its search tool back")
}

package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// TestInspectToolSearch: inspect shows the surface a client of a server
// behind tool search sees: the pinned tool, the search tool and the call
// tool, with their schemas, and none of the hidden tools.
func TestInspectToolSearch(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "status", Description: "Is the service up?"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "up", nil })
	for _, name := range []string{"create_note", "delete_note", "send_email"} {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	}
	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{"status"}})
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(s.Middleware(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	r := run(t, "", "", "inspect", ts.URL)
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{
		"Tools (3)\n",
		"  status — Is the service up?\n",
		"  search_tools — Find the tools of this server that fit a task.",
		"    in:  {limit?: integer, pattern?: string, query?: string}\n    out: {tools: []object}\n",
		`    annotations: {"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true,"title":"Search tools"}`,
		"  call_tool — Call a tool that search_tools found, by its name",
		"    in:  {arguments?: object, name: string}\n",
	} {
		require.Contains(t, r.stdout, want)
	}
	for _, hidden := range []string{"create_note", "delete_note", "send_email"} {
		require.NotContains(t, r.stdout, hidden)
	}
}

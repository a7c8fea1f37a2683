package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestInspectShowsEnumsWithoutNull: inspect prints an enum as its values
// and an optional slice, pointer or enum without null, as a server of
// this framework infers them from a Go type.
func TestInspectShowsEnumsWithoutNull(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "issues", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	type args struct {
		Repo   string   `json:"repo"`
		Status string   `json:"status,omitempty" enum:"open,closed"`
		Labels []string `json:"labels,omitempty" enum:"bug,docs"`
		Limit  *int     `json:"limit,omitempty"`
		Tags   []string `json:"tags,omitempty"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "list_issues"}, func(context.Context, *mcp.Context, args) (string, error) { return "", nil })
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	r := run(t, "", "", "inspect", ts.URL)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout,
		`    in:  {labels?: []("bug"|"docs"), limit?: integer, repo: string, status?: "open"|"closed", tags?: []string}`+"\n")
	require.NotContains(t, r.stdout, "null")
}

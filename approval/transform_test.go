package approval

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// TestApprovalOfTransformedTools: a tool derived from one that needs
// approval needs it too, whatever the transform renames or hides and
// however it replaces the annotations (a title and an open-world hint
// alone keep the source's destructiveHint; the tag is kept, even under a
// destructiveHint false), a transform of a transform and a call through
// tool search's call_tool included; a transform that would clear the
// source's destructiveHint or declare the tool read-only is refused when
// it is registered; once approved, the call runs.
func TestApprovalOfTransformedTools(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	srv := w.ap.srv
	srv.AddTransformedTool("delete_repo", mcp.Transform{Name: "remove", Title: "Remove a repository",
		Annotations: &mcp.ToolAnnotations{Title: "Remove", OpenWorldHint: new(false)},
		Args:        map[string]mcp.ArgTransform{"repo": {Name: "name"}, "force": {Hide: true, Value: true}}})
	srv.AddTransformedTool("archive", mcp.Transform{Name: "shelve", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}})
	srv.AddTransformedTool("remove", mcp.Transform{Name: "remove_again", Description: "Removes, again."})
	// The tag is the source's whatever the annotations say.
	srv.AddTransformedTool("archive", mcp.Transform{Name: "stow", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)}})

	for _, tr := range []mcp.Transform{
		{Name: "harmless", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)}},
		{Name: "lookup", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
	} {
		for _, source := range []string{"delete_repo", "remove"} {
			err := srv.Registry().AddTransformedTool(source, tr)
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition, "%s from %s", tr.Name, source)
			assert.Contains(t, err.Error(), "destructive", "%s from %s", tr.Name, source)
		}
	}

	c := w.connect("alice", "", nil)
	for tool, args := range map[string]map[string]any{
		"remove":       {"name": "acme/site"},
		"shelve":       {"repo": "acme/site"},
		"remove_again": {"name": "acme/site"},
		"stow":         {"repo": "acme/site"},
	} {
		u := ask(t, c, tool, args)
		assert.Contains(t, u, w.ts.URL+"/approvals/", tool)
	}

	// Through tool search's call_tool: the same request as the direct call's.
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	sc, err := client.Connect(context.Background(), client.InProcess(s.Middleware(h), http.Header{"Authorization": {"Bearer alice"}}),
		&client.Options{ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sc.Close() })
	u := ask(t, sc, toolsearch.DefaultCallTool, map[string]any{"name": "remove", "arguments": map[string]any{"name": "acme/site"}})
	assert.Equal(t, u, ask(t, c, "remove", map[string]any{"name": "acme/site"}))
	assert.Zero(t, w.ran.Load(), "nothing ran unapproved")

	status, body := w.browser(t, "alice").decide(u, "approve")
	require.Equal(t, http.StatusOK, status, body)
	res := call(t, c, "remove", map[string]any{"name": "acme/site"})
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "deleted acme/site", res.Text())
	assert.Equal(t, int32(1), w.ran.Load())
}

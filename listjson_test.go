package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

// TestListToolsJSON: the tools encoded at registration are what
// json.Marshal makes of ListTools, for the same caller (CanAccess still
// filters), and a removed or replaced tool is gone from the list.
func TestListToolsJSON(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "open", Description: "anyone", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "authed", CanAccess: access.Authenticated}, noopTool)
	ctx := context.Background()
	for _, auth := range []any{nil, "ada"} {
		tools := s.ListTools(ctx, auth)
		raw := s.ListToolsJSON(ctx, auth)
		require.Len(t, raw, len(tools))
		for i, tool := range tools {
			want, err := json.Marshal(tool)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(raw[i]), "tool %q for auth %v", tool.Name, auth)
		}
	}
	assert.Len(t, s.ListToolsJSON(ctx, nil), 1, "CanAccess hides authed from an anonymous caller")
	s.Registry().Remove(access.KindTool, "open")
	raw := s.ListToolsJSON(ctx, "ada")
	require.Len(t, raw, 1)
	assert.Contains(t, string(raw[0]), `"name":"authed"`)
}

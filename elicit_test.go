package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
)

// TestToolInputListEnum: on a tool's input, an enum tag on a []string
// restricts its items and a comma list is a list default (both were
// registration errors).
func TestToolInputListEnum(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "pick"}, func(ctx context.Context, c *mcp.Context, in struct {
		Tags []string `json:"tags,omitempty" enum:"a,b" default:"a,b"`
	}) (string, error) {
		return fmt.Sprint(in.Tags), nil
	})
	tools := srv.ListTools(context.Background(), nil)
	require.Len(t, tools, 1)
	b, _ := json.Marshal(tools[0].InputSchema.Properties["tags"])
	assert.JSONEq(t, `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a","b"]}`, string(b))
	s := mcptest.NewSession(t, srv, nil).Client()
	res, err := s.CallTool(context.Background(), "pick", map[string]any{}, nil)
	require.NoError(t, err)
	assert.Equal(t, "[a b]", res.Text())
	res, err = s.CallTool(context.Background(), "pick", map[string]any{"tags": []string{"c"}}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "c is outside the items' enum: %s", res.Text())
}

// TestElicitationCapabilityModes: the client's elicitation capability
// keeps its modes; {} is form only, as the spec says; members of another
// shape are read as absent rather than refused.
func TestElicitationCapabilityModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		caps      string
		form, url bool
	}{
		{`{}`, false, false},
		{`{"elicitation":{}}`, true, false},
		{`{"elicitation":{"form":{}}}`, true, false},
		{`{"elicitation":{"url":{}}}`, false, true},
		{`{"elicitation":{"form":{},"url":{}}}`, true, true},
		{`{"elicitation":{"url":null}}`, true, false},
		{`{"elicitation":{"url":true}}`, false, true},
		{`{"elicitation":true}`, true, false},
	} {
		var c mcp.ClientCapabilities
		require.NoError(t, json.Unmarshal([]byte(tc.caps), &c), tc.caps)
		assert.Equal(t, tc.form, c.Elicitation.FormMode(), "form mode of %s", tc.caps)
		assert.Equal(t, tc.url, c.Elicitation.URLMode(), "URL mode of %s", tc.caps)
	}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

type queryArgs struct {
	Query string `json:"query,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// TestCaseVariantArguments: a tool argument that is a case variant of a
// property of the input schema (or, with a schema of the tool's own, of
// a field of its Go type) is -32602 naming it, and the tool does not run.
func TestCaseVariantArguments(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ran := map[string]int{}
	mcp.AddTool(s, mcp.Tool{Name: "inferred"}, func(_ context.Context, _ *mcp.Context, in queryArgs) (string, error) {
		ran["inferred"]++
		return in.Query, nil
	})
	// A schema of its own, open and naming "q": the Go type's "query"
	// is then checked by the strict decode.
	mcp.AddTool(s, mcp.Tool{Name: "own", InputSchema: toolSchema(t, `{"type":"object","properties":{"q":{"type":"string"}}}`)},
		func(_ context.Context, _ *mcp.Context, in queryArgs) (string, error) {
			ran["own"]++
			return in.Query, nil
		})
	s.AddRawTool(mcp.Tool{Name: "raw", InputSchema: toolSchema(t, `{"type":"object","properties":{
		"query":{"type":"string"},
		"nested":{"type":"object","properties":{"deep":{"type":"object","properties":{"leaf":{}}}}},
		"list":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"id":{}}}}}}}`)},
		func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
			ran["raw"]++
			return &mcp.ContentResult{}, nil
		})
	// search's schema is open, with a nested object and an array of
	// objects.
	s.AddRawTool(mcp.Tool{Name: "search", InputSchema: toolSchema(t, `{"type":"object","properties":{
		"query":{"type":"string"},
		"filter":{"type":"object","properties":{"lang":{"type":"string"}}},
		"tags":{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"}}}}}}`)},
		func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
			ran["search"]++
			return &mcp.ContentResult{}, nil
		})
	tests := []struct {
		tool, args string
		path, want string // "" path: accepted
	}{
		{"inferred", `{"Query":"x"}`, "Query", "query"},
		{"inferred", `{"query":"x","LIMIT":3}`, "LIMIT", "limit"},
		{"own", `{"Q":"x"}`, "Q", "q"},
		{"own", `{"Query":"x"}`, "Query", "query"},
		{"raw", `{"QUERY":"x"}`, "QUERY", "query"},
		{"raw", `{"nested":{"deep":{"Leaf":1}}}`, "nested.deep.Leaf", "leaf"},
		{"raw", `{"list":[[{"id":1}],[{"id":2},{"ID":3}]]}`, "list[1][1].ID", "id"},
		{"raw", `{"Zeta":1,"query":"x","Query":"y"}`, "Query", "query"},
		{"search", `{"Query":"x"}`, "Query", "query"},
		{"search", `{"query":"a","QUERY":"b"}`, "QUERY", "query"},
		{"search", `{"filter":{"Lang":"go"}}`, "filter.Lang", "lang"},
		{"search", `{"tags":[{"key":"a"},{"Key":"b"}]}`, "tags[1].Key", "key"},
		{"inferred", `{"query":"x"}`, "", ""},
		{"own", `{"q":"x","query":"y"}`, "", ""},
		{"raw", `{"query":"x","nested":{"deep":{"leaf":1,"other":2}},"extra":{"Query":1}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			res, err := s.CallTool(context.Background(), newCtx(nil), tt.tool, json.RawMessage(tt.args))
			if tt.path == "" {
				require.NoError(t, err)
				assert.False(t, res.IsError, res.Text())
				return
			}
			var je *mcp.Error
			require.ErrorAs(t, err, &je)
			assert.EqualValues(t, mcp.CodeInvalidParams, je.Code)
			assert.Contains(t, je.Message, `argument "`+tt.path+`"`)
			assert.Contains(t, je.Message, `not "`+tt.want+`"`)
			assert.Contains(t, je.Message, "case-sensitive")
		})
	}
	assert.Equal(t, map[string]int{"inferred": 1, "own": 1, "raw": 1}, ran, "only the accepted calls ran")
}

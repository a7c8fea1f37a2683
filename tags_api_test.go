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

type searchArgs struct {
	Query string   `json:"query" mcp:"minLength=2,maxLength=20"`
	Lang  string   `json:"lang,omitempty" mcp:"pattern=^[a-z]{2}(-[A-Z]{2})?$"`
	Limit int      `json:"limit,omitempty" default:"10" mcp:"minimum=1,maximum=50"`
	Score float64  `json:"score,omitempty" mcp:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Since string   `json:"since,omitempty" mcp:"format=date"`
	Tags  []string `json:"tags,omitempty" mcp:"minItems=1,maxItems=3,uniqueItems,minLength=1"`
}

// TestMCPTagsOverSession checks the tags end to end: the schema a client
// lists, and the error a call that breaks a rule gets.
func TestMCPTagsOverSession(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.Context, in searchArgs) (string, error) {
		return fmt.Sprintf("%s/%s/%d/%v", in.Query, in.Lang, in.Limit, in.Tags), nil
	})
	sess := mcptest.NewSession(t, s, nil)

	tools := sess.ListTools()
	require.Len(t, tools, 1)
	b, err := json.Marshal(tools[0].InputSchema.Properties)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"query": {"type":"string","minLength":2,"maxLength":20},
		"lang":  {"type":"string","pattern":"^[a-z]{2}(-[A-Z]{2})?$"},
		"limit": {"type":"integer","minimum":1,"maximum":50,"default":10},
		"score": {"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
		"since": {"type":"string","format":"date"},
		"tags":  {"type":"array","items":{"type":"string","minLength":1},"minItems":1,"maxItems":3,"uniqueItems":true}
	}`, string(b))

	tests := []struct {
		name string
		args string
		want string // the result text; an error when it starts with "argument"
	}{
		{"valid", `{"query":"go","lang":"en-GB","tags":["a","b"]}`, "go/en-GB/10/[a b]"},
		{"bounds included", `{"query":"go","limit":50}`, "go//50/[]"},
		{"too short", `{"query":"g"}`, `argument "query": minLength: "g" contains 1 Unicode code points, fewer than 2`},
		{"too long", `{"query":"abcdefghijklmnopqrstuvwxyz"}`, `argument "query": maxLength`},
		{"pattern", `{"query":"go","lang":"english"}`, `argument "lang": pattern: "english" does not match regular expression "^[a-z]{2}(-[A-Z]{2})?$"`},
		{"fraction", `{"query":"go","limit":0.5}`, `argument "limit": type: 0.5 has type "number", want "integer"`},
		{"fraction below", `{"query":"go","score":-0.25}`, `argument "score": exclusiveMinimum: -0.25 is less than or equal to 0`},
		{"below minimum", `{"query":"go","limit":0}`, `argument "limit": minimum: 0 is less than 1`},
		{"above maximum", `{"query":"go","limit":51}`, `argument "limit": maximum: 51 is greater than 50`},
		{"exclusive minimum", `{"query":"go","score":0}`, `argument "score": exclusiveMinimum: 0 is less than or equal to 0`},
		{"exclusive maximum", `{"query":"go","score":1}`, `argument "score": exclusiveMaximum: 1 is greater than or equal to 1`},
		{"too few items", `{"query":"go","tags":[]}`, `argument "tags": minItems`},
		{"too many items", `{"query":"go","tags":["a","b","c","d"]}`, `argument "tags": maxItems`},
		{"repeated items", `{"query":"go","tags":["a","a"]}`, `argument "tags": uniqueItems: array items 1 and 0 are equal`},
		{"empty item", `{"query":"go","tags":[""]}`, `argument "tags[]": minLength`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.args), &args))
			res := sess.CallTool("search", args, nil)
			if tt.want[:8] != "argument" {
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, tt.want, res.Text())
				return
			}
			require.True(t, res.IsError, res.Text())
			assert.Contains(t, res.Text(), `Invalid arguments for tool "search": `+tt.want)
		})
	}
}

// TestMCPTagErrorsAtRegistration checks that a bad tag stops TryAddTool
// with ErrInvalidDefinition and AddTool with a panic, both naming the
// field and the rule.
func TestMCPTagErrorsAtRegistration(t *testing.T) {
	t.Parallel()
	type badArgs struct {
		Name string `json:"name" mcp:"minimum=1"`
	}
	fn := func(context.Context, *mcp.Context, badArgs) (string, error) { return "", nil }
	err := mcp.TryAddTool(newServer(t).Registry(), mcp.Tool{Name: "bad"}, fn)
	require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
	assert.Contains(t, err.Error(), `tool "bad"`)
	assert.Contains(t, err.Error(), "field Name: mcp tag: minimum applies to numbers")
	assert.Contains(t, panicMessage(func() { mcp.AddTool(newServer(t), mcp.Tool{Name: "bad"}, fn) }), "field Name: mcp tag")
}

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

type nullFilter struct {
	Lang string   `json:"lang,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

type nullRow struct {
	Name  string `json:"name"`
	Notes []int  `json:"notes,omitempty"`
}

// nullArgs has an optional field of each kind and required ones.
type nullArgs struct {
	Query  string            `json:"query"`
	Values []float64         `json:"values"`
	Tags   []string          `json:"tags,omitempty"`
	Text   string            `json:"text,omitempty"`
	Count  int               `json:"count,omitempty"`
	Limit  *int              `json:"limit,omitempty"`
	Opts   map[string]string `json:"opts,omitempty"`
	Filter *nullFilter       `json:"filter,omitempty"`
	Inner  nullFilter        `json:"inner,omitzero"`
	Rows   []nullRow         `json:"rows,omitempty"`
	Sort   string            `json:"sort,omitempty" enum:"asc,desc" default:"asc"`
}

// TestOptionalNullIsAbsent: a client that sends null for an optional
// argument (as models in OpenAI's strict mode do) is not refused: the
// argument is taken as left out, the Go field keeps its zero value and a
// default applies; null for a required argument is refused, naming it.
func TestOptionalNullIsAbsent(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "t"}, func(_ context.Context, _ *mcp.Context, in nullArgs) (string, error) {
		b, err := json.Marshal(in)
		return string(b), err
	})
	zero, err := json.Marshal(nullArgs{Query: "q", Values: []float64{1}, Sort: "asc"})
	require.NoError(t, err)
	base := `"query":"q","values":[1]`
	tests := []struct {
		name, args string
		want       string // the decoded arguments as JSON; "" for zero
		err        string // the tool error; "" when accepted
	}{
		{"optional slice", `{` + base + `,"tags":null}`, "", ""},
		{"optional string", `{` + base + `,"text":null}`, "", ""},
		{"optional int", `{` + base + `,"count":null}`, "", ""},
		{"optional pointer to int", `{` + base + `,"limit":null}`, "", ""},
		{"optional map", `{` + base + `,"opts":null}`, "", ""},
		{"optional pointer to struct", `{` + base + `,"filter":null}`, "", ""},
		{"optional struct", `{` + base + `,"inner":null}`, "", ""},
		{"optional with a default", `{` + base + `,"sort":null}`, "", ""},
		{"all of them", `{` + base + `,"tags":null,"text":null,"count":null,"limit":null,"opts":null,"filter":null,"inner":null,"rows":null,"sort":null}`, "", ""},
		{"nested optional", `{` + base + `,"filter":{"lang":null,"tags":null},"rows":[{"name":"a","notes":null}]}`,
			`{"query":"q","values":[1],"filter":{},"rows":[{"name":"a"}],"sort":"asc"}`, ""},
		{"kept beside", `{"tags":null,` + base + `,"count":3,"text":null}`,
			`{"query":"q","values":[1],"count":3,"sort":"asc"}`, ""},
		{"a large integer keeps its digits", `{` + base + `,"opts":{"n":"9007199254740993"},"count":9007199254740993,"text":null}`,
			`{"query":"q","values":[1],"count":9007199254740993,"opts":{"n":"9007199254740993"},"sort":"asc"}`, ""},
		{"required string", `{"query":null,"values":[1]}`, "", `argument "query" is required and cannot be null`},
		{"required slice", `{"query":"q","values":null,"tags":null}`, "", `argument "values" is required and cannot be null`},
		{"both required, first by name", `{"values":null,"query":null}`, "", `argument "query" is required and cannot be null`},
		{"nested required", `{` + base + `,"rows":[{"name":"a"},{"name":null}]}`, "", `argument "rows[1].name" is required and cannot be null`},
		{"a map's null value is a value", `{` + base + `,"opts":{"a":null}}`, "", `argument "opts.*": type: null has type "null", want "string"`},
		{"an item's null is a value", `{` + base + `,"tags":[null]}`, "", `argument "tags[]": type: null has type "null", want "string"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := callTool(t, s, "t", tt.args)
			if tt.err != "" {
				require.True(t, res.IsError, res.Text())
				assert.Equal(t, fmt.Sprintf("Invalid arguments for tool %q: %s", "t", tt.err), res.Text())
				return
			}
			require.False(t, res.IsError, res.Text())
			want := tt.want
			if want == "" {
				want = string(zero)
			}
			assert.JSONEq(t, want, res.Text())
		})
	}
}

// TestNullKeptWhereTheSchemaAdmitsIt: a hand-written schema that admits
// null for an optional argument gets null, as a value; one that does not
// gets the arguments without the member.
func TestNullKeptWhereTheSchemaAdmitsIt(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRawTool(mcp.Tool{Name: "raw", InputSchema: toolSchema(t, `{"type":"object","properties":{
		"clear": {"type":["string","null"]},
		"tags":  {"type":"array","items":{"type":"string"}},
		"any":   {}
	}}`)}, func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: string(args)}}}, nil
	})
	res := callTool(t, s, "raw", `{"clear": null, "tags": null, "any": null}`)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"clear": null, "any": null}`, res.Text())
}

package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
)

type findArgs struct {
	Query string `json:"query,omitempty"`
}

// strictServer is the engine's test server plus tools that count their
// runs: echo (typed, no arguments), search (raw, an open schema with
// "query" and a nested "filter.lang") and find (typed, "query").
func strictServer(t *testing.T, runs map[string]*atomic.Int32) *mcp.Server {
	t.Helper()
	srv := newEngineServer(t, nil)
	for _, n := range []string{"echo", "search", "find"} {
		runs[n] = new(atomic.Int32)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		runs["echo"].Add(1)
		return "echo ran", nil
	})
	srv.AddRawTool(mcp.Tool{Name: "search", InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"query":  {Type: "string"},
		"filter": {Type: "object", Properties: map[string]*jsonschema.Schema{"lang": {Type: "string"}}},
		"tags":   {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"key": {Type: "string"}}}},
	}}}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
		runs["search"].Add(1)
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "search ran"}}}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "find"}, func(_ context.Context, _ *mcp.Context, in findArgs) (string, error) {
		runs["find"].Add(1)
		return "find ran: " + in.Query, nil
	})
	return srv
}

// TestStrictParams: params of every method, and tool arguments against
// their schema, are decoded strictly. A case variant of a member the
// method reads, or a duplicate member, is -32602 naming the member, and
// no tool runs: what a gateway reads as params.name is what runs.
func TestStrictParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		params string
		msgHas []string
	}{
		{"case-variant name does not run another tool", "tools/call", `{"name":"add","Name":"echo","arguments":{"a":1,"b":2}}`, []string{`"Name"`, `"name"`, "case-sensitive"}},
		{"case-variant name first", "tools/call", `{"Name":"echo","name":"add","arguments":{"a":1,"b":2}}`, []string{`"Name"`}},
		{"duplicate name", "tools/call", `{"name":"echo","name":"add"}`, []string{`duplicate member "name"`}},
		{"case-variant arguments", "tools/call", `{"name":"search","Arguments":{"query":"x"}}`, []string{`"Arguments"`}},
		{"case-variant _meta member", "tools/call", `{"name":"echo","_meta":{"ProgressToken":1}}`, []string{`"ProgressToken"`}},
		{"case-variant uri", "resources/read", `{"uri":"mem://hello","URI":"mem://other"}`, []string{`"URI"`}},
		{"case-variant prompt name", "prompts/get", `{"name":"greet","NAME":"other","arguments":{"name":"x"}}`, []string{`"NAME"`}},
		{"case-variant level", "logging/setLevel", `{"Level":"debug"}`, []string{`"Level"`}},
		{"case-variant cursor", "tools/list", `{"Cursor":"abc"}`, []string{`"Cursor"`}},
		{"case-variant ref member", "completion/complete", `{"ref":{"type":"ref/prompt","Name":"greet"},"argument":{"name":"name","value":""}}`, []string{`"Name"`}},
		{"case-variant subscribe uri", "resources/subscribe", `{"URI":"mem://hello"}`, []string{`"URI"`}},
		{"argument a case variant of a schema property", "tools/call", `{"name":"search","arguments":{"Query":"x"}}`, []string{`"Query"`, `"query"`, "case-sensitive"}},
		{"argument case variant next to the real one", "tools/call", `{"name":"search","arguments":{"query":"a","QUERY":"b"}}`, []string{`"QUERY"`}},
		{"nested argument case variant", "tools/call", `{"name":"search","arguments":{"filter":{"Lang":"go"}}}`, []string{`"filter.Lang"`, `"lang"`}},
		{"argument case variant in an array item", "tools/call", `{"name":"search","arguments":{"tags":[{"key":"a"},{"Key":"b"}]}}`, []string{`"tags[1].Key"`, `"key"`}},
		{"duplicate argument", "tools/call", `{"name":"search","arguments":{"query":"a","query":"b"}}`, []string{`duplicate member "query"`}},
		{"typed tool: argument case variant", "tools/call", `{"name":"find","arguments":{"Query":"x"}}`, []string{`"Query"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := map[string]*atomic.Int32{}
			c, _ := newHTTP(t, strictServer(t, runs), nil)
			c.initialize("2025-11-25")
			status, msgs := c.post(`{"jsonrpc":"2.0","id":9,"method":"` + tt.method + `","params":` + tt.params + `}`)
			require.Len(t, msgs, 1, "status %d", status)
			require.NotNil(t, msgs[0].Error, "want an error, got %s", msgs[0].Result)
			assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code, msgs[0].Error.Message)
			assert.Equal(t, "9", string(msgs[0].ID))
			for _, s := range tt.msgHas {
				assert.Contains(t, msgs[0].Error.Message, s)
			}
			for n, r := range runs {
				assert.Zero(t, r.Load(), "tool %s ran", n)
			}
		})
	}
}

// TestStrictParamsAccepts: exact names still work, and members that are
// no case variant of a known one pass as before.
func TestStrictParamsAccepts(t *testing.T) {
	t.Parallel()
	runs := map[string]*atomic.Int32{}
	c, _ := newHTTP(t, strictServer(t, runs), nil)
	c.initialize("2025-11-25")
	m, _ := c.call(1, "tools/call", `{"name":"search","arguments":{"query":"x","filter":{"lang":"go"},"tags":[{"key":"a"}],"other":1},"_meta":{"progressToken":"p"}}`)
	assert.Equal(t, "search ran", wiretest.ToolResult(t, m).Text())
	m, _ = c.call(2, "tools/call", `{"name":"find","arguments":{"query":"go"}}`)
	assert.Equal(t, "find ran: go", wiretest.ToolResult(t, m).Text())
	m, _ = c.call(3, "tools/list", `{"cursor":null,"extra":true}`)
	assert.Nil(t, m.Error)
}

// TestStrictInitialize: initialize's params too.
func TestStrictInitialize(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), nil)
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","ProtocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
	require.Len(t, msgs, 1)
	require.NotNil(t, msgs[0].Error, "%s", b)
	assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code)
	assert.Contains(t, msgs[0].Error.Message, `"ProtocolVersion"`)
}

package client

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/sampling"
)

// unmarshalResultType is what resultTypeOf must agree with: the member
// as json.Unmarshal reads it into the struct of callProgress.
func unmarshalResultType(raw []byte) string {
	var ir struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(raw, &ir)
	return ir.ResultType
}

func TestResultTypeOf(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`{"content":[{"type":"text","text":"3"}],"resultType":"complete"}`, "complete", true},
		{` { "resultType" : "input_required" , "inputRequests":{}} `, "input_required", true},
		{`{"content":[{"type":"text","text":"resultType"}]}`, "", true},
		{`{"nested":{"resultType":"task"}}`, "", true},
		{`{"resultType":"task","resultType":"complete"}`, "complete", true},
		{`{}`, "", true},
		{`null`, "", true},
		{`[1,2]`, "", true},
		// What a scan cannot settle: the caller decodes then.
		{`{"ResultType":"task"}`, "", false},
		{`{"resultType":"task","RESULTTYPE":"complete"}`, "", false},
		{`{"result\u0054ype":"task"}`, "", false},
		{`{"reſultType":"task"}`, "", false},
		{`{"resultType":"ta\u0073k"}`, "", false},
		{`{"resultType":7}`, "", false},
		{`{"resultType":null}`, "", false},
	} {
		got, ok := resultTypeOf([]byte(tc.raw))
		assert.Equal(t, tc.wantOK, ok, "%s", tc.raw)
		if ok {
			assert.Equal(t, tc.want, got, "%s", tc.raw)
			assert.Equal(t, unmarshalResultType([]byte(tc.raw)), got, "%s: json.Unmarshal reads another", tc.raw)
		}
	}
}

// FuzzResultTypeOf: on any valid JSON a server may send as a result,
// resultTypeOf either declines or agrees with json.Unmarshal.
func FuzzResultTypeOf(f *testing.F) {
	for _, s := range []string{`{"resultType":"complete","content":[]}`, `{"resultType":"task"}`,
		`{"ResultType":"x"}`, `{"a":{"resultType":"b"},"resultType":"c"}`, `"x"`, `{"resultType":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, ok := resultTypeOf(raw)
		if ok && got != unmarshalResultType(raw) {
			t.Fatalf("resultTypeOf(%q) = %q, json.Unmarshal reads %q", raw, got, unmarshalResultType(raw))
		}
	})
}

// The _meta CallTool's common call splices in is the one rev20260728Params
// adds, at every log level.
func TestRev20260728ToolCallMatchesParams(t *testing.T) {
	c := &Client{opts: Options{
		Info:       mcp.Implementation{Name: "n", Version: "1"},
		Sample:     func(context.Context, *sampling.Request) (*sampling.Result, error) { return nil, nil },
		Roots:      func(context.Context) ([]mcp.Root, error) { return nil, nil },
		Extensions: map[string]any{"io.example/x": map[string]any{"on": true}, "io.example/y": nil},
	}}
	raw, err := toolParams("add", map[string]any{"a": 1, "b": "<two>", "c": []any{1.5, nil}})
	require.NoError(t, err)
	tc := toolCall{name: "add", raw: raw}
	decode := func(b []byte) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	for _, level := range []mcp.LogLevel{"", "debug", "error", ""} {
		c.state.mu.Lock()
		c.state.logLevel = level
		c.state.mu.Unlock()
		got, err := c.rev20260728ToolCall(tc)
		require.NoError(t, err)
		p, err := c.rev20260728Params(tc.raw)
		require.NoError(t, err)
		want, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Equal(t, decode(want), decode(got), "log level %q", level)
	}
}

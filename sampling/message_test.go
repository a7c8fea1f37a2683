package sampling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

func TestResultDecode(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    Result
		wantErr string
	}{
		{"one text block", `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`,
			Result{Role: mcp.RoleAssistant, Content: mcp.TextContent{Text: "hi"}, Model: "m", StopReason: "endTurn"}, ""},
		{"tool uses as an array", `{"role":"assistant","model":"m","stopReason":"toolUse","content":[
			{"type":"text","text":"let me look"},
			{"type":"tool_use","id":"a","name":"weather","input":{"city":"Paris"},"_meta":{"k":1}},
			{"type":"tool_use","id":"b","name":"weather","input":{"city":"Oslo"}}]}`,
			Result{Role: mcp.RoleAssistant, Model: "m", StopReason: "toolUse", Blocks: []mcp.Content{
				mcp.TextContent{Text: "let me look"},
				ToolUse{ID: "a", Name: "weather", Input: json.RawMessage(`{"city":"Paris"}`), Meta: map[string]any{"k": float64(1)}},
				ToolUse{ID: "b", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}}, ""},
		{"one tool use, not in an array", `{"role":"assistant","model":"m","content":{"type":"tool_use","id":"a","name":"t","input":{}}}`,
			Result{Role: mcp.RoleAssistant, Model: "m", Content: ToolUse{ID: "a", Name: "t", Input: json.RawMessage(`{}`)}}, ""},
		{"a block of an unknown type is skipped", `{"role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"}]}`,
			Result{Role: mcp.RoleAssistant, Model: "m", Blocks: []mcp.Content{mcp.TextContent{Text: "ok"}}}, ""},
		{"one unknown block is no content", `{"role":"assistant","model":"m","content":{"type":"hologram"}}`,
			Result{Role: mcp.RoleAssistant, Model: "m"}, ""},
		{"no content", `{"role":"assistant","model":"m"}`, Result{Role: mcp.RoleAssistant, Model: "m"}, ""},
		{"null content", `{"role":"assistant","model":"m","content":null}`, Result{Role: mcp.RoleAssistant, Model: "m"}, ""},
		{"content that is no block", `{"role":"assistant","model":"m","content":"hi"}`, Result{Role: mcp.RoleAssistant, Model: "m"}, ""},
		{"meta kept", `{"role":"assistant","model":"m","content":{"type":"text","text":"x"},"_meta":{"trace":"t"}}`,
			Result{Role: mcp.RoleAssistant, Model: "m", Content: mcp.TextContent{Text: "x"}, Meta: map[string]any{"trace": "t"}}, ""},
		{"a known block that does not decode", `{"role":"assistant","model":"m","content":[{"type":"text","text":3}]}`,
			Result{}, "content[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got Result
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestToolResultRoundTrip(t *testing.T) {
	m := Message{Role: mcp.RoleUser, Blocks: []mcp.Content{
		ToolResult{ToolUseID: "a", Content: []mcp.Content{mcp.TextContent{Text: "18°C"}}, StructuredContent: map[string]any{"c": float64(18)}},
		ToolResult{ToolUseID: "b", IsError: true},
	}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"user","content":[
		{"type":"tool_result","toolUseId":"a","content":[{"type":"text","text":"18°C"}],"structuredContent":{"c":18}},
		{"type":"tool_result","toolUseId":"b","content":[],"isError":true}]}`, string(b))
	var back Message
	require.NoError(t, json.Unmarshal(b, &back))
	m.Blocks[1] = ToolResult{ToolUseID: "b", IsError: true, Content: []mcp.Content{}}
	assert.Equal(t, m, back)

	// A single tool result content block, not in an array, is read too.
	var one ToolResult
	require.NoError(t, json.Unmarshal([]byte(`{"type":"tool_result","toolUseId":"x","content":{"type":"text","text":"t"}}`), &one))
	assert.Equal(t, ToolResult{ToolUseID: "x", Content: []mcp.Content{mcp.TextContent{Text: "t"}}}, one)

	// An empty input goes out as {}.
	b, err = json.Marshal(ToolUse{ID: "i", Name: "n"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"tool_use","id":"i","name":"n","input":{}}`, string(b))
}

func TestRequestTools(t *testing.T) {
	p := Request{MaxTokens: 10, Messages: []Message{{Role: mcp.RoleUser, Content: mcp.Text("hi")}},
		Tools:      []mcp.Tool{{Name: "weather", Description: "Weather of a city"}},
		ToolChoice: &ToolChoice{Mode: ToolChoiceRequired}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10,
		"tools":[{"name":"weather","description":"Weather of a city","inputSchema":{"type":"object"}}],
		"toolChoice":{"mode":"required"}}`, string(b))
	var back Request
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "weather", back.Tools[0].Name)
	assert.Equal(t, ToolChoiceRequired, back.ToolChoice.Mode)
}

// FuzzResult feeds a client's sampling answer, as it may
// come, to the decoder: it must never panic, and what it decodes must
// encode and decode again to the same value.
func FuzzResult(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"w","input":{"c":1}}],"model":"m","stopReason":"toolUse"}`,
		`{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[{"type":"text","text":"x"}],"isError":true}]}`,
		`{"role":"assistant","content":[{"type":"thinking"},{"type":"image","data":"AAEC","mimeType":"image/png"}]}`,
		`{"content":{"type":"tool_result","toolUseId":"a","content":{"type":"audio","data":"","mimeType":"audio/wav"}}}`,
		`{"content":[null,1,"x",{"type":"tool_use","input":"no"}],"_meta":{"a":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Result
		if json.Unmarshal(data, &r) != nil {
			return
		}
		_ = r.ToolUses()
		b, err := json.Marshal(r)
		if err != nil {
			return // e.g. a tool_use input that is not JSON the encoder takes back
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("the result decodes but not as a message: %v", err)
		}
	})
}

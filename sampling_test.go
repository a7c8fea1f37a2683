package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateMessageResultDecode(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    CreateMessageResult
		wantErr string
	}{
		{"one text block", `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`,
			CreateMessageResult{Role: RoleAssistant, Content: TextContent{Text: "hi"}, Model: "m", StopReason: "endTurn"}, ""},
		{"tool uses as an array", `{"role":"assistant","model":"m","stopReason":"toolUse","content":[
			{"type":"text","text":"let me look"},
			{"type":"tool_use","id":"a","name":"weather","input":{"city":"Paris"},"_meta":{"k":1}},
			{"type":"tool_use","id":"b","name":"weather","input":{"city":"Oslo"}}]}`,
			CreateMessageResult{Role: RoleAssistant, Model: "m", StopReason: "toolUse", Blocks: []Content{
				TextContent{Text: "let me look"},
				ToolUseContent{ID: "a", Name: "weather", Input: json.RawMessage(`{"city":"Paris"}`), Meta: map[string]any{"k": float64(1)}},
				ToolUseContent{ID: "b", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}}, ""},
		{"one tool use, not in an array", `{"role":"assistant","model":"m","content":{"type":"tool_use","id":"a","name":"t","input":{}}}`,
			CreateMessageResult{Role: RoleAssistant, Model: "m", Content: ToolUseContent{ID: "a", Name: "t", Input: json.RawMessage(`{}`)}}, ""},
		{"a block of an unknown type is skipped", `{"role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"}]}`,
			CreateMessageResult{Role: RoleAssistant, Model: "m", Blocks: []Content{TextContent{Text: "ok"}}}, ""},
		{"one unknown block is no content", `{"role":"assistant","model":"m","content":{"type":"hologram"}}`,
			CreateMessageResult{Role: RoleAssistant, Model: "m"}, ""},
		{"no content", `{"role":"assistant","model":"m"}`, CreateMessageResult{Role: RoleAssistant, Model: "m"}, ""},
		{"null content", `{"role":"assistant","model":"m","content":null}`, CreateMessageResult{Role: RoleAssistant, Model: "m"}, ""},
		{"content that is no block", `{"role":"assistant","model":"m","content":"hi"}`, CreateMessageResult{Role: RoleAssistant, Model: "m"}, ""},
		{"meta kept", `{"role":"assistant","model":"m","content":{"type":"text","text":"x"},"_meta":{"trace":"t"}}`,
			CreateMessageResult{Role: RoleAssistant, Model: "m", Content: TextContent{Text: "x"}, Meta: map[string]any{"trace": "t"}}, ""},
		{"a known block that does not decode", `{"role":"assistant","model":"m","content":[{"type":"text","text":3}]}`,
			CreateMessageResult{}, "content[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got CreateMessageResult
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

func TestToolResultContentRoundTrip(t *testing.T) {
	m := SamplingMessage{Role: RoleUser, Blocks: []Content{
		ToolResultContent{ToolUseID: "a", Content: []Content{TextContent{Text: "18°C"}}, StructuredContent: map[string]any{"c": float64(18)}},
		ToolResultContent{ToolUseID: "b", IsError: true},
	}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"user","content":[
		{"type":"tool_result","toolUseId":"a","content":[{"type":"text","text":"18°C"}],"structuredContent":{"c":18}},
		{"type":"tool_result","toolUseId":"b","content":[],"isError":true}]}`, string(b))
	var back SamplingMessage
	require.NoError(t, json.Unmarshal(b, &back))
	m.Blocks[1] = ToolResultContent{ToolUseID: "b", IsError: true, Content: []Content{}}
	assert.Equal(t, m, back)

	// A single tool result content block, not in an array, is read too.
	var one ToolResultContent
	require.NoError(t, json.Unmarshal([]byte(`{"type":"tool_result","toolUseId":"x","content":{"type":"text","text":"t"}}`), &one))
	assert.Equal(t, ToolResultContent{ToolUseID: "x", Content: []Content{TextContent{Text: "t"}}}, one)

	// An empty input goes out as {}.
	b, err = json.Marshal(ToolUseContent{ID: "i", Name: "n"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"tool_use","id":"i","name":"n","input":{}}`, string(b))
}

func TestCreateMessageParamsTools(t *testing.T) {
	p := CreateMessageParams{MaxTokens: 10, Messages: []SamplingMessage{{Role: RoleUser, Content: Text("hi")}},
		Tools:      []Tool{{Name: "weather", Description: "Weather of a city"}},
		ToolChoice: &ToolChoice{Mode: ToolChoiceRequired}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10,
		"tools":[{"name":"weather","description":"Weather of a city","inputSchema":{"type":"object"}}],
		"toolChoice":{"mode":"required"}}`, string(b))
	var back CreateMessageParams
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "weather", back.Tools[0].Name)
	assert.Equal(t, ToolChoiceRequired, back.ToolChoice.Mode)
}

func TestSamplingCapabilityDecode(t *testing.T) {
	cases := []struct {
		in   string
		want *SamplingCapability
	}{
		{`{}`, nil},
		{`{"sampling":null}`, nil},
		{`{"sampling":{}}`, &SamplingCapability{}},
		{`{"sampling":{"tools":{}}}`, &SamplingCapability{Tools: &struct{}{}}},
		{`{"sampling":{"tools":{},"context":{}}}`, &SamplingCapability{Tools: &struct{}{}, Context: &struct{}{}}},
		{`{"sampling":{"tools":true}}`, &SamplingCapability{Tools: &struct{}{}}},
		{`{"sampling":{"tools":null}}`, &SamplingCapability{}},
		{`{"sampling":{"tools":false}}`, &SamplingCapability{}},
		{`{"sampling":true}`, &SamplingCapability{}},
		{`{"sampling":{"tools":{"x":1},"future":[]}}`, &SamplingCapability{Tools: &struct{}{}}},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var c ClientCapabilities
			require.NoError(t, json.Unmarshal([]byte(tc.in), &c))
			assert.Equal(t, tc.want, c.Sampling)
			// What a session store keeps reads back the same.
			b, err := json.Marshal(c)
			require.NoError(t, err)
			var back ClientCapabilities
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tc.want, back.Sampling)
		})
	}
}

func TestSampleRefusesToolsWithoutSamplingTools(t *testing.T) {
	withTools := &CreateMessageParams{MaxTokens: 1, Tools: []Tool{{Name: "t"}}}
	withChoice := &CreateMessageParams{MaxTokens: 1, ToolChoice: &ToolChoice{Mode: ToolChoiceNone}}
	cases := []struct {
		name    string
		caps    ClientCapabilities
		p       *CreateMessageParams
		wantErr bool
	}{
		{"tools, sampling without tools", ClientCapabilities{Sampling: &SamplingCapability{}}, withTools, true},
		{"toolChoice, sampling without tools", ClientCapabilities{Sampling: &SamplingCapability{}}, withChoice, true},
		{"tools, no sampling", ClientCapabilities{}, withTools, true},
		{"tools, sampling.tools", ClientCapabilities{Sampling: &SamplingCapability{Tools: &struct{}{}}}, withTools, false},
		{"no tools, sampling without tools", ClientCapabilities{Sampling: &SamplingCapability{}}, &CreateMessageParams{MaxTokens: 1}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &recordingPeer{}
			c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: tc.caps})
			_, err := c.Sample(context.Background(), tc.p)
			if tc.wantErr {
				require.ErrorIs(t, err, ErrCapability)
				assert.Empty(t, p.methods, "nothing is sent")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{"sampling/createMessage"}, p.methods)
		})
	}
	c := newContext(context.Background(), requestInfo{Peer: &recordingPeer{}, ClientCapabilities: ClientCapabilities{Sampling: &SamplingCapability{}}})
	_, err := c.SampleWithTools(context.Background(), withTools, ToolLoop{})
	require.ErrorIs(t, err, ErrCapability)
	assert.Contains(t, err.Error(), "sampling.tools")
}

// FuzzCreateMessageResult feeds a client's sampling answer, as it may
// come, to the decoder: it must never panic, and what it decodes must
// encode and decode again to the same value.
func FuzzCreateMessageResult(f *testing.F) {
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
		var r CreateMessageResult
		if json.Unmarshal(data, &r) != nil {
			return
		}
		_ = r.ToolUses()
		b, err := json.Marshal(r)
		if err != nil {
			return // e.g. a tool_use input that is not JSON the encoder takes back
		}
		var back CreateMessageResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		var m SamplingMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("the result decodes but not as a message: %v", err)
		}
	})
}

// FuzzClientCapabilitiesSampling feeds a client's capabilities (initialize, or a
// 2026-07-28 request's _meta) to the decoder: it must never panic, and
// what it keeps of sampling must survive a session store's round trip.
func FuzzClientCapabilitiesSampling(f *testing.F) {
	for _, s := range []string{`{}`, `{"sampling":{}}`, `{"sampling":{"tools":{},"context":{}}}`,
		`{"sampling":{"tools":false}}`, `{"sampling":[1]}`, `{"sampling":"yes","roots":{"listChanged":true}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c ClientCapabilities
		if json.Unmarshal(data, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encoding %+v: %v", c, err)
		}
		var back ClientCapabilities
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		shape := func(s *SamplingCapability) [3]bool {
			if s == nil {
				return [3]bool{}
			}
			return [3]bool{true, s.Tools != nil, s.Context != nil}
		}
		if shape(c.Sampling) != shape(back.Sampling) {
			t.Fatalf("sampling %v became %v", shape(c.Sampling), shape(back.Sampling))
		}
	})
}

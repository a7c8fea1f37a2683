package codemode

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// otherText is a content item of type "text" that is not mcp.TextContent.
type otherText struct{ Text string }

func (otherText) ContentType() string { return "text" }

func (o otherText) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"type": "text", "text": "other: " + o.Text})
}

// A *mcp.ContentResult, as the engine returns it, is read in place as
// call would read its JSON form: the same value, the same tool error.
func TestDecodeContentResultAsJSON(t *testing.T) {
	t.Parallel()
	var nilMap map[string]int
	for i, r := range []*mcp.ContentResult{
		{Content: []mcp.Content{mcp.Text("a"), mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}, &mcp.TextContent{Text: "b"}}},
		{Content: []mcp.Content{mcp.Text("x")}, StructuredContent: map[string]any{"n": 1.5, "l": []int{1, 2}}},
		{Content: []mcp.Content{mcp.Text("x")}, StructuredContent: json.RawMessage(` {"n": [true, null]} `)},
		{Content: []mcp.Content{mcp.Text("x")}, StructuredContent: nilMap},
		{Content: []mcp.Content{mcp.Text("x")}, StructuredContent: json.RawMessage(`null`)},
		{IsError: true},
		{IsError: true, Content: []mcp.Content{mcp.Text("disk"), mcp.Text("full")}, StructuredContent: map[string]int{"n": 1}},
		{Content: []mcp.Content{mcp.Text("bad \xff utf-8")}},
		{Content: []mcp.Content{otherText{"hi"}, mcp.Text("there")}},
		{},
	} {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		wantV, wantErr, err := decodeResult("t", json.RawMessage(b))
		require.NoError(t, err)
		gotV, gotErr, err := decodeResult("t", r)
		require.NoError(t, err)
		assert.Equal(t, wantErr, gotErr, "%d", i)
		if wantV == nil {
			assert.Nil(t, gotV, "%d", i)
			continue
		}
		assert.Equal(t, wantV.String(), gotV.String(), "%d", i)
		assert.Equal(t, wantV.Type(), gotV.Type(), "%d", i)
	}
}

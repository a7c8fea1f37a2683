package mcphttp

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

type marshalsItself struct{}

func (marshalsItself) MarshalJSON() ([]byte, error) { return []byte(` { "x" : 1 } `), nil }

type point struct {
	X, Y float64
	Tag  string `json:"tag,omitempty"`
}

// appendToolResult writes the bytes encoding/json writes for the same
// result, whichever of its paths it takes.
func TestAppendToolResult(t *testing.T) {
	t.Parallel()
	var nilPoint *point
	tests := []struct {
		name string
		r    mcp.ContentResult
	}{
		{"no content", mcp.ContentResult{}},
		{"text", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "3"}}}},
		{"texts to escape", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "a\"b\\c\n<&>\u2028\x01"}, mcp.TextContent{Text: "é"}}}},
		{"error", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "no"}}, IsError: true}},
		{"structured number", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "3.5"}}, StructuredContent: map[string]any{"result": 3.5}}},
		{"structured struct", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "{}"}}, StructuredContent: point{X: 1, Y: -2.25e-9, Tag: "<b>"}}},
		{"structured nil pointer", mcp.ContentResult{StructuredContent: nilPoint}},
		{"structured raw message", mcp.ContentResult{StructuredContent: json.RawMessage(` {"a" : [1, 2]} `)}},
		{"structured marshaler", mcp.ContentResult{StructuredContent: marshalsItself{}}},
		{"structured with an error flag", mcp.ContentResult{StructuredContent: map[string]any{"ok": false}, IsError: true}},
		{"meta", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "m"}}, Meta: map[string]any{"k": "v"}}},
		{"annotated text", mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}}},
		{"image", mcp.ContentResult{Content: []mcp.Content{mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}}, StructuredContent: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := json.Marshal(tt.r)
			require.NoError(t, err)
			got, err := appendToolResult(nil, &tt.r)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			prefixed, err := appendToolResult([]byte("x"), &tt.r)
			require.NoError(t, err)
			assert.Equal(t, "x"+string(want), string(prefixed), "appends to b, whichever way it encodes")
		})
	}
}

// Structured content that encoding/json cannot encode is an error, not a
// broken answer.
func TestAppendToolResultStructuredError(t *testing.T) {
	t.Parallel()
	_, err := appendToolResult(nil, &mcp.ContentResult{StructuredContent: math.Inf(1)})
	var ue *json.UnsupportedValueError
	assert.True(t, errors.As(err, &ue), "got %v", err)
}

// FuzzAppendToolResult: any text and structured content encode to the
// JSON encoding/json writes for the same result.
func FuzzAppendToolResult(f *testing.F) {
	f.Add("3", `{"result":3.5}`, false)
	f.Add("a\"<b>\u2028", `[1,"<&>",null]`, true)
	f.Add("", ``, false)
	f.Fuzz(func(t *testing.T, text, structured string, isError bool) {
		r := mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: text}}, IsError: isError}
		if structured != "" {
			var v any
			if json.Unmarshal([]byte(structured), &v) != nil {
				return
			}
			r.StructuredContent = v
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := appendToolResult(nil, &r)
		require.NoError(t, err)
		// The same JSON; text may be escaped otherwise (\u000c for \f).
		require.JSONEq(t, string(want), string(got))
	})
}

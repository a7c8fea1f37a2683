package mcphttp

import (
	"encoding/json"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// toolResultSize is about the length of r's plain-text encoding (exact
// when no text needs escaping), so that appendToolResult grows its buffer
// once at most.
func toolResultSize(r *mcp.ContentResult) int {
	n := len(`{"content":[],"isError":true}`)
	for _, c := range r.Content {
		n += len(`{"type":"text","text":""},`)
		if t, ok := c.(mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	return n
}

// appendToolResult encodes a tool result. Results whose content is made
// only of plain text items (the common case, and the hot path) are written
// directly, their structured content through one json.Marshal of its own;
// anything else goes through encoding/json whole. Going through
// ContentResult.MarshalJSON would encode the structured content twice (the
// second time to compact the first's output) and, nesting two reflective
// encodings, made a typed tool's answer the deepest point of its request's
// stack. The result is appended to b whichever way it is encoded, so
// that the response envelope and the result share one buffer.
func appendToolResult(b []byte, r *mcp.ContentResult) ([]byte, error) {
	if r.Meta != nil {
		return appendMarshal(b, r)
	}
	for _, c := range r.Content {
		t, ok := c.(mcp.TextContent)
		if !ok || t.Annotations != nil || t.Meta != nil {
			return appendMarshal(b, r)
		}
	}
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = jsonrpc.AppendString(b, c.(mcp.TextContent).Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		var err error
		if b, err = appendMarshal(append(b, `,"structuredContent":`...), r.StructuredContent); err != nil {
			return nil, err
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// appendMarshal appends v encoded by encoding/json to b.
func appendMarshal(b []byte, v any) ([]byte, error) {
	m, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, m...), nil
}

package sizelimit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// jsonStringLen and prefixWithin count as encoding/json writes: quotes,
// two-byte escapes, \u escapes of control and HTML characters, U+2028 and
// U+2029, and \ufffd for each invalid byte.
func TestJSONStringLen(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `a"b\c`, "line\nnext\ttab\r\b\f", "\x00\x01\x1f", "<a href=\"x\">&</a>",
		"é ü 中文 🎉", "\u2028\u2029", "bad \xff\xfe byte", "\xe2\x82", strings.Repeat("x", 1000)} {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, len(b), jsonStringLen(s), "%q", s)
		for room := range len(b) {
			n := prefixWithin(s, room)
			pb, _ := json.Marshal(s[:n])
			assert.LessOrEqual(t, len(pb)-2, room, "%q room %d", s, room)
			if n < len(s) && utf8.ValidString(s) {
				assert.True(t, utf8.ValidString(s[:n]), "cut at a character boundary: %q", s[:n])
			}
		}
	}
}

// FuzzEnforce: whatever the text and the limit, an answer over the limit
// is replaced by one within it (for limits that can hold any answer at
// all), its text items are prefixes of the tool's, structuredContent is
// kept whole or the answer is an isError refusal, and the tool's result
// itself is never modified.
func FuzzEnforce(f *testing.F) {
	f.Add("hello", 100, false, false, "")
	f.Add(strings.Repeat("é<>&\n", 300), 200, true, false, "ask for less")
	f.Add(strings.Repeat("\u2028", 100), 80, false, true, "")
	f.Add("x", 10, false, false, "")
	f.Fuzz(func(t *testing.T, text string, limit int, structured, refuse bool, hint string) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		r := &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: text}, mcp.ImageContent{Data: []byte(text), MIMEType: "image/png"}, mcp.TextContent{Text: "tail"}}}
		if structured {
			b, _ := json.Marshal(map[string]string{"text": text})
			r.StructuredContent = json.RawMessage(b)
		}
		before, err := json.Marshal(r)
		require.NoError(t, err)
		out := enforce(r, "t", Limit{Bytes: limit, Refuse: refuse, Hint: hint})
		after, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, before, after, "the tool's result is not modified")
		if limit == 0 || len(before) <= limit {
			require.Same(t, r, out)
			return
		}
		enc, err := json.Marshal(out)
		require.NoError(t, err)
		if limit >= 64 { // an empty isError result takes 56 bytes
			require.LessOrEqual(t, len(enc), limit, "%s", enc)
		}
		require.True(t, json.Valid(enc))
		if !out.IsError {
			require.False(t, refuse)
			require.Equal(t, r.StructuredContent, out.StructuredContent, "structured content is whole")
			for _, c := range out.Content[:len(out.Content)-1] {
				if tc, ok := c.(mcp.TextContent); ok {
					require.True(t, strings.HasPrefix(text, tc.Text) || strings.HasPrefix("tail", tc.Text), "%q", tc.Text)
				}
			}
			last := out.Content[len(out.Content)-1].(mcp.TextContent).Text
			require.True(t, strings.HasPrefix(last, "[Result cut down"), "%q", last)
		} else {
			require.Nil(t, out.StructuredContent)
		}
	})
}

// BenchmarkInterceptor is the middleware's own work on one call, without
// the transport: the result checked within a default limit (a pass over
// its items, no encoding), the params read too for a per-tool limit, and a
// result cut down. "off" is the call through no interceptor.
func BenchmarkInterceptor(b *testing.B) {
	small := &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: strings.Repeat("x", 200)}}}
	large := &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: strings.Repeat("x", 5000)}}}
	params := json.RawMessage(`{"name":"search","arguments":{"query":"mcp","limit":10}}`)
	cutParams := json.RawMessage(`{"name":"cut","arguments":{"query":"mcp","limit":10}}`)
	l := &limiter{opts: Options{Default: Limit{Bytes: 64 << 10}, Tools: map[string]Limit{"cut": {Bytes: 1000}}}}
	plain := &limiter{opts: Options{Default: Limit{Bytes: 64 << 10}}}
	for _, bc := range []struct {
		name string
		res  *mcp.ContentResult
		l    *limiter
	}{{"off", small, nil}, {"within-default", small, plain}, {"within-per-tool", small, l}, {"cut", large, l}} {
		b.Run(bc.name, func(b *testing.B) {
			next := func(context.Context, *mcp.Call) (any, error) { return bc.res, nil }
			h := next
			if bc.l != nil {
				h = bc.l.intercept(next)
			}
			call := &mcp.Call{Method: "tools/call", ID: json.RawMessage("1"), Params: params}
			if bc.res == large {
				call.Params = cutParams
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

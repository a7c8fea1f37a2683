// Package sizelimit bounds the size of tool results before they reach a
// client, and so a model's context: a result over its tool's limit is cut
// down to fit, with a notice the model reads, or refused with an isError
// result that says how large it was. It acts on the decoded requests
// through an mcp.Interceptor, so it sees every transport (Streamable HTTP,
// stdio, embedded, each request of a batch).
//
// Sizes are measured on the result's JSON encoding (encoding/json), which
// is what the client receives and, near enough, what enters the model's
// context. Tokens are approximated as that size in bytes divided by 4,
// rounded up: the usual rule of thumb for English prose with the BPE
// tokenizers of current models. Code, JSON and other languages run to
// fewer bytes a token (about 3 for JSON), so a Tokens limit lets through
// somewhat more tokens than it names; set it with that margin in mind, or
// use Bytes.
package sizelimit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/toolcall"
)

// bytesPerToken is the approximation of [Limit].Tokens: a token is taken
// as 4 bytes of the result's JSON encoding.
const bytesPerToken = 4

// Limit bounds the results of one tool. The zero Limit sets no bound.
type Limit struct {
	// Bytes bounds a result's size: the length of its JSON encoding. Zero:
	// no bound in bytes.
	Bytes int
	// Tokens bounds a result's approximate size in tokens (its bytes
	// divided by 4, rounded up). Zero: no bound in tokens.
	// With both, the tighter applies.
	Tokens int
	// Refuse answers a result over the limit with an isError result that
	// says how large it was and what the limit is, instead of cutting it
	// down.
	Refuse bool
	// Hint ends the notice, telling the model how to ask for less ("Pass
	// a smaller limit, or an offset to read on.").
	Hint string
}

// bound is the limit in bytes, 0 for none.
func (l Limit) bound() int {
	m := l.Bytes
	if l.Tokens > 0 && l.Tokens <= math.MaxInt/bytesPerToken && (m == 0 || l.Tokens*bytesPerToken < m) {
		m = l.Tokens * bytesPerToken
	}
	return m
}

// Options configure [New].
type Options struct {
	// Default is the limit of the tools Tools does not name.
	Default Limit
	// Tools are the limits of single tools, by the name a client calls
	// them (prefixed, for a mounted server's); a zero Limit exempts one.
	Tools map[string]Limit
}

// New returns a middleware that bounds the result of every tools/call by
// its tool's [Limit]. A result over the limit is, with Refuse, an isError
// result with the notice; otherwise it is cut down to fit:
//
//   - structuredContent is kept whole, never cut in the middle of its
//     JSON (a tool with an output schema still conforms to it); when it
//     alone does not fit, the result is refused instead;
//   - content items are kept in order while they fit; the first text item
//     that does not is cut at a character boundary, and what follows it
//     is left out; an image, audio or embedded resource that does not fit
//     is left out whole;
//   - a last text item says what happened: how large the result was, the
//     limit, in bytes and about how many tokens, how many items were left
//     out, and the Hint.
//
// The answer of a result cut down or refused stays within the limit; a
// limit too small for the notice refuses with the notice cut short. Tool
// results of tasks (fetched with tasks/get, tasks/result) and JSON-RPC
// errors pass untouched. New panics on a limit under 64 bytes (16
// tokens), which not even an empty isError result meets.
func New(opts Options) func(http.Handler) http.Handler {
	for name, lim := range opts.Tools {
		checkLimit("Options.Tools["+name+"]", lim)
	}
	checkLimit("Options.Default", opts.Default)
	l := &limiter{opts: opts}
	ic := mcp.Interceptor(l.intercept)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
		})
	}
}

// minLimit is the smallest limit New takes: an empty isError result
// encodes in 56 bytes.
const minLimit = 64

func checkLimit(what string, l Limit) {
	if b := l.bound(); b != 0 && b < minLimit || l.Bytes < 0 || l.Tokens < 0 {
		panic(fmt.Sprintf("sizelimit: New: %s is %d bytes (Bytes %d, Tokens %d): a limit is at least %d bytes (%d tokens), or zero for none",
			what, b, l.Bytes, l.Tokens, minLimit, minLimit/bytesPerToken))
	}
}

type limiter struct{ opts Options }

func (l *limiter) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Method != "tools/call" || c.ID == nil {
			return next(ctx, c)
		}
		lim := l.opts.Default
		name, named := "", false
		if len(l.opts.Tools) > 0 {
			name, named = toolName(c.Params), true
			if tl, ok := l.opts.Tools[name]; ok {
				lim = tl
			}
		}
		if lim.bound() == 0 {
			return next(ctx, c)
		}
		res, err := next(ctx, c)
		if r, ok := res.(*mcp.ContentResult); ok && err == nil {
			if !named && upperBound(r) > lim.bound() {
				name = toolName(c.Params) // for the notice
			}
			return enforce(r, name, lim), nil
		}
		return res, err
	}
}

// toolName is the name a tools/call's params give, "" when they give none
// the engine would take (the Default limit applies then).
func toolName(params []byte) string {
	p, _ := toolcall.Parse(params)
	return p.Name
}

// enforce returns r, or, when its encoding is larger than lim, what the
// middleware of [New] answers instead (r itself is not modified). name is
// the tool's, for the notice.
func enforce(r *mcp.ContentResult, name string, lim Limit) *mcp.ContentResult {
	limit := lim.bound()
	if limit == 0 || r == nil || upperBound(r) <= limit {
		return r
	}
	b, err := json.Marshal(r)
	if err != nil || len(b) <= limit {
		return r // the engine reports what does not encode
	}
	size := len(b)
	if !lim.Refuse {
		if cut, ok := truncate(r, name, size, limit, lim); ok {
			return cut
		}
	}
	return refusal(name, size, limit, lim)
}

// refusal is the isError answer to a result of size bytes over limit,
// itself within the limit (its notice cut short when it must be).
func refusal(name string, size, limit int, lim Limit) *mcp.ContentResult {
	msg := fmt.Sprintf("The result of tool %q was not sent: it is %s, over the limit of %s.", name, describe(size), describe(limit))
	if lim.Hint != "" {
		msg += " " + lim.Hint
	}
	res := &mcp.ContentResult{IsError: true, Content: []mcp.Content{mcp.TextContent{}}}
	room := limit - encodedLen(res)
	res.Content[0] = mcp.TextContent{Text: msg[:prefixWithin(msg, room)]}
	return res
}

func describe(n int) string {
	return fmt.Sprintf("%d bytes (about %d tokens)", n, (n+bytesPerToken-1)/bytesPerToken)
}

// truncate cuts r down to limit bytes, keeping structuredContent, _meta and
// isError, the content items that fit in order, and a notice. It reports
// false when not even that fits.
func truncate(r *mcp.ContentResult, name string, size, limit int, lim Limit) (*mcp.ContentResult, bool) {
	// The notice's length depends on how many items are left out; its
	// longest form bounds the budget.
	notice := func(left int, cut bool) mcp.TextContent {
		msg := fmt.Sprintf("[Result cut down: tool %q returned %s, over the limit of %s", name, describe(size), describe(limit))
		switch {
		case cut && left > 0:
			msg += fmt.Sprintf("; the text above is cut short and %d more items are left out", left)
		case cut:
			msg += "; the text above is cut short"
		case left > 0:
			msg += fmt.Sprintf("; %d items are left out", left)
		}
		msg += ".]"
		if lim.Hint != "" {
			msg = msg[:len(msg)-1] + " " + lim.Hint + "]"
		}
		return mcp.TextContent{Text: msg}
	}
	out := &mcp.ContentResult{StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
	worst := notice(len(r.Content), true)
	out.Content = []mcp.Content{worst}
	fixed := encodedLen(out) // the envelope, structuredContent, _meta and the notice
	if fixed < 0 || fixed > limit {
		return nil, false
	}
	budget := limit - fixed
	kept := make([]mcp.Content, 0, len(r.Content)+1)
	left, cut := 0, false
	for i, item := range r.Content {
		if cut {
			left += len(r.Content) - i
			break
		}
		n := itemLen(item) + 1 // and the comma before the notice
		if n > 0 && n <= budget {
			kept = append(kept, item)
			budget -= n
			continue
		}
		t, ok := item.(mcp.TextContent)
		if !ok {
			left++
			continue
		}
		// The item's envelope, then as much of its text as fits.
		empty := t
		empty.Text = ""
		room := budget - (encodedLen(empty) + 1)
		if room <= 0 {
			left += len(r.Content) - i
			break
		}
		t.Text = t.Text[:prefixWithin(t.Text, room)]
		kept = append(kept, t)
		cut = true
	}
	kept = append(kept, notice(left, cut))
	out.Content = kept
	if n := encodedLen(out); n < 0 || n > limit {
		return nil, false // never more than the limit, whatever the arithmetic missed
	}
	return out, true
}

// itemLen is encodedLen of a content item, counted for text rather than
// encoded: a long text is the common item over a limit.
func itemLen(c mcp.Content) int {
	t, ok := c.(mcp.TextContent)
	if !ok {
		return encodedLen(c)
	}
	text := t.Text
	t.Text = ""
	n := encodedLen(t)
	if n < 0 {
		return n
	}
	return n + jsonStringLen(text) - 2
}

// encodedLen is the length of v's JSON encoding, -1 when it has none.
func encodedLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return -1
	}
	return len(b)
}

// upperBound bounds r's encoded size from above without encoding it, so
// that a result well within its limit costs a pass over its items: every
// byte of text escapes to at most 6, a blob's base64 is 4/3 of it.
// Values it cannot bound count as unbounded.
func upperBound(r *mcp.ContentResult) int {
	const unbounded = int(^uint(0) >> 1)
	if r.Meta != nil {
		return unbounded
	}
	n := 64
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		n += 6 * len(sc) // encoding/json escapes <, > and & in it
	default:
		return unbounded
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			if c.Annotations != nil || c.Meta != nil {
				return unbounded
			}
			n += 32 + 6*len(c.Text)
		case mcp.ImageContent:
			if c.Annotations != nil || c.Meta != nil {
				return unbounded
			}
			n += 64 + 6*len(c.MIMEType) + (len(c.Data)+2)/3*4
		default:
			return unbounded
		}
	}
	return n
}

// prefixWithin returns the length of the longest prefix of s, ending at
// a character boundary, whose JSON string encoding (without its quotes)
// is at most room bytes.
func prefixWithin(s string, room int) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := escapedLen(r, size)
		if n+w > room {
			return i
		}
		n += w
		i += size
	}
	return len(s)
}

// jsonStringLen is the length of s's JSON string encoding, quotes
// included, as encoding/json writes it.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += escapedLen(r, size)
		i += size
	}
	return n
}

// escapedLen is how many bytes encoding/json writes for the rune r, read
// from size bytes of a string (utf8.RuneError of size 1: an invalid byte,
// written as \ufffd).
func escapedLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	}
	return size
}

package mcphttp_test

import (
	"strings"
	"testing"

	"github.com/mcpchain/mcp/mcphttp"
)

// FuzzETagMatch feeds the Server Card's If-None-Match parser any field
// value: it never panics, and a list that holds the card's entity tag as
// an element (strong or weak) always matches, whatever the other lines
// hold.
func FuzzETagMatch(f *testing.F) {
	const etag = `"0123456789abcdef0123456789abcdef"`
	for _, s := range []string{"", "*", etag, `W/` + etag, `"a", ` + etag, `"a`, `W/`, `,,,`, `"a" "b"`, "\x00\"", `W/"` + etag} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		_ = mcphttp.ETagMatch([]string{v}, etag)
		_ = mcphttp.ETagMatch([]string{v, v}, etag)
		if !strings.ContainsAny(v, `"*`) && mcphttp.ETagMatch([]string{v}, etag) {
			t.Fatalf("%q matched without an entity tag", v)
		}
		if !mcphttp.ETagMatch([]string{`"x", ` + etag}, etag) || !mcphttp.ETagMatch([]string{v, "W/" + etag}, etag) {
			t.Fatalf("a list holding the tag did not match (%q)", v)
		}
	})
}

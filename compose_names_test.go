package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/yosida95/uritemplate/v3"
)

// TestMountNames checks the names of a child's objects in the parent and
// their way back: every wrapped name unwraps to the original, under its
// own prefix only.
func TestMountNames(t *testing.T) {
	for _, tc := range []struct {
		prefix, in, want string
		ok               bool
	}{
		{"docs", "search", "docs_search", true},
		{"docs", "a_b", "docs_a_b", true},
		{"", "search", "search", true},
		{"x-1", "t.v", "x-1_t.v", true},
	} {
		got, ok := wrapName(tc.prefix, tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		back, ok := unwrapName(tc.prefix, got)
		assert.True(t, ok)
		assert.Equal(t, tc.in, back)
	}
	long := make([]byte, 125)
	for i := range long {
		long[i] = 'a'
	}
	_, ok := wrapToolName("docs", string(long))
	assert.False(t, ok, "a prefixed name over 128 characters is no tool name")

	for _, tc := range []struct {
		prefix, in, want string
		ok               bool
	}{
		{"docs", "weather://stations", "weather://docs/stations", true},
		{"docs", "file:///etc/hosts", "file://docs//etc/hosts", true},
		{"docs", "ui://app/view.html", "ui://docs/app/view.html", true},
		{"docs", "weather://city/{name}", "weather://docs/city/{name}", true},
		{"docs", "repo://{owner}/{repo}{?ref}", "repo://docs/{owner}/{repo}{?ref}", true},
		{"docs", "urn:isbn:123", "", false},
		{"docs", "{scheme}://x", "", false},
		{"", "urn:isbn:123", "urn:isbn:123", true},
	} {
		got, ok := wrapURI(tc.prefix, tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		if !ok {
			continue
		}
		back, ok := unwrapURI(tc.prefix, got)
		assert.True(t, ok, got)
		assert.Equal(t, tc.in, back)
		if _, err := uritemplate.New(tc.in); err == nil {
			_, err := uritemplate.New(got)
			assert.NoError(t, err, "the prefixed template %q stays RFC 6570", got)
		}
	}

	// A name of one prefix never unwraps under another.
	for _, tc := range []struct{ prefix, name string }{
		{"a", "ab_x"}, {"a", "a-b_x"}, {"ab", "a_bx"}, {"a", "a"}, {"a", "a_"},
	} {
		inner, ok := unwrapName(tc.prefix, tc.name)
		if ok {
			assert.Equal(t, tc.name, tc.prefix+"_"+inner)
			assert.NotEmpty(t, inner, "%q under %q", tc.name, tc.prefix)
		}
	}
	for _, tc := range []struct{ prefix, uri string }{
		{"a", "s://ab/x"}, {"ab", "s://a/bx"}, {"a", "s:/a/x"}, {"a", "urn:a/x"},
	} {
		_, ok := unwrapURI(tc.prefix, tc.uri)
		assert.False(t, ok, "%q under %q", tc.uri, tc.prefix)
	}

	for _, p := range []string{"a_b", "a/b", "a.b", "a b", "ü", string(long)} {
		assert.False(t, validPrefix(p), p)
	}
	for _, p := range []string{"", "a", "A-1", "0x"} {
		assert.True(t, validPrefix(p), p)
	}
}

// FuzzMountNames: the client's names and URIs are unwrapped without a
// panic, and what unwraps wraps back to the same text; what wraps unwraps
// to the original.
func FuzzMountNames(f *testing.F) {
	for _, s := range []string{"docs_search", "docs_", "_", "weather://docs/x", "file://docs//etc", "docs://", "urn:docs:x", "{x}://docs/y", "a://b/c/{d}"} {
		f.Add("docs", s)
	}
	f.Add("", "x")
	f.Add("a-1", "a-1_b")
	f.Fuzz(func(t *testing.T, prefix, s string) {
		if !validPrefix(prefix) {
			return
		}
		if inner, ok := unwrapName(prefix, s); ok {
			if back, _ := wrapName(prefix, inner); back != s {
				t.Fatalf("name %q under %q: unwraps to %q, which wraps to %q", s, prefix, inner, back)
			}
		}
		if inner, ok := unwrapURI(prefix, s); ok {
			if back, ok := wrapURI(prefix, inner); ok && back != s {
				t.Fatalf("URI %q under %q: unwraps to %q, which wraps to %q", s, prefix, inner, back)
			}
		}
		if w, ok := wrapName(prefix, s); ok {
			if back, ok := unwrapName(prefix, w); s != "" && (!ok || back != s) {
				t.Fatalf("name %q under %q: wraps to %q, which unwraps to %q, %v", s, prefix, w, back, ok)
			}
		}
		if w, ok := wrapURI(prefix, s); ok {
			if back, ok := unwrapURI(prefix, w); !ok || back != s {
				t.Fatalf("URI %q under %q: wraps to %q, which unwraps to %q, %v", s, prefix, w, back, ok)
			}
		}
	})
}

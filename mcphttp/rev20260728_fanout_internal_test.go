package mcphttp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoteChangeRoundTrip: what a replica publishes, another decodes to
// the same change; what must stay in its process is never published.
func TestRemoteChangeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, ch := range []change{
		{Kind: changeTools},
		{Kind: changePrompts},
		{Kind: changeResources, Caller: "sub:alice"},
		{Kind: changeResourceUpdated, URI: "mem://x"},
	} {
		b, ok := encodeChange("origin-1", ch)
		require.True(t, ok, "%+v", ch)
		from, got, err := decodeChange(b)
		require.NoError(t, err, "%s", b)
		assert.Equal(t, "origin-1", from)
		assert.Equal(t, ch, got)
	}
	for name, ch := range map[string]change{
		"a log broadcast":         {Kind: changeLog},
		"a per-session change":    {Kind: changeTools, SessionID: "s1"},
		"a per-session notify":    {Kind: changeSessionNotify, SessionID: "s1"},
		"a URI nobody may listen": {Kind: changeResourceUpdated, URI: strings.Repeat("x", maxSubscriptionURI+1)},
	} {
		_, ok := encodeChange("origin-1", ch)
		assert.False(t, ok, name)
	}
}

// TestDecodeChangeRefuses: a message read from the relay is outside input;
// each malformed one is an error naming what is wrong, never a change.
func TestDecodeChangeRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, msg, has string
	}{
		{"not JSON", `tools`, "invalid"},
		{"not an object", `["tools"]`, "cannot unmarshal"},
		{"no origin", `{"k":"tools"}`, "origin"},
		{"origin too long", `{"o":"` + strings.Repeat("o", maxOrigin+1) + `","k":"tools"}`, "origin"},
		{"unknown kind", `{"o":"a","k":"logs"}`, `unknown kind "logs"`},
		{"update without URI", `{"o":"a","k":"updated"}`, "URI is empty"},
		{"list change with a URI", `{"o":"a","k":"tools","u":"mem://x"}`, "carries a URI"},
		{"update for a caller", `{"o":"a","k":"updated","u":"mem://x","c":"sub:a"}`, "names a caller"},
		{"duplicate member", `{"o":"a","k":"tools","k":"updated"}`, "duplicate"},
		{"case variant", `{"o":"a","K":"updated","k":"tools"}`, `"K"`},
		{"too big", `{"o":"a","k":"tools","x":"` + strings.Repeat("x", maxRemoteChange) + `"}`, "bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := decodeChange([]byte(tt.msg))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.has)
		})
	}
	_, ch, err := decodeChange([]byte(`{"o":"a","k":"tools","new":1}`))
	require.NoError(t, err, "a member a newer replica added is ignored")
	assert.Equal(t, change{Kind: changeTools}, ch)
}

// FuzzRemoteChange: decodeChange never panics, and a change it accepts
// is within the bounds a listen stream relies on and survives a
// re-encoding unchanged.
func FuzzRemoteChange(f *testing.F) {
	for _, s := range []string{
		`{"o":"a","k":"tools"}`, `{"o":"a","k":"updated","u":"mem://x"}`, `{"o":"a","k":"prompts","c":"sub:alice"}`,
		`{"o":"a","k":"resources","c":""}`, `{"o":"","k":"tools"}`, `{"o":"a","k":"tools","k":"tools"}`, `null`, `{}`, `{"o":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		from, ch, err := decodeChange(b)
		if err != nil {
			return
		}
		if from == "" || len(from) > maxOrigin || len(ch.URI) > maxSubscriptionURI || len(ch.Caller) > maxCallerKey {
			t.Fatalf("accepted out of bounds: origin %d bytes, %+v", len(from), ch)
		}
		again, ok := encodeChange(from, ch)
		if !ok {
			t.Fatalf("accepted %q but would not publish %+v", b, ch)
		}
		from2, ch2, err := decodeChange(again)
		if err != nil || from2 != from || ch2 != ch {
			t.Fatalf("re-encoded %q → %q: %v, %q %+v", b, again, err, from2, ch2)
		}
	})
}

package redact

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"https://mcp.example.com/mcp?token=s3cret", "https://mcp.example.com/mcp?token=REDACTED"},
		{"https://mcp.example.com/mcp?a=1&key=s3cret&flag", "https://mcp.example.com/mcp?a=REDACTED&key=REDACTED&REDACTED"},
		{"https://mcp.example.com/mcp?sk-s3cret", "https://mcp.example.com/mcp?REDACTED"}, // a bare token, no name
		{"https:alice:s3cret@mcp.example.com/mcp", "https:REDACTED"},                      // no "//": all of it is opaque
		{"https://alice:s3cret@mcp.example.com/mcp", "https://REDACTED@mcp.example.com/mcp"},
		{"https://s3cret@mcp.example.com/mcp", "https://REDACTED@mcp.example.com/mcp"},
		{"https://mcp.example.com/mcp#s3cret", "https://mcp.example.com/mcp"},
		{"http://[::1]:8000/mcp?k=s3cret", "http://[::1]:8000/mcp?k=REDACTED"},
		{"http://a b/?k=s3cret", "(a URL that does not parse)"},
	} {
		got := URL(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.NotContains(t, got, "s3cret")
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	cause := context.DeadlineExceeded
	err := Error(&url.Error{Op: "Post", URL: "https://u:s3cret@mcp.example.com/mcp?token=s3cret", Err: cause})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "https://REDACTED@mcp.example.com/mcp?token=REDACTED")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the cause is kept")

	other := errors.New("no URL here")
	assert.Same(t, other, Error(other))
	assert.NoError(t, Error(nil))
}

// FuzzURL: what URL returns parses, has no user information, opaque part
// or query value (or bare query part) but the mask.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"https://a:b@h/p?x=1&y=2#f", "http://h/?a=%zz", "h?x=1", "//u@h?=v", "https://h/?a=1&&b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := URL(in)
		if _, err := url.Parse(in); err != nil {
			require.Equal(t, "(a URL that does not parse)", out)
			return
		}
		u, err := url.Parse(out)
		require.NoError(t, err, "%q → %q", in, out)
		if u.User != nil {
			require.Equal(t, Mask, u.User.String(), "%q → %q", in, out)
		}
		if u.Opaque != "" {
			require.Equal(t, Mask, u.Opaque, "%q → %q", in, out)
		}
		for p := range strings.SplitSeq(u.RawQuery, "&") {
			if _, v, ok := strings.Cut(p, "="); ok {
				require.Equal(t, Mask, v, "%q → %q", in, out)
			} else if p != "" {
				require.Equal(t, Mask, p, "%q → %q", in, out)
			}
		}
	})
}

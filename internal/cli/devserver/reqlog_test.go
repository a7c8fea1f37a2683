package devserver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestLogEscapes: dev's request log prints a tool name a client
// sent and an error message the server answered; an escape sequence or a
// newline in them is shown escaped, on the request's one line.
func TestRequestLogEscapes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := &logger{w: &b, now: time.Now}
	req, ok := parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\u001b]52;c;ZXZpbA==\u0007\n12:00:00.000 dev  forged"}}`))
	require.True(t, ok)
	resp, ok := parse([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no\u001b[2K\u202e\u009b"}}`))
	require.True(t, ok)
	l.request(req.Method, req.name(), resp.status(), time.Millisecond)
	out := b.String()
	require.Equal(t, 1, strings.Count(out, "\n"), "one line: %q", out)
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
		assert.NotContains(t, out, bad)
	}
	assert.Contains(t, out, `t\x1b]52;c;ZXZpbA==\x07\x0a12:00:00.000 dev  forged`)
	assert.Contains(t, out, `error -32000 no\x1b[2K\u202e\x9b`)
}

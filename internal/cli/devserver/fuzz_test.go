package devserver

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzSSETap: any stream from the server, in reads of any size, passes
// through the logging tap unchanged, and the tap never panics.
func FuzzSSETap(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), uint8(3))
	f.Add([]byte("data: {\"id\":1,\ndata: \"error\":{\"code\":-1}}\r\n\r\n"), uint8(1))
	f.Add([]byte("data: [1,2]\n\ndata: null\n\n"), uint8(7))
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		var log bytes.Buffer
		tap := &sseTap{
			rc:   io.NopCloser(&chunked{b: stream, n: int(chunk%16) + 1}),
			log:  &logger{w: &log, now: time.Now},
			reqs: map[string]*pending{"1": {method: "tools/call", start: time.Now()}},
		}
		got, err := io.ReadAll(tap)
		require.NoError(t, err)
		require.Equal(t, stream, got)
		for _, e := range messages(stream) {
			_ = e.status()
		}
	})
}

type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.n, len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

package client_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
)

// TestErrorsHideURLSecrets: a transport's errors name the server's URL
// without the token of its query string or user information: the error
// reaches logs, and through a gateway its callers.
func TestErrorsHideURLSecrets(t *testing.T) {
	t.Parallel()
	closed := closedAddr(t)
	for _, tc := range []struct {
		name string
		tr   client.Transport
	}{
		{"http, unreachable", client.HTTP("http://alice:s3cret@"+closed+"/mcp?token=s3cret", nil)},
		{"http, a URL that does not parse", client.HTTP("http://"+closed+"/mcp?token=s3cret&x=%zz\x7f", nil)},
		{"legacy SSE, unreachable", client.LegacySSE("http://alice:s3cret@"+closed+"/sse?token=s3cret", nil)},
		{"legacy SSE, a URL that does not parse", client.LegacySSE("http://"+closed+"/sse?token=s3cret\x7f", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := client.Connect(ctx, tc.tr, nil)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

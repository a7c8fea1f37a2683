package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestRev20260728CancelKeepsConnection: the official go-sdk client (v1.8.0) at
// its default revision, 2026-07-28, cancels a call by its context's
// deadline. It then POSTs notifications/cancelled with no params._meta,
// and a client that gets an error status for that POST closes itself for
// good ("client is closing: sending notifications/cancelled: Bad
// Request"). The server must take the notification (202), cancel nothing
// it should not, and the same client must go on calling tools.
func TestRev20260728CancelKeepsConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stateful", nil},
		{"stateless", []string{"-stateless"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			endpoint := httpServer(t, tc.args...)
			rec := &wireRecorder{}
			base := http.DefaultTransport.(*http.Transport).Clone()
			t.Cleanup(base.CloseIdleConnections)
			hc := &http.Client{Transport: &recordingRoundTripper{base: base, rec: rec}}
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-e2e-cancel", Version: "0.0.1"}, nil)
			session, err := client.Connect(testContext(t, 10*time.Second),
				&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })
			require.Equal(t, rev20260728, session.InitializeResult().ProtocolVersion)

			for round := range 3 {
				ctx, cancel := context.WithTimeout(testContext(t, 10*time.Second), 150*time.Millisecond)
				_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 5000}})
				cancel()
				require.Error(t, err, "round %d: the slow call must end with its context", round)

				// The connection survived: the next call works.
				res, err := session.CallTool(testContext(t, 10*time.Second), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": round}})
				require.NoError(t, err, "round %d: a call after the cancellation", round)
				require.False(t, res.IsError, "%s", dump(res))

				// The notification went out and was taken.
				require.Eventually(t, func() bool {
					for _, x := range rec.exchanges() {
						if x.Method == http.MethodPost && x.Status == http.StatusAccepted && strings.Contains(x.Request, "notifications/cancelled") {
							return true
						}
					}
					return false
				}, 3*time.Second, 10*time.Millisecond, "round %d: notifications/cancelled not answered 202; exchanges: %s", round, dump(rec.exchanges()))
			}
			for _, x := range rec.exchanges() {
				require.Less(t, x.Status, 400, "no POST of the client may be refused: %s", dump(x))
			}
		})
	}
}

// TestTooLargeCallKeepsConnection: a go-sdk client whose call is over
// the server's size limit (4 MiB, over HTTP and stdio alike) gets an
// error. An error with a null id makes the client end its connection
// (over HTTP: "client is closing: sending tools/call: Request Entity Too
// Large"; over stdio its reader fails on the response); with the call's
// id, read from the start of the body or line, it fails that call alone,
// and the next call works. Every revision the client speaks.
func TestTooLargeCallKeepsConnection(t *testing.T) {
	t.Parallel()
	endpoint := httpServer(t)
	for _, tc := range []struct{ transport, rev string }{
		{"http", rev20260728}, {"http", "2025-11-25"}, {"http", "2025-06-18"}, {"http", "2025-03-26"},
		{"stdio", "2025-11-25"},
	} {
		t.Run(tc.transport+"/"+tc.rev, func(t *testing.T) {
			t.Parallel()
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-e2e-large", Version: "0.0.1"}, nil)
			var opts *mcp.ClientSessionOptions
			if tc.rev != rev20260728 {
				opts = &mcp.ClientSessionOptions{ProtocolVersion: tc.rev}
			}
			var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
			if tc.transport == "stdio" {
				transport = stdioServer(t)
			}
			session, err := client.Connect(testContext(t, 10*time.Second), transport, opts)
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })
			require.Equal(t, tc.rev, session.InitializeResult().ProtocolVersion)

			_, err = session.CallTool(testContext(t, 20*time.Second), &mcp.CallToolParams{Name: "echo",
				Arguments: map[string]any{"text": strings.Repeat("a", 5<<20)}})
			require.Error(t, err, "a 5 MiB call exceeds the 4 MiB limit")
			tooLarge := err.Error()

			res, err := session.CallTool(testContext(t, 10*time.Second), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
			require.NoError(t, err, "the call after the refused one (which failed with %q)", tooLarge)
			require.False(t, res.IsError, "%s", dump(res))
			// The server's message reached the caller.
			require.Contains(t, tooLarge, "exceeds")
			require.Contains(t, tooLarge, "4194304 bytes")
		})
	}
}

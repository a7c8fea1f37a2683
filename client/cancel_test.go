package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// TestCancelBeforeResponseHeaders: a call whose context ends while the
// server has sent no response headers (the go-sdk's Streamable HTTP and
// the TypeScript SDK v2 send them with the result) is cancelled on the
// server, though the POST fails with the context: at 2025-11-25 with
// notifications/cancelled, at 2026-07-28 by closing the call's POST.
func TestCancelBeforeResponseHeaders(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			cancelled := make(chan string, 2) // how the server learnt it
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				b, _ := io.ReadAll(r.Body)
				require.NoError(t, json.Unmarshal(b, &m))
				w.Header().Set("Content-Type", "application/json")
				switch m.Method {
				case "initialize":
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}`))
				case "server/discover":
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}`))
				case "tools/call":
					select { // no headers until a result that never comes
					case <-r.Context().Done():
						cancelled <- "POST closed"
					case <-time.After(10 * time.Second):
					}
				case "notifications/cancelled":
					cancelled <- m.Method
					w.WriteHeader(http.StatusAccepted)
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := client.Connect(ctx, client.HTTP(srv.URL, &client.HTTPOptions{NoListen: true}),
				&client.Options{ProtocolVersion: version})
			require.NoError(t, err)
			defer c.Close()
			require.Equal(t, version, c.ProtocolVersion())

			cctx, ccancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer ccancel()
			_, err = c.CallTool(cctx, "slow", nil, nil)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			want := "notifications/cancelled"
			if version == mcp.Version20260728 {
				want = "POST closed"
			}
			select {
			case how := <-cancelled:
				assert.Equal(t, want, how)
			case <-ctx.Done():
				t.Fatal("the server never learnt of the cancellation")
			}
		})
	}
}

package client

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestRev20260728FallsBackToLegacyServer: a client at 2026-07-28 probing a
// server of the 2025 era with server/discover falls back to initialize on
// any answer that is not an error of revision 2026-07-28 (what the
// TypeScript SDK v1 and fastmcp send: -32601, or a 400 for a request
// without a session), and stops on one that is.
func TestRev20260728FallsBackToLegacyServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		body     string // %ID% is the request's id
		fallback bool
	}{
		{"method not found", 200, `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32601,"message":"Method not found"}}`, true},
		{"400 server not initialized", 400, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`, true},
		{"400 own error", 400, `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32000,"message":"Unsupported protocol version"}}`, true},
		{"400 plain text", 400, `Bad Request`, true},
		{"404", 404, ``, true},
		{"2026-07-28 header mismatch", 400, `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32020,"message":"Mcp-Method mismatch"}}`, false},
		{"2026-07-28 missing capability", 200, `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32021,"message":"needs sampling"}}`, false},
		{"401", 401, ``, false},
		{"500", 500, `oops`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				b, _ := io.ReadAll(r.Body)
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.Unmarshal(b, &m)
				switch m.Method {
				case "server/discover":
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte(strings.ReplaceAll(tt.body, "%ID%", string(m.ID))))
				case "initialize":
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("Mcp-Session-Id", "s1")
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"legacy","version":"1"},"capabilities":{"tools":{}}}}`))
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			}))
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Connect(ctx, HTTP(ts.URL, &HTTPOptions{NoListen: true}),
				&Options{ProtocolVersion: mcp.Version20260728, Logger: slog.New(slog.DiscardHandler)})
			if !tt.fallback {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			defer c.Close()
			assert.Equal(t, mcp.Version20251125, c.ProtocolVersion())
			assert.Equal(t, "legacy", c.Initialize().ServerInfo.Name)
		})
	}
}

// FuzzLegacyServer: whatever a server answers server/discover with (an
// HTTP status and body, or a JSON-RPC error code), telling its era never
// panics, and a 2026-07-28 error code never reads as the 2025 era.
func FuzzLegacyServer(f *testing.F) {
	f.Add(400, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request"},"id":null}`, int64(-32601))
	f.Add(400, `{"error":{"code":-32020}}`, int64(-32022))
	f.Add(404, ``, int64(-32042))
	f.Add(400, `{"error":null}`, int64(0))
	f.Add(401, `[1,2]`, int64(-32700))
	f.Fuzz(func(t *testing.T, status int, body string, code int64) {
		_ = legacyServer(&HTTPError{Status: status, Body: body})
		if legacyServer(&mcp.Error{Code: code}) == rev20260728Code(code) {
			t.Fatalf("code %d: legacy and 2026-07-28 at once, or neither", code)
		}
	})
}

package middleware_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// logBuffer collects JSON log lines; safe for concurrent use (servers log
// from their own goroutines).
type logBuffer struct{ wiretest.SyncBuffer }

// newLogger returns a JSON logger at debug level writing to a fresh buffer.
func newLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

// lines decodes every log line written so far.
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range strings.Lines(b.String()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "log line %q", l)
		out = append(out, m)
	}
	return out
}

// rpcError decodes a JSON-RPC error body.
func rpcError(t *testing.T, body []byte) (code int, message string) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &m), "body %q", body)
	require.Equal(t, "2.0", m.JSONRPC)
	require.JSONEq(t, "null", string(m.ID))
	return m.Error.Code, m.Error.Message
}

// slogAtLevel returns a JSON logger writing to b that drops records below level.
func slogAtLevel(b *logBuffer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level}))
}

package client

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// TestRequestOf: the in-process transport tells the client's requests
// (each run on a goroutine of its own) from initialize, notifications and
// the client's answers (run before Send returns), by the encoder's output.
func TestRequestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		msg                 []byte
		request, initialize bool
	}{
		{"request", jsonrpc.AppendRequest(nil, 7, "tools/call", []byte(`{"name":"x"}`)), true, false},
		{"initialize", jsonrpc.AppendRequest(nil, 1, "initialize", []byte(`{}`)), true, true},
		{"a method that starts like initialize", jsonrpc.AppendRequest(nil, 2, "initializeX", nil), true, false},
		{"notification", jsonrpc.AppendNotification(nil, "notifications/initialized", nil), false, false},
		{"answer", jsonrpc.AppendResult(nil, []byte(`"s-1"`), []byte(`{"roots":[]}`)), false, false},
		{"answer to a numeric id", jsonrpc.AppendResult(nil, []byte(`3`), []byte(`{"method":"x"}`)), false, false},
		{"error answer", jsonrpc.AppendError(nil, []byte(`4`), -32601, "no", nil), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			request, initialize := requestOf(tc.msg)
			assert.Equal(t, tc.request, request, "%s", tc.msg)
			assert.Equal(t, tc.initialize, initialize, "%s", tc.msg)
		})
	}
}

// TestIDOf: the ids the client sends, as numbers or echoed as strings;
// anything else names no request of the client.
func TestIDOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{`7`: 7, `"7"`: 7, `123456789012345678`: 123456789012345678} {
		got, ok := idOf([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{``, `""`, `"`, `-1`, `1.0`, `"a"`, `null`, `1234567890123456789`, `{"id":1}`} {
		_, ok := idOf([]byte(in))
		assert.False(t, ok, in)
	}
}

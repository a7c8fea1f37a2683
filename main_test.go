package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quietLogger discards the server's own diagnostics (tool panics are
// logged with their stack).
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newServer(t testing.TB) *mcp.Server {
	t.Helper()
	return mcp.NewServer(mcp.Options{Name: "test", Version: "1.0.0", Logger: quietLogger()})
}

// newCtx is the MCP Context of a caller with the given auth data.
func newCtx(auth any) *mcp.Context {
	return mcp.NewContext(context.Background(), mcp.RequestInfo{Session: auth})
}

// panicMessage runs f and returns what it panicked with, as text ("" when
// it did not panic).
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// callTool calls name with args (a JSON text) as an anonymous caller and
// requires that the call is answered with a result, not a JSON-RPC error.
func callTool(t *testing.T, s *mcp.Server, name, args string) *mcp.ContentResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), newCtx(nil), name, json.RawMessage(args))
	require.NoError(t, err)
	require.NotNil(t, res)
	return res
}

// toJSONMap round-trips v through JSON into a generic map.
func toJSONMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// toolSchema parses a JSON Schema for Tool.InputSchema.
func toolSchema(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	var sch jsonschema.Schema
	require.NoError(t, json.Unmarshal([]byte(s), &sch))
	return &sch
}

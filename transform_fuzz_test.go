package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
)

// FuzzTransformCall: any arguments a client sends to a derived tool are
// answered with a result or a JSON-RPC error, never a panic (which the
// server would turn into "internal error"), and a successful call always
// reached the source with the hidden value, under the source's names.
func FuzzTransformCall(f *testing.F) {
	for _, seed := range []string{
		`{"q":"go"}`, `{"q":"go","limit":3}`, `{"query":"x"}`, `{"q":"x","user":"eve"}`, `{}`, `null`,
		`[]`, `{"q":1}`, `{"Q":"x"}`, `{"q":"x","limit":1e400}`, `{"q":"\u0000","limit":-0}`, `{"q":"x","q":"y"}`,
	} {
		f.Add(seed)
	}
	s := mcp.NewServer(mcp.Options{Name: "fuzz", Version: "1.0.0", Logger: quietLogger()})
	mcp.AddTool(s, mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.Context, in findArgs) (string, error) {
		if in.User != "ada" {
			return "", mcp.UserErrorf("hidden value lost: %q", in.User)
		}
		return "ok", nil
	})
	s.AddTransformedTool("search", mcp.Transform{Name: "find", Args: map[string]mcp.ArgTransform{
		"query": {Name: "q"}, "limit": {Default: 5}, "user": {Hide: true, Value: "ada"}, "debug": {Hide: true},
	}})
	f.Fuzz(func(t *testing.T, args string) {
		res, err := s.CallTool(context.Background(), newCtx(nil), "find", json.RawMessage(args))
		if err != nil {
			return // a JSON-RPC error (a case variant, …)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if strings.Contains(text, "internal error") || strings.Contains(text, "hidden value lost") {
			t.Fatalf("args %s: %s", args, text)
		}
		if !res.IsError && text != "ok" {
			t.Fatalf("args %s: %s", args, text)
		}
	})
}

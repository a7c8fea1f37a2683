package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/state"
)

// stateTransformServer has a tool that keeps a list in the session state
// and a transform of it whose "item" is renamed "name" and whose "tag" is
// hidden with a fixed value.
func stateTransformServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "state-transform", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "remember"}, func(ctx context.Context, c *mcp.Context, in struct {
		Item string `json:"item"`
		Tag  string `json:"tag,omitempty"`
	}) (string, error) {
		items, _, err := state.Get[[]string](ctx, state.Session(c), "items")
		if errors.Is(err, mcp.ErrNoSession) {
			return "no session", nil
		} else if err != nil {
			return "", err
		}
		items = append(items, in.Tag+in.Item)
		if err := state.Set(ctx, state.Session(c), "items", items); err != nil {
			return "", err
		}
		return strings.Join(items, ","), nil
	})
	srv.AddTransformedTool("remember", mcp.Transform{Name: "remember_fruit", Description: "Remember a fruit",
		Args: map[string]mcp.ArgTransform{"item": {Name: "name"}, "tag": {Hide: true, Value: "fruit:"}}})
	return srv
}

// TestStateAndTransformWithGoSDK: the official Go SDK client lists the
// derived tool with its schema, and its calls of one session share the
// state (2025-11-25); at 2026-07-28 (the SDK's default, no session) the
// transform works and the state reports no session.
func TestStateAndTransformWithGoSDK(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(stateTransformServer(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			ctx := testContext(t, 10*time.Second)
			client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
			var opts *sdk.ClientSessionOptions
			if version != "" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
			}
			s, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, opts)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })

			list, err := s.ListTools(ctx, nil)
			require.NoError(t, err)
			var derived *sdk.Tool
			for _, tl := range list.Tools {
				if tl.Name == "remember_fruit" {
					derived = tl
				}
			}
			require.NotNil(t, derived)
			b, err := json.Marshal(derived.InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["name"],"properties":{"name":{"type":"string"}}}`, string(b))

			call := func(name string, args map[string]any) *sdk.CallToolResult {
				res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
				require.NoError(t, err)
				return res
			}
			text := func(r *sdk.CallToolResult) string { return r.Content[0].(*sdk.TextContent).Text }
			first := text(call("remember_fruit", map[string]any{"name": "apple"}))
			second := text(call("remember", map[string]any{"item": "pen"}))
			if version == "" {
				assert.Equal(t, "no session", first)
				assert.Equal(t, "no session", second)
			} else {
				assert.Equal(t, "fruit:apple", first)
				assert.Equal(t, "fruit:apple,pen", second, "one session, one state")
			}
			r := call("remember_fruit", map[string]any{"name": "fig", "tag": "x:"})
			assert.True(t, r.IsError)
			assert.Contains(t, text(r), `argument "tag" is not accepted`)
		})
	}
}

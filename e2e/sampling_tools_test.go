package e2e

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// samplingToolsServer's tool "plan" runs a tool loop (sampling.RunLoop)
// that offers the model its tool "weather".
func samplingToolsServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "sampling-tools", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "weather", Description: "Current weather of a city"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city" jsonschema:"the city"`
		}) (string, error) {
			return "18°C in " + in.City, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		out, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 100,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("Weather in Paris?")}}},
			sampling.Loop{Tools: srv, Names: []string{"weather"}})
		if err != nil {
			return "", err
		}
		return out.Result.Content.(mcp.TextContent).Text, nil
	})
	return srv
}

// TestTypeScriptSamplingTools: the official TypeScript SDK client (1.32.2),
// declaring sampling.tools, answers the server's tool loop: the SDK
// validates each sampling/createMessage with tools against its schema, its
// model asks for "weather" (tool_use), and its second request carries the
// tool_result the server made. Without sampling.tools the server asks
// nothing and the tool fails with a message naming the capability.
func TestTypeScriptSamplingTools(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(samplingToolsServer(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	type output struct {
		Requests []struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"requests"`
		ProtocolVersion mcp.Version        `json:"protocolVersion"`
		Result          *mcp.ContentResult `json:"result"`
		Error           string             `json:"error"`
	}
	run := func(t *testing.T, mode string, sdk ...string) output {
		r := runNode(t, 60*time.Second, append([]string{"sampling-tools.mjs", ts.URL, "plan", mode}, sdk...)...)
		require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
		var out output
		require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
		require.Empty(t, out.Error)
		require.NotNil(t, out.Result)
		return out
	}

	check := func(t *testing.T, out output) {
		require.False(t, out.Result.IsError, out.Result.Text())
		assert.Equal(t, "model saw ts-call-1=18°C in Paris", out.Result.Text())
		require.Len(t, out.Requests, 2)
		for _, r := range out.Requests {
			require.Len(t, r.Tools, 1)
			assert.Equal(t, "weather", r.Tools[0].Name)
			assert.Equal(t, "Current weather of a city", r.Tools[0].Description)
			assert.Equal(t, "object", r.Tools[0].InputSchema["type"])
		}
		second := out.Requests[1].Messages
		require.Len(t, second, 3)
		assert.Equal(t, "assistant", second[1].Role)
		assert.JSONEq(t, `[{"type":"tool_use","id":"ts-call-1","name":"weather","input":{"city":"Paris"}}]`, string(second[1].Content))
		assert.Equal(t, "user", second[2].Role)
		assert.JSONEq(t, `[{"type":"tool_result","toolUseId":"ts-call-1","content":[{"type":"text","text":"18°C in Paris"}]}]`, string(second[2].Content))
	}
	t.Run("sampling.tools", func(t *testing.T) {
		t.Parallel()
		out := run(t, "tools")
		assert.Equal(t, mcp.Version20251125, out.ProtocolVersion)
		check(t, out)
	})
	// The v2 client at 2026-07-28: each sampling request is an
	// input-required round, answered by the same handler.
	t.Run("v2 2026-07-28 sampling.tools", func(t *testing.T) {
		t.Parallel()
		out := run(t, "tools", "v2")
		assert.Equal(t, mcp.Version20260728, out.ProtocolVersion)
		check(t, out)
	})
	t.Run("sampling without tools", func(t *testing.T) {
		t.Parallel()
		out := run(t, "plain")
		assert.True(t, out.Result.IsError)
		assert.Contains(t, out.Result.Text(), "sampling.tools")
		assert.Empty(t, out.Requests)
	})
}

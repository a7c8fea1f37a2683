package client_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// newModesServer has a tool that asks the user to open a URL and one
// that lets the client's model call a tool.
func newModesServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "modes", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e-1", URL: "https://example.com/login", Message: "Sign in"})
		if err != nil {
			return "", err
		}
		return "connect: " + res.Action, nil
	})
	tools := mcp.NewServer(mcp.Options{Name: "loop", Version: "1.0.0"})
	mcp.AddTool(tools, mcp.Tool{Name: "forecast"}, func(_ context.Context, _ *mcp.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny in " + in.City, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 50,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "plan"}}}},
			sampling.Loop{Tools: tools})
		if err != nil {
			return "", err
		}
		return res.Result.ContentBlocks()[0].(mcp.TextContent).Text, nil
	})
	return srv
}

// TestClientURLElicitationAndSamplingTools: Options.ElicitURL declares
// elicitation.url and answers URL-mode requests; Options.SamplingTools
// declares sampling.tools, and Sample then gets the tools and may answer
// with tool_use; without them the server does not ask, at both
// revisions.
func TestClientURLElicitationAndSamplingTools(t *testing.T) {
	t.Parallel()
	for _, version := range versions {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(newModesServer(), nil)
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			var opened atomic.Value
			var rounds atomic.Int32
			c := connect(t, client.HTTP(ts.URL+"/mcp", nil), &client.Options{ProtocolVersion: version,
				ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
					opened.Store(p.URL)
					return &elicit.Result{Action: "accept"}, nil
				},
				SamplingTools: true,
				Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
					if rounds.Add(1) == 1 {
						require.Len(t, p.Tools, 1)
						assert.Equal(t, "forecast", p.Tools[0].Name)
						return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", StopReason: "toolUse",
							Blocks: []mcp.Content{sampling.ToolUse{ID: "u1", Name: "forecast", Input: []byte(`{"city":"Oslo"}`)}}}, nil
					}
					return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", Content: mcp.TextContent{Text: "a walk in Oslo"}}, nil
				},
			})
			ctx := context.Background()
			res, err := c.CallTool(ctx, "connect", nil, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.Equal(t, "connect: accept", res.Text())
			assert.Equal(t, "https://example.com/login", opened.Load())
			res, err = c.CallTool(ctx, "plan", nil, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.Equal(t, "a walk in Oslo", res.Text())
			assert.Equal(t, int32(2), rounds.Load())

			// Form mode and plain sampling only: the server asks neither.
			plain := connect(t, client.HTTP(ts.URL+"/mcp", nil), &client.Options{ProtocolVersion: version,
				Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
					t.Error("a URL elicitation reached the form handler")
					return &elicit.Result{Action: "decline"}, nil
				},
				Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
					t.Error("sampling with tools reached a client without sampling.tools")
					return nil, nil
				},
			})
			for _, name := range []string{"connect", "plan"} {
				res, err := plain.CallTool(ctx, name, nil, nil)
				require.NoError(t, err)
				assert.True(t, res.IsError, "%s: %s", name, res.Text())
			}
		})
	}
}

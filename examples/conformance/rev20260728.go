package main

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

// addRev20260728Tools adds the diagnostic tools of the 2026-07-28 scenarios
// (server-stateless, http-custom-header-server-validation). They come after
// the 2025 tools: the header scenario calls the first listed tool with no
// arguments, which must be test_simple_text.
func addRev20260728Tools(srv *mcp.Server) {
	// SEP-2243: the region argument is mirrored into Mcp-Param-Region.
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"region": {Type: "string", Description: "Region, mirrored into the Mcp-Param-Region header", Extra: map[string]any{"x-mcp-header": "Region"}},
		"level":  {Type: "integer", Description: "An unannotated argument"},
	}}
	srv.AddRawTool(mcp.Tool{Name: "test_x_mcp_header", Description: "Tests x-mcp-header: the region argument travels in the Mcp-Param-Region header too", InputSchema: schema},
		func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			_ = json.Unmarshal(args, &in)
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("region=" + in.Region)}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_missing_capability", Description: "Needs the sampling client capability: without it, error -32021"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			if c.ClientCapabilities.Sampling == nil {
				return "", &mcp.Error{Code: mcp.CodeMissingClientCapability, Message: "sampling capability required",
					Data: map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
			}
			return "The client declared sampling.", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_streaming_elicitation", Description: "Answers with a plain result; never sends the client a request on the response stream"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "Streaming elicitation test completed without a server-to-client request.", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_logging_tool", Description: "Logs at info (sent only when the request carries a log level)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			c.Log.Info("test_logging_tool ran")
			return "Logging tool completed.", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_trigger_tool_change", Description: "Registers a transient tool, so the tool list changes"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			srv.Registry().Remove(access.KindTool, "__transient_tool_for_list_changed")
			// Try: a concurrent trigger may have added it again already.
			_ = mcp.TryAddTool(srv.Registry(), mcp.Tool{Name: "__transient_tool_for_list_changed", Description: "Transient tool"},
				func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "transient", nil })
			return "The tool list changed.", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_trigger_prompt_change", Description: "Registers a transient prompt, so the prompt list changes"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			srv.Registry().Remove(access.KindPrompt, "__transient_prompt_for_list_changed")
			_ = srv.Registry().AddPrompt(mcp.Prompt{Name: "__transient_prompt_for_list_changed", Description: "Transient prompt",
				Load: func(ctx context.Context, c *mcp.Context, _ map[string]string) (*mcp.PromptResult, error) {
					return mcp.UserText("transient"), nil
				}})
			return "The prompt list changed.", nil
		})
}

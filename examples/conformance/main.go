// Command conformance is the fixture server of the official MCP conformance
// suite (npm @modelcontextprotocol/conformance): every tool, resource,
// resource template and prompt the suite's server scenarios call, with the
// names and behaviour they expect. It serves stateful Streamable HTTP at
// /mcp, with resumable streams (mcphttp.Options.Resumable: SSE event IDs,
// priming events, resumption with Last-Event-ID), which the SSE scenarios
// exercise:
//
//	conformance -host 127.0.0.1 -port 3001
//	npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp --suite all
//
// -stateless serves without sessions for 2025 clients too
// (mcphttp.Options.Stateless), the mode revision 2026-07-28's requirements
// are run in (conformance 0.2.0-alpha.12 --requirements 2026-07-28). It
// also serves the skills of skills/ (SEP-2640).
//
// -port 0 picks a free port; the "MCP server listening" line on stderr
// has the URL.
//
// e2e/conformance.sh builds it, runs the suite against it and checks the
// summary. Bind it to a loopback address: the dns-rebinding-protection
// scenario expects the Host check a loopback server makes.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// The reference payloads of the suite: a 1x1 PNG and a minimal WAV file.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

var (
	pngBytes = mustDecode(pngBase64)
	wavBytes = mustDecode(wavBase64)
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// jsonSchema2020 is the input schema of json_schema_2020_12_tool; the
// json-schema-2020-12 scenario checks it comes back from tools/list intact.
const jsonSchema2020 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "address",
			"type": "object",
			"properties": {
				"street": {"type": "string"},
				"city": {"type": "string"}
			}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"}
	},
	"allOf": [{"anyOf": [{"required": ["name"]}, {"type": "object"}]}],
	"if": {"required": ["name"]},
	"then": {"properties": {"name": {"minLength": 1}}},
	"else": {"properties": {"address": {"type": "object"}}},
	"additionalProperties": false
}`

type samplingArgs struct {
	Prompt string `json:"prompt" jsonschema:"the prompt to send to the client's model"`
}

type elicitationArgs struct {
	Message string `json:"message" jsonschema:"the message to show the user"`
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// newServer builds the fixture server.
func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{
		Name:         "mcpchain-conformance",
		Version:      "1.0.0",
		Instructions: "The fixture server of the MCP conformance suite.",
	})
	addTools(srv)
	addRev20260728Tools(srv)
	addInputRequiredFixtures(srv)
	addTaskTools(srv)
	addResources(srv)
	addPrompts(srv)
	addSkills(srv)
	return srv
}

func addTools(srv *mcp.Server) {
	mcp.AddTool(srv, mcp.Tool{Name: "test_simple_text", Description: "Tests simple text content response"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "This is a simple text response for testing.", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_image_content", Description: "Tests image content response"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (mcp.Content, error) {
			return mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_audio_content", Description: "Tests audio content response"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (mcp.Content, error) {
			return mcp.AudioContent{Data: wavBytes, MIMEType: "audio/wav"}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_embedded_resource", Description: "Tests embedded resource content response"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (mcp.Content, error) {
			return mcp.EmbeddedResource{Resource: mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain",
				Text: "This is an embedded resource content.",
			}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_multiple_content_types", Description: "Tests response with multiple content types (text, image, resource)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) ([]mcp.Content, error) {
			return []mcp.Content{
				mcp.Text("Multiple content types test:"),
				mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"},
				mcp.EmbeddedResource{Resource: mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json",
					Text: `{"test":"data","value":123}`,
				}},
			}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_tool_with_logging", Description: "Tests tool that emits log messages during execution"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			c.Log.Info("Tool execution started")
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
			c.Log.Info("Tool processing data")
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
			c.Log.Info("Tool execution completed")
			return "Tool with logging executed successfully", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_tool_with_progress", Description: "Tests tool that reports progress notifications"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return "", err
					}
				}
				err := c.ReportProgress(ctx, mcp.Progress{Progress: p, Total: 100, Message: fmt.Sprintf("Completed step %d of 3", i+1)})
				if err == mcp.ErrNoProgressToken {
					break
				}
			}
			return "Progress tool completed", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_error_handling", Description: "Tests error response handling"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "", &mcp.UserError{Message: "This tool intentionally returns an error for testing"}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"},
		func(ctx context.Context, c *mcp.Context, in samplingArgs) (string, error) {
			res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 100,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text(in.Prompt)}}})
			if err != nil {
				return "", err
			}
			text := "No text content in the response"
			if t, ok := res.Content.(mcp.TextContent); ok {
				text = t.Text
			}
			return "LLM response: " + text, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"},
		func(ctx context.Context, c *mcp.Context, in elicitationArgs) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: in.Message, RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"username": map[string]any{"type": "string", "description": "User's response"},
					"email":    map[string]any{"type": "string", "description": "User's email address"},
				},
				"required": []string{"username", "email"},
			}})

			if err != nil {
				return "", err
			}
			return elicitText("User response", res), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Tests elicitation with default values for every primitive type (SEP-1034)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Please review and update the form fields with defaults", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
					"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
					"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
					"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
					"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
				},
				"required": []string{},
			}})

			if err != nil {
				return "", err
			}
			return elicitText("Elicitation completed", res), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Tests elicitation with the enum schema variants of SEP-1330"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			option := func(value, title string) map[string]any { return map[string]any{"const": value, "title": title} }
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Please select options from the enum fields", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"untitledSingle": map[string]any{"type": "string", "description": "Select one option",
						"enum": []string{"option1", "option2", "option3"}},
					"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles",
						"oneOf": []any{option("value1", "First Option"), option("value2", "Second Option"), option("value3", "Third Option")}},
					"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)",
						"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
					"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options",
						"minItems": 1, "maxItems": 3,
						"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
					"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles",
						"minItems": 1, "maxItems": 3,
						"items": map[string]any{"anyOf": []any{option("value1", "First Choice"), option("value2", "Second Choice"), option("value3", "Third Choice")}}},
				},
				"required": []string{},
			}})

			if err != nil {
				return "", err
			}
			return elicitText("Elicitation completed", res), nil
		})

	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(jsonSchema2020), &schema); err != nil {
		panic(err)
	}
	srv.AddRawTool(mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features", InputSchema: &schema},
		func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("JSON Schema 2020-12 tool called with: " + string(args))}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_reconnection", Description: "Tests SSE polling: closes the stream mid-call, the client resumes it with Last-Event-ID and gets the result (SEP-1699)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			// A client before 2025-11-25 cannot resume: then the result
			// simply follows on the open stream.
			closed := mcphttp.CloseSSEStream(ctx) == nil
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return "", err
			}
			if closed {
				return "Reconnection test completed successfully. The stream was closed mid-call and the client resumed it.", nil
			}
			return "Reconnection test completed successfully.", nil
		})
}

// elicitText describes the user's answer to an elicitation.
func elicitText(prefix string, res *elicit.Result) string {
	content, _ := json.Marshal(res.Content)
	return fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, content)
}

func addResources(srv *mcp.Server) {
	text := func(s string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: s}}, nil
		}
	}
	srv.AddResource(mcp.Resource{URI: "test://static-text", Name: "Static Text Resource",
		Description: "A static text resource for testing", MIMEType: "text/plain",
		Load: text("This is the content of the static text resource.")})
	srv.AddResource(mcp.Resource{URI: "test://static-binary", Name: "Static Binary Resource",
		Description: "A static binary resource (image) for testing", MIMEType: "image/png",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Blob: pngBytes}}, nil
		}})
	srv.AddResource(mcp.Resource{URI: "test://watched-resource", Name: "Watched Resource",
		Description: "A resource for testing subscriptions", MIMEType: "text/plain",
		Load: text("Watched resource content")})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
		Description: "A resource template with parameter substitution", MIMEType: "application/json",
		Arguments: []mcp.TemplateArgument{{Name: "id", Description: "the resource ID", Required: true}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			id := args["id"]
			b, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{{Text: string(b)}}, nil
		}})
}

func addPrompts(srv *mcp.Server) {
	srv.AddPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments",
		Load: func(ctx context.Context, c *mcp.Context, _ map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("This is a simple prompt for testing."), nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with required arguments",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])), nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that includes an embedded resource",
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.EmbeddedResource{Resource: mcp.ResourceContents{
					URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
				}}},
				{Role: mcp.RoleUser, Content: mcp.Text("Please process the embedded resource above.")},
			}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt that includes image content",
		Load: func(ctx context.Context, c *mcp.Context, _ map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}},
				{Role: mcp.RoleUser, Content: mcp.Text("Please analyze the image above.")},
			}}, nil
		}})
}

func main() {
	host := flag.String("host", "127.0.0.1", "host to listen on")
	port := flag.Int("port", 3001, "port to listen on (0: any free port, logged on stderr)")
	stateless := flag.Bool("stateless", false, "keep no session for 2025 clients either (mcphttp.Options.Stateless): what `--requirements 2026-07-28` runs against")
	flag.Parse()
	if *port == 0 {
		*port = -1 // Start's "any free port"
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	inst, err := mcphttp.Start(ctx, newServer(), &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: *host, Port: *port,
		// Resumable: the SSE polling scenarios (SEP-1699) resume streams.
		// AllowVersionMismatch: the suite's server-sse-* scenarios (0.1.16)
		// negotiate 2025-11-25 and then POST with a fixed
		// "MCP-Protocol-Version: 2025-03-26", which the engine refuses by
		// default (a header must match the negotiated version).
		// Stateless: no sessions at all; Resumable then has nothing to resume.
		Handler: &mcphttp.Options{Stateless: *stateless, Resumable: true, RetryInterval: 500 * time.Millisecond, AllowVersionMismatch: true},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	if err := inst.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/sampling"
)

// addInputRequiredFixtures adds the tools and the prompt of the
// input-required-result-* scenarios (multi round-trip requests of revision
// 2026-07-28). Each asks with Context.Ask under the key the scenario
// expects; on a 2025 session the same questions would be server-to-client
// requests. The handlers are plain functions of their answers: the
// engine ends a round whose questions are unanswered with an
// input-required result and runs the handler again with the answers.
func addInputRequiredFixtures(srv *mcp.Server) {
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_elicitation", Description: "Asks the user's name (key user_name), then greets them"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			name, err := askText(ctx, c, "user_name", "What is your name?", "name")
			if err != nil {
				return "", err
			}
			return "Hello, " + name + "!", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_sampling", Description: "Asks the client's model a question (key capital_question)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			out, err := c.Ask(ctx, map[string]mcp.InputRequest{"capital_question": sample("What is the capital of France?", 100)})
			if err != nil {
				return "", err
			}
			return "The model answered: " + sampledText(out["capital_question"]), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_list_roots", Description: "Asks the client's roots (key client_roots)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			out, err := c.Ask(ctx, map[string]mcp.InputRequest{"client_roots": {Method: "roots/list"}})
			if err != nil {
				return "", err
			}
			return "Roots: " + rootURIs(out["client_roots"]), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_request_state", Description: "Asks for a confirmation (key confirm); the answer comes back with the sealed requestState"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			ok, err := askConfirm(ctx, c)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("state-ok: the requestState was verified; confirmed=%v", ok), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_multiple_inputs", Description: "Asks three things at once: a name, a sampled greeting and the roots"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			out, err := c.Ask(ctx, map[string]mcp.InputRequest{
				"user_name":    elicitOne("What is your name?", "name"),
				"greeting":     sample("Generate a greeting", 50),
				"client_roots": {Method: "roots/list"},
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("name=%s greeting=%s roots=%s", elicitedText(out["user_name"], "name"),
				sampledText(out["greeting"]), rootURIs(out["client_roots"])), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_multi_round", Description: "Asks a name (step1), then a favourite colour (step2): two input-required rounds"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			name, err := askText(ctx, c, "step1", "What is your name?", "name")
			if err != nil {
				return "", err
			}
			color, err := askText(ctx, c, "step2", "Hello "+name+", what is your favourite colour?", "color")
			if err != nil {
				return "", err
			}
			return name + " likes " + color + ".", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_tampered_state", Description: "Asks for a confirmation (key confirm); an altered requestState is refused with -32602"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			ok, err := askConfirm(ctx, c)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("confirmed=%v", ok), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "test_input_required_result_capabilities", Description: "Asks only through the capabilities this request's client declared"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			reqs := map[string]mcp.InputRequest{}
			caps := c.ClientCapabilities
			if caps.Elicitation != nil {
				reqs["user_name"] = elicitOne("What is your name?", "name")
			}
			if caps.Sampling != nil {
				reqs["capital_question"] = sample("What is the capital of France?", 100)
			}
			if caps.Roots != nil {
				reqs["client_roots"] = mcp.InputRequest{Method: "roots/list"}
			}
			if len(reqs) == 0 {
				return "The client declared no capability to ask through.", nil
			}
			out, err := c.Ask(ctx, reqs)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Got %d answers.", len(out)), nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks for context (key user_context) before building its messages",
		Load: func(ctx context.Context, c *mcp.Context, _ map[string]string) (*mcp.PromptResult, error) {
			text, err := askText(ctx, c, "user_context", "What context should the prompt use?", "context")
			if err != nil {
				return nil, err
			}
			return mcp.UserText("Use this context: " + text), nil
		}})
}

// elicitOne is an elicitation of one required string property.
func elicitOne(message, prop string) mcp.InputRequest {
	return mcp.InputRequest{Method: "elicitation/create", Params: map[string]any{
		"message": message,
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{prop: map[string]any{"type": "string"}}, "required": []string{prop}},
	}}
}

// sample is a sampling request of one user message.
func sample(text string, maxTokens int) mcp.InputRequest {
	return mcp.InputRequest{Method: "sampling/createMessage", Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

// askText elicits one string property under key.
func askText(ctx context.Context, c *mcp.Context, key, message, prop string) (string, error) {
	out, err := c.Ask(ctx, map[string]mcp.InputRequest{key: elicitOne(message, prop)})
	if err != nil {
		return "", err
	}
	return elicitedText(out[key], prop), nil
}

// askConfirm elicits {ok: boolean} under the key confirm.
func askConfirm(ctx context.Context, c *mcp.Context) (bool, error) {
	out, err := c.Ask(ctx, map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create", Params: map[string]any{
		"message": "Please confirm",
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}},
	}}})
	if err != nil {
		return false, err
	}
	var r elicit.Result
	_ = json.Unmarshal(out["confirm"], &r)
	ok, _ := r.Content["ok"].(bool)
	return r.Action == "accept" && ok, nil
}

// elicitedText is the accepted string property of an elicitation result,
// or the action when the user did not accept.
func elicitedText(raw json.RawMessage, prop string) string {
	var r elicit.Result
	if json.Unmarshal(raw, &r) != nil {
		return "(unreadable)"
	}
	if r.Action != "accept" {
		return "(" + r.Action + ")"
	}
	return fmt.Sprint(r.Content[prop])
}

// sampledText is the text of a sampling result.
func sampledText(raw json.RawMessage) string {
	var r sampling.Result
	if json.Unmarshal(raw, &r) != nil {
		return "(unreadable)"
	}
	if t, ok := r.Content.(mcp.TextContent); ok {
		return t.Text
	}
	return "(non-text content)"
}

// rootURIs lists the URIs of a roots/list result.
func rootURIs(raw json.RawMessage) string {
	var r struct {
		Roots []mcp.Root `json:"roots"`
	}
	_ = json.Unmarshal(raw, &r)
	uris := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return strings.Join(uris, ", ")
}

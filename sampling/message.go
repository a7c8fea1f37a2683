package sampling

import (
	"encoding/json"
	"fmt"

	"github.com/mcpchain/mcp"
)

// Message is one message of a sampling request or result.
type Message struct {
	// Role is who says it: mcp.RoleUser or mcp.RoleAssistant.
	Role mcp.Role `json:"role"`
	// Content is what is said, one block: text, an image or audio (or,
	// in sampling with tools, one tool use or tool result).
	Content mcp.Content `json:"content"`
	// Blocks, when not empty, is the content as several blocks, sent as a
	// JSON array in place of Content: an assistant's [ToolUse] items, a
	// user's [ToolResult] items. See [Message.ContentBlocks].
	Blocks []mcp.Content `json:"-"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentBlocks returns the message's content as a list, whichever form
// it has: Blocks, or the one Content.
func (m Message) ContentBlocks() []mcp.Content { return contentBlocks(m.Content, m.Blocks) }

// MarshalJSON sends Blocks as the "content" array when set, else Content.
func (m Message) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role    mcp.Role       `json:"role"`
		Content any            `json:"content"`
		Meta    map[string]any `json:"_meta,omitempty"`
	}{m.Role, contentJSON(m.Content, m.Blocks), m.Meta})
}

// UnmarshalJSON decodes the content into its concrete types, leniently
// (see [Result]): one block into Content, an array into Blocks.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    mcp.Role        `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	one, list, err := decodeContent(w.Content)
	if err != nil {
		return err
	}
	*m = Message{Role: w.Role, Content: one, Blocks: list, Meta: w.Meta}
	return nil
}

// ModelPreferences guide the client's choice of model.
type ModelPreferences struct {
	// Hints name preferred models, in order of preference.
	Hints []ModelHint `json:"hints,omitempty"`
	// CostPriority is how much cost matters, from 0 to 1.
	CostPriority float64 `json:"costPriority,omitempty"`
	// SpeedPriority is how much speed matters, from 0 to 1.
	SpeedPriority float64 `json:"speedPriority,omitempty"`
	// IntelligencePriority is how much capability matters, from 0 to 1.
	IntelligencePriority float64 `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model, or a family of models.
type ModelHint struct {
	// Name is a model name or a part of one ("sonnet", "gpt-4").
	Name string `json:"name,omitempty"`
}

// Request is a sampling request: the params of sampling/createMessage.
type Request struct {
	// Messages are the conversation to complete.
	Messages []Message `json:"messages"`
	// MaxTokens bounds the length of the answer. Required.
	MaxTokens int `json:"maxTokens"`
	// SystemPrompt is an optional system prompt; the client may change or ignore it.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// ModelPreferences guide the client's choice of model.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// IncludeContext asks for context from MCP servers: "none", "thisServer" or "allServers".
	IncludeContext string `json:"includeContext,omitempty"`
	// Temperature is the sampling temperature; nil leaves it to the client.
	Temperature *float64 `json:"temperature,omitempty"`
	// StopSequences end the answer where they occur.
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is passed to the model provider as is.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Tools are tools the model may use (sampling with tools, revision
	// 2025-11-25): it answers with [ToolUse] items, which the server runs
	// and answers in the next request. They need the client's
	// sampling.tools capability; [RunLoop] runs the loop.
	Tools []mcp.Tool `json:"tools,omitempty"`
	// ToolChoice says how the model uses Tools; nil is "auto". It too
	// needs sampling.tools.
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Meta is sent as _meta. The engine adds the request's trace context
	// (traceparent, tracestate) to it when the request carried one.
	Meta map[string]any `json:"_meta,omitempty"`
}

// Result is the client's answer to a sampling request.
type Result struct {
	// Role is the speaker of the answer, normally mcp.RoleAssistant.
	Role mcp.Role `json:"role"`
	// Content is the answer, one block.
	Content mcp.Content `json:"content"`
	// Blocks, when not empty, is the answer as several blocks (a JSON
	// array on the wire, in place of Content), such as the model's
	// [ToolUse] items; see [Result.ContentBlocks] and [Result.ToolUses].
	Blocks []mcp.Content `json:"-"`
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason says why the answer ended ("endTurn", "stopSequence",
	// "maxTokens", "toolUse" when the model asks for tools, …).
	StopReason string `json:"stopReason,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentBlocks returns the answer's content as a list, whichever form it
// has: Blocks, or the one Content.
func (r *Result) ContentBlocks() []mcp.Content { return contentBlocks(r.Content, r.Blocks) }

// ToolUses returns the tool uses of the answer, in order: what the model
// asks the server to run (StopReason is then normally "toolUse").
func (r *Result) ToolUses() []ToolUse {
	var out []ToolUse
	for _, c := range r.ContentBlocks() {
		if u, ok := c.(ToolUse); ok {
			out = append(out, u)
		}
	}
	return out
}

// MarshalJSON sends Blocks as the "content" array when set, else Content.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       mcp.Role       `json:"role"`
		Content    any            `json:"content"`
		Model      string         `json:"model"`
		StopReason string         `json:"stopReason,omitempty"`
		Meta       map[string]any `json:"_meta,omitempty"`
	}{r.Role, contentJSON(r.Content, r.Blocks), r.Model, r.StopReason, r.Meta})
}

// UnmarshalJSON decodes the content into its concrete types: one block
// into Content, an array into Blocks. It is lenient, as a decoder of a
// client's answer should be: a block of a type this package does not know
// is skipped, a missing content is none; a block of a known type that does
// not decode is an error naming it.
func (r *Result) UnmarshalJSON(data []byte) error {
	var w struct {
		Role       mcp.Role        `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
		Meta       map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	one, list, err := decodeContent(w.Content)
	if err != nil {
		return err
	}
	*r = Result{Role: w.Role, Content: one, Blocks: list, Model: w.Model, StopReason: w.StopReason, Meta: w.Meta}
	return nil
}

// ToolChoice tells the client's model how to use the tools of a sampling
// request (revision 2025-11-25): Mode is [ToolChoiceAuto] (the default:
// the model decides), [ToolChoiceRequired] (it must use a tool) or
// [ToolChoiceNone] (it must not).
type ToolChoice struct {
	// Mode is "auto", "required" or "none"; empty means "auto".
	Mode string `json:"mode,omitempty"`
}

// The modes of a [ToolChoice].
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceRequired = "required"
	ToolChoiceNone     = "none"
)

// ToolUse is the model's request to call a tool, in the content of an
// assistant message of sampling with tools (type "tool_use"). The server
// runs the tool and answers with a [ToolResult] of the same ID in the
// next user message.
type ToolUse struct {
	// ID identifies this tool use; the tool result names it.
	ID string `json:"id"`
	// Name is the tool to call.
	Name string `json:"name"`
	// Input is the arguments, a JSON object by the tool's input schema
	// (sent as {} when empty).
	Input json.RawMessage `json:"input"`
	// Meta is sent as _meta; send it back unchanged with the tool use.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ToolResult is the result of a tool the model asked for, in the content
// of a user message of sampling with tools (type "tool_result"). A
// message holding tool results holds nothing else.
type ToolResult struct {
	// ToolUseID is the ID of the [ToolUse] this answers.
	ToolUseID string `json:"toolUseId"`
	// Content is the result as content items, as in a tool's result.
	Content []mcp.Content `json:"content"`
	// StructuredContent is the result as JSON, for a tool with an output schema.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError says the tool failed; Content then describes the failure.
	IsError bool `json:"isError,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentType implements mcp.Content.
func (ToolUse) ContentType() string { return "tool_use" }

// ContentType implements mcp.Content.
func (ToolResult) ContentType() string { return "tool_result" }

// MarshalJSON adds the "type" member and sends an empty Input as {}.
func (u ToolUse) MarshalJSON() ([]byte, error) {
	type wire ToolUse
	w := wire(u)
	if len(w.Input) == 0 {
		w.Input = json.RawMessage("{}")
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"tool_use", w})
}

// MarshalJSON adds the "type" member and sends an empty Content as [].
func (r ToolResult) MarshalJSON() ([]byte, error) {
	type wire ToolResult
	w := wire(r)
	if w.Content == nil {
		w.Content = []mcp.Content{}
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"tool_result", w})
}

// UnmarshalJSON decodes the content items leniently (see [Result]).
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	var w struct {
		ToolUseID         string          `json:"toolUseId"`
		Content           json.RawMessage `json:"content"`
		StructuredContent any             `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Meta              map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	one, list, err := decodeContent(w.Content)
	if err != nil {
		return err
	}
	if one != nil {
		list = []mcp.Content{one}
	}
	*r = ToolResult{ToolUseID: w.ToolUseID, Content: list, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
	return nil
}

// decodeContent reads the content of a sampling message, which is one
// block (an object: one) or several (an array: list). It is lenient, as a
// decoder of what clients send should be: a block of a type this package
// does not know is skipped, and an absent or null content is no content;
// a block of a known type that does not decode is an error naming it.
func decodeContent(raw json.RawMessage) (one mcp.Content, list []mcp.Content, err error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return nil, nil, nil
	}
	switch raw[0] {
	case '{':
		c, err := decodeBlock(raw)
		return c, nil, err
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, fmt.Errorf("sampling: content: %w", err)
		}
		list = make([]mcp.Content, 0, len(items))
		for i, it := range items {
			c, err := decodeBlock(it)
			if err != nil {
				return nil, nil, fmt.Errorf("sampling: content[%d]: %w", i, err)
			}
			if c != nil {
				list = append(list, c)
			}
		}
		return nil, list, nil
	}
	return nil, nil, nil // null, or a value no block is: no content
}

// decodeBlock decodes one content block: the two of sampling with tools
// here, the others by mcp.UnmarshalContent; a type neither knows is
// nil, no error.
func decodeBlock(raw json.RawMessage) (mcp.Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("sampling: content: %w", err)
	}
	switch head.Type {
	case "tool_use":
		var u ToolUse
		if err := json.Unmarshal(raw, &u); err != nil {
			return nil, fmt.Errorf("sampling: tool_use: %w", err)
		}
		return u, nil
	case "tool_result":
		var r ToolResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("sampling: tool_result: %w", err)
		}
		return r, nil
	case "text", "image", "audio", "resource", "resource_link":
		return mcp.UnmarshalContent(raw)
	}
	return nil, nil
}

// trimSpace drops the JSON whitespace around raw.
func trimSpace(raw []byte) []byte {
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	for len(raw) > 0 && isSpace(raw[0]) {
		raw = raw[1:]
	}
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}

// contentBlocks is the content of a sampling message as a list: blocks
// when set, else the one block.
func contentBlocks(one mcp.Content, blocks []mcp.Content) []mcp.Content {
	if len(blocks) > 0 {
		return blocks
	}
	if one != nil {
		return []mcp.Content{one}
	}
	return nil
}

// contentJSON is what "content" of a sampling message sends: the blocks
// as an array when there are any, else the one block.
func contentJSON(one mcp.Content, blocks []mcp.Content) any {
	if len(blocks) > 0 {
		return blocks
	}
	return one
}

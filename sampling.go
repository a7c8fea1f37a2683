package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// SamplingCapability is the client's sampling capability: its presence
// says the client accepts sampling/createMessage, its members what more
// it takes.
type SamplingCapability struct {
	// Context is non-nil when the client takes includeContext values
	// other than "none".
	Context *struct{} `json:"context,omitempty"`
	// Tools is non-nil when the client takes tools and toolChoice in a
	// sampling request and may answer with tool_use content (revision
	// 2025-11-25, SEP-1577). [Context.Sample] refuses a request with tools
	// to a client that did not declare it.
	Tools *struct{} `json:"tools,omitempty"`
}

// decodeSamplingCapability reads the sampling capability leniently: any
// value but null declares sampling; "context" and "tools" count when
// present and neither null nor false, whatever their shape.
func decodeSamplingCapability(raw json.RawMessage) *SamplingCapability {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := &SamplingCapability{}
	var w struct {
		Context json.RawMessage `json:"context"`
		Tools   json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &w) == nil {
		if declared(w.Context) {
			s.Context = &struct{}{}
		}
		if declared(w.Tools) {
			s.Tools = &struct{}{}
		}
	}
	return s
}

// declared reports whether a capability member is present and means yes.
func declared(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "false"
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

// ToolUseContent is the model's request to call a tool, in the content of
// an assistant message of sampling with tools (type "tool_use"). The
// server runs the tool and answers with a [ToolResultContent] of the same
// ID in the next user message.
type ToolUseContent struct {
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

// ToolResultContent is the result of a tool the model asked for, in the
// content of a user message of sampling with tools (type "tool_result").
// A message holding tool results holds nothing else.
type ToolResultContent struct {
	// ToolUseID is the ID of the [ToolUseContent] this answers.
	ToolUseID string `json:"toolUseId"`
	// Content is the result as content items, as in a tool's result.
	Content []Content `json:"content"`
	// StructuredContent is the result as JSON, for a tool with an output schema.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError says the tool failed; Content then describes the failure.
	IsError bool `json:"isError,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentType implements [Content].
func (ToolUseContent) ContentType() string { return "tool_use" }

// ContentType implements [Content].
func (ToolResultContent) ContentType() string { return "tool_result" }

// MarshalJSON adds the "type" member and sends an empty Input as {}.
func (c ToolUseContent) MarshalJSON() ([]byte, error) {
	type wire ToolUseContent
	w := wire(c)
	if len(w.Input) == 0 {
		w.Input = json.RawMessage("{}")
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"tool_use", w})
}

// MarshalJSON adds the "type" member and sends an empty Content as [].
func (c ToolResultContent) MarshalJSON() ([]byte, error) {
	type wire ToolResultContent
	w := wire(c)
	if w.Content == nil {
		w.Content = []Content{}
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"tool_result", w})
}

// UnmarshalJSON decodes the content items leniently (see
// [CreateMessageResult]).
func (c *ToolResultContent) UnmarshalJSON(data []byte) error {
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
	one, list, err := decodeSamplingContent(w.Content)
	if err != nil {
		return err
	}
	if one != nil {
		list = []Content{one}
	}
	*c = ToolResultContent{ToolUseID: w.ToolUseID, Content: list, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
	return nil
}

// decodeSamplingContent reads the content of a sampling message, which
// is one block (an object: one) or several (an array: list). It is
// lenient, as a decoder of what clients send should be: a block of a type
// this package does not know is skipped, and an absent or null content is
// no content; a block of a known type that does not decode is an error
// naming it.
func decodeSamplingContent(raw json.RawMessage) (one Content, list []Content, err error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return nil, nil, nil
	}
	switch raw[0] {
	case '{':
		c, err := UnmarshalContent(raw)
		if errors.Is(err, errUnknownContent) {
			return nil, nil, nil
		}
		return c, nil, err
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, fmt.Errorf("mcp: content: %w", err)
		}
		list = make([]Content, 0, len(items))
		for i, it := range items {
			c, err := UnmarshalContent(it)
			if errors.Is(err, errUnknownContent) {
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("mcp: content[%d]: %w", i, err)
			}
			list = append(list, c)
		}
		return nil, list, nil
	}
	return nil, nil, nil // null, or a value no block is: no content
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
func contentBlocks(one Content, blocks []Content) []Content {
	if len(blocks) > 0 {
		return blocks
	}
	if one != nil {
		return []Content{one}
	}
	return nil
}

// samplingContentJSON is what "content" of a sampling message sends: the
// blocks as an array when there are any, else the one block.
func samplingContentJSON(one Content, blocks []Content) any {
	if len(blocks) > 0 {
		return blocks
	}
	return one
}

// ContentBlocks returns the message's content as a list, whichever form
// it has: Blocks, or the one Content.
func (m SamplingMessage) ContentBlocks() []Content { return contentBlocks(m.Content, m.Blocks) }

// MarshalJSON sends Blocks as the "content" array when set, else Content.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role    Role           `json:"role"`
		Content any            `json:"content"`
		Meta    map[string]any `json:"_meta,omitempty"`
	}{m.Role, samplingContentJSON(m.Content, m.Blocks), m.Meta})
}

// ContentBlocks returns the answer's content as a list, whichever form it
// has: Blocks, or the one Content.
func (r *CreateMessageResult) ContentBlocks() []Content { return contentBlocks(r.Content, r.Blocks) }

// ToolUses returns the tool uses of the answer, in order: what the model
// asks the server to run (StopReason is then normally "toolUse").
func (r *CreateMessageResult) ToolUses() []ToolUseContent {
	var out []ToolUseContent
	for _, c := range r.ContentBlocks() {
		if u, ok := c.(ToolUseContent); ok {
			out = append(out, u)
		}
	}
	return out
}

// MarshalJSON sends Blocks as the "content" array when set, else Content.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       Role           `json:"role"`
		Content    any            `json:"content"`
		Model      string         `json:"model"`
		StopReason string         `json:"stopReason,omitempty"`
		Meta       map[string]any `json:"_meta,omitempty"`
	}{r.Role, samplingContentJSON(r.Content, r.Blocks), r.Model, r.StopReason, r.Meta})
}

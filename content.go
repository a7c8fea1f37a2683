package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Content is one item of a tool result, a prompt message or a streamed chunk:
// [TextContent], [ImageContent], [AudioContent], [EmbeddedResource] or
// [ResourceLink] (and, in sampling with tools, package sampling's ToolUse
// and ToolResult). Each marshals to the MCP wire form with its "type" member.
type Content interface {
	// ContentType returns the wire "type" of the content ("text", "image", …).
	ContentType() string
}

// Annotations tell a client how to use or display an object.
type Annotations struct {
	// Audience says who the object is for: the user, the assistant, or both.
	Audience []Role `json:"audience,omitempty"`
	// Priority is the importance, from 0 (least) to 1 (most important).
	Priority float64 `json:"priority,omitempty"`
	// LastModified is when the object last changed, as an ISO 8601 timestamp.
	LastModified string `json:"lastModified,omitempty"`
}

// Role is the speaker of a message: "user" or "assistant".
type Role string

// The roles of MCP messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// TextContent is plain text.
type TextContent struct {
	// Text is the text itself.
	Text string `json:"text"`
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ImageContent is an image; Data holds the raw bytes (base64 on the wire).
type ImageContent struct {
	// Data is the image's raw bytes (base64 on the wire).
	Data []byte `json:"data"`
	// MIMEType is the image's type, such as image/png; package media's
	// ImageFromBytes and its kin detect it.
	MIMEType string `json:"mimeType"`
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// AudioContent is audio; Data holds the raw bytes (base64 on the wire).
type AudioContent struct {
	// Data is the audio's raw bytes (base64 on the wire).
	Data []byte `json:"data"`
	// MIMEType is the audio's type, such as audio/wav; package media's
	// AudioFromBytes and its kin detect it.
	MIMEType string `json:"mimeType"`
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// EmbeddedResource carries the contents of a resource inline.
type EmbeddedResource struct {
	// Resource is the embedded resource's contents.
	Resource ResourceContents `json:"resource"`
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ResourceLink points at a resource the client may read with resources/read.
type ResourceLink struct {
	// URI is the resource's URI, for resources/read.
	URI string `json:"uri"`
	// Name is the resource's short name.
	Name string `json:"name"`
	// Title is an optional display name.
	Title string `json:"title,omitempty"`
	// Description tells the model what the resource holds.
	Description string `json:"description,omitempty"`
	// MIMEType is the type of the resource's contents, when known.
	MIMEType string `json:"mimeType,omitempty"`
	// Size is the size of the contents in bytes, when known (0: unknown).
	Size int64 `json:"size,omitempty"`
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the resource (see [Icon]).
	Icons []Icon `json:"icons,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentType implements [Content].
func (TextContent) ContentType() string { return "text" }

// ContentType implements [Content].
func (ImageContent) ContentType() string { return "image" }

// ContentType implements [Content].
func (AudioContent) ContentType() string { return "audio" }

// ContentType implements [Content].
func (EmbeddedResource) ContentType() string { return "resource" }

// ContentType implements [Content].
func (ResourceLink) ContentType() string { return "resource_link" }

// MarshalJSON adds the "type" member.
func (c TextContent) MarshalJSON() ([]byte, error) {
	type wire TextContent
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"text", wire(c)})
}

// MarshalJSON adds the "type" member.
func (c ImageContent) MarshalJSON() ([]byte, error) {
	type wire ImageContent
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"image", wire(c)})
}

// MarshalJSON adds the "type" member.
func (c AudioContent) MarshalJSON() ([]byte, error) {
	type wire AudioContent
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"audio", wire(c)})
}

// MarshalJSON adds the "type" member.
func (c EmbeddedResource) MarshalJSON() ([]byte, error) {
	type wire EmbeddedResource
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"resource", wire(c)})
}

// MarshalJSON adds the "type" member.
func (c ResourceLink) MarshalJSON() ([]byte, error) {
	type wire ResourceLink
	return json.Marshal(struct {
		Type string `json:"type"`
		wire
	}{"resource_link", wire(c)})
}

// Text returns a [TextContent] holding s.
func Text(s string) TextContent { return TextContent{Text: s} }

// UnmarshalContent decodes one wire content item into its concrete type
// (a value, not a pointer: TextContent, ImageContent, …).
func UnmarshalContent(data []byte) (Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("mcp: content: %w", err)
	}
	switch head.Type {
	case "text":
		var c TextContent
		err := json.Unmarshal(data, &c)
		return c, err
	case "image":
		var c ImageContent
		err := json.Unmarshal(data, &c)
		return c, err
	case "audio":
		var c AudioContent
		err := json.Unmarshal(data, &c)
		return c, err
	case "resource":
		var c EmbeddedResource
		err := json.Unmarshal(data, &c)
		return c, err
	case "resource_link":
		var c ResourceLink
		err := json.Unmarshal(data, &c)
		return c, err
	default:
		return nil, fmt.Errorf("%w %q", errUnknownContent, head.Type)
	}
}

// errUnknownContent is UnmarshalContent's error for a type it does not know.
var errUnknownContent = errors.New("mcp: unknown content type")

func unmarshalContents(raw []json.RawMessage) ([]Content, error) {
	out := make([]Content, 0, len(raw))
	for _, r := range raw {
		c, err := UnmarshalContent(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ContentResult is the full result of a tool call. A tool may return it to
// control every member; the other return forms are turned into one.
type ContentResult struct {
	// Content is the result as content items (text, images, …).
	Content []Content `json:"content"`
	// StructuredContent is the result as JSON, for a tool with an output schema.
	StructuredContent any `json:"structuredContent,omitempty"`
	// IsError marks the result as the tool's failure, which the model should see.
	IsError bool `json:"isError,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes "content" as [] when empty, as the schema requires.
func (r ContentResult) MarshalJSON() ([]byte, error) {
	type wire ContentResult
	w := wire(r)
	if w.Content == nil {
		w.Content = []Content{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the content items into their concrete types.
func (r *ContentResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent any               `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		Meta              map[string]any    `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	cs, err := unmarshalContents(w.Content)
	if err != nil {
		return err
	}
	*r = ContentResult{Content: cs, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
	return nil
}

// Text returns the text of all text items of the result, joined by newlines.
func (r *ContentResult) Text() string {
	var s string
	for i, c := range r.Content {
		if t, ok := c.(TextContent); ok {
			if i > 0 {
				s += "\n"
			}
			s += t.Text
		}
	}
	return s
}

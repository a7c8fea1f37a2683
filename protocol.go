package mcp

import (
	"encoding/json"
)

// Implementation names a client or server (clientInfo, serverInfo).
type Implementation struct {
	// Name identifies the program.
	Name string `json:"name"`
	// Title is an optional display name.
	Title string `json:"title,omitempty"`
	// Version is the program's version.
	Version string `json:"version"`
	// Icons are images a client may show for the program.
	Icons []Icon `json:"icons,omitempty"`
	// WebsiteURL is the program's website.
	WebsiteURL string `json:"websiteUrl,omitempty"`
}

// ClientCapabilities are what a client declares in initialize.
type ClientCapabilities struct {
	// Roots is non-nil when the client offers roots (roots/list).
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling is non-nil when the client accepts sampling/createMessage.
	Sampling *struct{} `json:"sampling,omitempty"`
	// Elicitation is non-nil when the client accepts elicitation/create.
	Elicitation *struct{} `json:"elicitation,omitempty"`
	// Experimental holds non-standard capabilities, as sent.
	Experimental map[string]any `json:"experimental,omitempty"`
	// Extensions holds the extensions the client declared, each with its
	// settings as sent ([ClientCapabilities.SupportsApps] reads MCP Apps').
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability is the client's roots capability.
type RootsCapability struct {
	// ListChanged says the client sends notifications/roots/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// UnmarshalJSON accepts any object for sampling and elicitation (their
// members vary by revision) and keeps only their presence; extensions
// that are not an object are dropped.
func (c *ClientCapabilities) UnmarshalJSON(data []byte) error {
	var w struct {
		Roots        *RootsCapability `json:"roots"`
		Sampling     json.RawMessage  `json:"sampling"`
		Elicitation  json.RawMessage  `json:"elicitation"`
		Experimental map[string]any   `json:"experimental"`
		Extensions   json.RawMessage  `json:"extensions"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = ClientCapabilities{Roots: w.Roots, Experimental: w.Experimental}
	// Extensions that are not an object of members are ignored, as they
	// were before the field existed: a client is not refused for them.
	if len(w.Extensions) > 0 && json.Unmarshal(w.Extensions, &c.Extensions) != nil {
		c.Extensions = nil
	}
	if len(w.Sampling) > 0 && string(w.Sampling) != "null" {
		c.Sampling = &struct{}{}
	}
	if len(w.Elicitation) > 0 && string(w.Elicitation) != "null" {
		c.Elicitation = &struct{}{}
	}
	return nil
}

// Root is a directory or file the client offers the server.
type Root struct {
	// URI is the root's location, a file:// URI.
	URI string `json:"uri"`
	// Name is an optional display name.
	Name string `json:"name,omitempty"`
}

// LogLevel is an MCP log level (RFC 5424 names).
type LogLevel string

// The MCP log levels, from least to most severe.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

var levelRank = map[LogLevel]int{
	LevelDebug: 0, LevelInfo: 1, LevelNotice: 2, LevelWarning: 3,
	LevelError: 4, LevelCritical: 5, LevelAlert: 6, LevelEmergency: 7,
}

// Valid reports whether l is one of the eight MCP levels.
func (l LogLevel) Valid() bool { _, ok := levelRank[l]; return ok }

// Enabled reports whether a message at level l passes the minimum level
// min; an empty min lets every level pass.
func (l LogLevel) Enabled(min LogLevel) bool {
	if min == "" {
		return true
	}
	return levelRank[l] >= levelRank[min]
}

// LogMessage is the params of notifications/message.
type LogMessage struct {
	// Level is the message's severity.
	Level LogLevel `json:"level"`
	// Logger names the source of the message (the tool, or the server).
	Logger string `json:"logger,omitempty"`
	// Data is the message: any JSON value.
	Data any `json:"data"`
}

// SamplingMessage is one message of a sampling request or result.
type SamplingMessage struct {
	// Role is who says it: [RoleUser] or [RoleAssistant].
	Role Role `json:"role"`
	// Content is what is said: text, an image or audio.
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the content into its concrete type.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role = w.Role
	if len(w.Content) > 0 && w.Content[0] == '{' {
		c, err := UnmarshalContent(w.Content)
		if err != nil {
			return err
		}
		m.Content = c
	}
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

// CreateMessageParams is a sampling request.
type CreateMessageParams struct {
	// Messages are the conversation to complete.
	Messages []SamplingMessage `json:"messages"`
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
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	// Role is the speaker of the answer, normally [RoleAssistant].
	Role Role `json:"role"`
	// Content is the answer.
	Content Content `json:"content"`
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason says why the answer ended ("endTurn", "stopSequence", "maxTokens", …).
	StopReason string `json:"stopReason,omitempty"`
}

// UnmarshalJSON decodes the content into its concrete type.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = CreateMessageResult{Role: w.Role, Model: w.Model, StopReason: w.StopReason}
	if len(w.Content) > 0 && w.Content[0] == '{' {
		c, err := UnmarshalContent(w.Content)
		if err != nil {
			return err
		}
		r.Content = c
	}
	return nil
}

// ElicitParams is an elicitation request: a message for the user and the
// JSON Schema of the answer (a flat object of primitive properties).
type ElicitParams struct {
	// Message is what the user is asked.
	Message string `json:"message"`
	// RequestedSchema is the JSON Schema of the answer: an object of primitive properties.
	RequestedSchema any `json:"requestedSchema"`
}

// ElicitResult is the user's answer: Action is "accept", "decline" or
// "cancel"; Content holds the answer when accepted.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content is the user's answer, when Action is "accept".
	Content map[string]any `json:"content,omitempty"`
}

package mcp

import (
	"encoding/json"
)

// Implementation names a client or server (clientInfo, serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ClientCapabilities are what a client declares in initialize.
type ClientCapabilities struct {
	Roots        *RootsCapability `json:"roots,omitempty"`
	Sampling     *struct{}        `json:"sampling,omitempty"`
	Elicitation  *struct{}        `json:"elicitation,omitempty"`
	Experimental map[string]any   `json:"experimental,omitempty"`
}

// RootsCapability is the client's roots capability.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// UnmarshalJSON accepts any object for sampling and elicitation (their
// members vary by revision) and keeps only their presence.
func (c *ClientCapabilities) UnmarshalJSON(data []byte) error {
	var w struct {
		Roots        *RootsCapability `json:"roots"`
		Sampling     json.RawMessage  `json:"sampling"`
		Elicitation  json.RawMessage  `json:"elicitation"`
		Experimental map[string]any   `json:"experimental"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = ClientCapabilities{Roots: w.Roots, Experimental: w.Experimental}
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
	URI  string `json:"uri"`
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
	Level  LogLevel `json:"level"`
	Logger string   `json:"logger,omitempty"`
	Data   any      `json:"data"`
}

// SamplingMessage is one message of a sampling request or result.
type SamplingMessage struct {
	Role    Role    `json:"role"`
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
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         float64     `json:"costPriority,omitempty"`
	SpeedPriority        float64     `json:"speedPriority,omitempty"`
	IntelligencePriority float64     `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model, or a family of models.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// CreateMessageParams is a sampling request.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	Metadata         map[string]any    `json:"metadata,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	Role       Role    `json:"role"`
	Content    Content `json:"content"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
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
	Message         string `json:"message"`
	RequestedSchema any    `json:"requestedSchema"`
}

// ElicitResult is the user's answer: Action is "accept", "decline" or
// "cancel"; Content holds the answer when accepted.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

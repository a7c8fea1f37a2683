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

// InitializeResult is what a server answers to initialize (and, at
// revision 2026-07-28, the same facts from server/discover): the revision
// it chose, its name, its capabilities and its instructions. A client
// reads it (client.Client.Initialize).
type InitializeResult struct {
	// ProtocolVersion is the revision the server chose.
	ProtocolVersion Version `json:"protocolVersion"`
	// ServerInfo names the server.
	ServerInfo Implementation `json:"serverInfo"`
	// Capabilities are the server's, as sent.
	Capabilities ServerCapabilities `json:"capabilities"`
	// Instructions describe how to use the server, for the model.
	Instructions string `json:"instructions,omitempty"`
}

// ServerCapabilities are what a server declares in initialize; a nil
// member means the server does not offer it.
type ServerCapabilities struct {
	// Tools, Resources and Prompts are non-nil when the server offers
	// them; ListChanged when it announces changes of their lists.
	Tools     *ListChangedCapability `json:"tools,omitempty"`
	Resources *ResourcesCapability   `json:"resources,omitempty"`
	Prompts   *ListChangedCapability `json:"prompts,omitempty"`
	// Logging is non-nil when the server sends log messages
	// (logging/setLevel), Completions when it answers
	// completion/complete.
	Logging     *struct{} `json:"logging,omitempty"`
	Completions *struct{} `json:"completions,omitempty"`
	// Experimental and Extensions hold the non-standard capabilities
	// and the extensions ([SkillsExtension], apps.Extension, …), each
	// as sent.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ListChangedCapability is a server capability that may announce list
// changes (tools, prompts).
type ListChangedCapability struct {
	// ListChanged says the server sends notifications/…/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is the server's resources capability.
type ResourcesCapability struct {
	// ListChanged says the server sends
	// notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
	// Subscribe says the server takes resources/subscribe.
	Subscribe bool `json:"subscribe,omitempty"`
}

// ClientCapabilities are what a client declares in initialize.
type ClientCapabilities struct {
	// Roots is non-nil when the client offers roots (roots/list).
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling is non-nil when the client accepts sampling/createMessage;
	// Sampling.Tools when it also takes tools (sampling with tools).
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Elicitation is non-nil when the client accepts elicitation/create;
	// its members say which modes (form, URL).
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
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
// members vary by revision) and keeps their presence, and for sampling
// whether it declares context and tools; extensions that are not an
// object are dropped.
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
	c.Sampling = decodeSamplingCapability(w.Sampling)
	if len(w.Elicitation) > 0 && string(w.Elicitation) != "null" {
		c.Elicitation = &ElicitationCapability{}
		// Lenient: members of another shape are read as absent.
		var modes struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		}
		if json.Unmarshal(w.Elicitation, &modes) == nil {
			if len(modes.Form) > 0 && string(modes.Form) != "null" {
				c.Elicitation.Form = &struct{}{}
			}
			if len(modes.URL) > 0 && string(modes.URL) != "null" {
				c.Elicitation.URL = &struct{}{}
			}
		}
	}
	return nil
}

// ElicitationCapability is the client's elicitation capability: the
// modes it supports. Declaring neither (elicitation: {}) means form mode
// only, as the 2025-11-25 revision says.
type ElicitationCapability struct {
	// Form is non-nil when the client declared form mode.
	Form *struct{} `json:"form,omitempty"`
	// URL is non-nil when the client declared URL mode (2025-11-25):
	// it opens a URL the server gives it, for what must not pass through
	// the client (credentials, payment).
	URL *struct{} `json:"url,omitempty"`
}

// FormMode reports whether the client accepts form-mode elicitation: it
// declared form, or no mode at all.
func (e *ElicitationCapability) FormMode() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// URLMode reports whether the client accepts URL-mode elicitation.
func (e *ElicitationCapability) URLMode() bool { return e != nil && e.URL != nil }

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

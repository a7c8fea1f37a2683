package client

import (
	"encoding/json"

	"github.com/mcpchain/mcp/elicit"
)

// ElicitDefaults returns the default of every property of an elicitation
// form that declares one (SEP-1034), by property name: what a client
// shows before the user changes anything, and what it should send for a
// field the user left alone. A schema that does not decode gives none.
func ElicitDefaults(p *elicit.Params) map[string]any {
	out := map[string]any{}
	if p == nil || p.RequestedSchema == nil {
		return out
	}
	b, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return out
	}
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(b, &s) != nil {
		return out
	}
	for name, prop := range s.Properties {
		var v any
		if len(prop.Default) > 0 && json.Unmarshal(prop.Default, &v) == nil && v != nil {
			out[name] = v
		}
	}
	return out
}

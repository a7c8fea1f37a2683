package mcphttp

import (
	"context"
	"encoding/json"
)

// doDiscover is server/discover: the versions, capabilities and
// instructions of the server, and its whole identity (icons and website
// included) in the result's _meta, where every 2026-07-28 result carries
// the short form.
func (h *Handler) doDiscover(_ context.Context, k *call) (any, error) {
	k.cache = h.ops.DiscoverCache(k.auth)
	o := h.ops.Options()
	meta, err := discoverMeta(o) // serverinfo.go
	if err != nil {
		return nil, err
	}
	return struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      rev20260728Capabilities    `json:"capabilities"`
		Instructions      string                     `json:"instructions,omitempty"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}{allVersions, rev20260728Capabilities{
		Tools:       listChanged{true},
		Resources:   resourcesCap{Subscribe: true, ListChanged: true},
		Prompts:     listChanged{true},
		Logging:     struct{}{},
		Completions: struct{}{},
		Extensions:  h.advertisedExtensions(true), // extensions.go
	}, o.Instructions, meta}, nil
}

// rev20260728Capabilities are the server capabilities of 2026-07-28.
type rev20260728Capabilities struct {
	Tools       listChanged                `json:"tools"`
	Resources   resourcesCap               `json:"resources"`
	Prompts     listChanged                `json:"prompts"`
	Logging     struct{}                   `json:"logging"`
	Completions struct{}                   `json:"completions"`
	Extensions  map[string]json.RawMessage `json:"extensions"`
}

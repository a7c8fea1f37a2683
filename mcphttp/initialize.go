package mcphttp

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"

	"github.com/mcpchain/mcp"
)

func (h *Handler) doInitialize(ctx context.Context, k *call) (any, error) {
	p, err := decodeInitialize(k.msg.Params)
	if err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: initialize needs "protocolVersion"`}
	}
	version := p.ProtocolVersion
	if !slices.Contains(supportedVersions, version) {
		version = string(mcp.Version20251125)
	}
	k.c.sess.Init(version, p.ClientInfo, p.Capabilities, k.auth)
	if !k.c.ephemeral {
		if err := h.register(ctx, k.c); err != nil {
			return nil, err
		}
	}
	// A stateless handler has no stream to send list changes and resource
	// updates on: it does not promise them (docs/deploy.md).
	return h.initResult(version, !k.c.ephemeral)
}

// newInitializeResult is the result of initialize for version; streams
// says the session has streams for list changes and resource updates.
func (h *Handler) newInitializeResult(version string, streams bool) initializeResult {
	o := h.ops.Options()
	r := initializeResult{
		ProtocolVersion: version,
		Capabilities: serverCapabilities{
			Tools:       listChanged{streams},
			Resources:   resourcesCap{Subscribe: streams, ListChanged: streams},
			Prompts:     listChanged{streams},
			Logging:     struct{}{},
			Completions: struct{}{},
			Extensions:  h.advertisedExtensions(false), // extensions.go
		},
		ServerInfo:   serverInfo(o),
		Instructions: o.Instructions,
	}
	h.initCapabilities(version, &r.Capabilities) // ext_tasks25.go
	return r
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

type serverCapabilities struct {
	Tools       listChanged  `json:"tools"`
	Resources   resourcesCap `json:"resources"`
	Prompts     listChanged  `json:"prompts"`
	Logging     struct{}     `json:"logging"`
	Completions struct{}     `json:"completions"`
	// Tasks (2025-11-25): ext_tasks25.go. Extensions: extensions.go.
	Tasks      *tasksCap                  `json:"tasks,omitempty"`
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

type listChanged struct {
	ListChanged bool `json:"listChanged"`
}

type resourcesCap struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// initResults holds the encoded result of initialize, per supported
// version and whether the session has streams, with the generation of the
// server's extensions it advertises: it depends on nothing else (the
// server's options do not change), so each is encoded once, and again when
// an extension is added.
type initResults [2 * maxInitVersions]atomic.Pointer[initResult]

// initResult is one encoded result of initialize.
type initResult struct {
	gen uint64 // of the extensions advertised
	b   encodedResult
}

// maxInitVersions bounds the versions whose initialize result is cached.
const maxInitVersions = 8

// encodedResult is a result already encoded as compact JSON, shared by
// every request that returns it: marshalResult hands it on as is, and
// json.Marshal (an interceptor's) copies it.
type encodedResult []byte

// MarshalJSON implements json.Marshaler.
func (r encodedResult) MarshalJSON() ([]byte, error) { return r, nil }

func (encodedResult) compact() {}

// initResult returns the result of initialize for version, encoded once.
func (h *Handler) initResult(version string, streams bool) (any, error) {
	i := slices.Index(supportedVersions, version)
	if i < 0 || i >= maxInitVersions {
		return h.newInitializeResult(version, streams), nil
	}
	if streams {
		i += maxInitVersions
	}
	_, gen := h.ops.Extensions() // extensions may be added after the first initialize
	slot := &h.initJSON[i]
	if r := slot.Load(); r != nil && r.gen == gen {
		return r.b, nil
	}
	b, err := json.Marshal(h.newInitializeResult(version, streams))
	if err != nil {
		return nil, err
	}
	slot.Store(&initResult{gen: gen, b: b})
	return encodedResult(b), nil
}

package mcphttp

import (
	"context"

	"github.com/mcpchain/mcp"
)

// The methods of the skills extension (SEP-2640, mcp.Server.AddSkills):
// skills/list (paginated like the other lists; an entry is never split),
// skills/get and resources/directory/read, in the method table with the
// extension named (a server without skills answers -32601, as for any
// unknown method). Both eras serve them; at 2026-07-28 their results
// carry the caching fields like the other lists and reads.

type uriParams struct {
	URI    string `json:"uri"`
	Cursor string `json:"cursor"`
}

// doSkillsGet is skills/get: the entry of the skill whose SKILL.md is
// params.uri, -32602 for any other URI.
func (h *Handler) doSkillsGet(_ context.Context, k *call) (any, error) {
	var p uriParams
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: skills/get needs params.uri, the skill's SKILL.md URI"}
	}
	sk, err := h.ops.GetSkill(k.r.Context(), k.caller(), p.URI)
	if err != nil {
		return nil, err
	}
	return struct {
		Skill mcp.Skill `json:"skill"`
	}{sk}, nil
}

// doDirectoryRead is resources/directory/read: one page of the direct
// children of a skill directory, subdirectories with mimeType
// inode/directory; -32602 for a URI that is not a directory.
func (h *Handler) doDirectoryRead(_ context.Context, k *call) (any, error) {
	var p uriParams
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: resources/directory/read needs params.uri, a directory URI"}
	}
	children, err := h.ops.ReadSkillDirectory(k.r.Context(), k.caller(), p.URI)
	if err != nil {
		return nil, err
	}
	page, next, err := paginate(children, p.Cursor, h.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listPage[mcp.Resource]{key: "resources", items: page, next: next}, nil
}

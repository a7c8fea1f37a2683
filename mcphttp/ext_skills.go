package mcphttp

import (
	"context"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// The methods of the skills extension (SEP-2640, mcp.Server.AddSkills):
// skills/list (paginated like the other lists; an entry is never split),
// skills/get and resources/directory/read. Both eras serve them; a server
// without skills answers -32601, as for any unknown method. At 2026-07-28
// their results carry the caching fields like the other lists and reads.
//
// This init runs after dispatch.go's (files initialize in name order),
// which makes the methods table.
func init() {
	methods["skills/list"] = skillsOnly(listMethod("skills", func(s *mcp.Server, ctx context.Context, auth any, _ string) []mcp.Skill {
		return s.ListSkills(ctx, auth)
	}))
	methods["skills/get"] = skillsOnly((*Handler).doSkillsGet)
	methods["resources/directory/read"] = skillsOnly((*Handler).doDirectoryRead)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		modernShared[m] = true
		cachedResults[m] = true
	}
}

// skillsOnly answers -32601 when the server serves no skills, so a
// client sees the methods exactly when discover declares the extension.
func skillsOnly(fn methodFunc) methodFunc {
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		if !hook.hasSkills(h.srv) {
			return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: " + strictjson.Quote(k.msg.Method) +
				" belongs to the skills extension (" + mcp.SkillsExtension + "), which this server does not offer"}
		}
		return fn(h, ctx, k)
	}
}

// extensions are the capabilities.extensions of server/discover: the
// skills extension with directoryRead when the server has skills, the
// apps extension when it has apps.
func (h *Handler) extensions() map[string]any {
	ext := map[string]any{mcp.TasksExtension: struct{}{}} // ext_tasks.go
	if hook.hasSkills(h.srv) {
		ext[mcp.SkillsExtension] = map[string]any{"directoryRead": true}
	}
	return h.appsExtension(ext) // ext_apps.go
}

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
	sk, err := hook.getSkill(h.srv, k.r.Context(), k.auth, p.URI)
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
	children, err := hook.readSkillDirectory(h.srv, k.r.Context(), k.auth, p.URI)
	if err != nil {
		return nil, err
	}
	page, next, err := paginate(children, p.Cursor, h.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listPage[mcp.Resource]{key: "resources", items: page, next: next}, nil
}

package mcphttp

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// engine.Methods, the names package mcp refuses to an extension, are the
// methods the engine serves: its method table and subscriptions/listen.
func TestMethodsAreTheTable(t *testing.T) {
	t.Parallel()
	served := append(slices.Collect(maps.Keys(methodTable)), "subscriptions/listen")
	assert.ElementsMatch(t, served, engine.Methods)
}

// Every method of the table is served in some era, and its flags name
// what the engine knows: a method with a Mcp-Name member or rounds is in
// 2026-07-28, and an extension is one the engine or package mcp
// advertises.
func TestMethodTableEntries(t *testing.T) {
	t.Parallel()
	for name, spec := range methodTable {
		assert.NotNil(t, spec.run, name)
		assert.NotZero(t, spec.eras, name)
		if spec.named != "" || spec.rounds || spec.cached {
			assert.NotZero(t, spec.eras&era2026, "%s: a 2026-07-28 flag on a method that revision lacks", name)
		}
		assert.Contains(t, []string{"", mcp.SkillsExtension}, spec.ext, name)
	}
}

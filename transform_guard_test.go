package mcp_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

type wipeIn struct {
	Target string `json:"target"`
	Token  string `json:"token" audit:"redact"`
	Force  bool   `json:"force,omitempty"`
}

// TestTransformGuardedCall: a guard sees a derived tool's call with the
// source's typed input and, for each renamed argument, its name there
// (composed through a transform of a transform), so that a policy read
// from the source's struct tags applies under the new names; the derived
// tool's definition keeps the source's destructiveHint when the
// transform's annotations leave it unset, in tools/list and in the
// guard's view; a transform that would clear it, or call the tool
// read-only, is refused, naming why.
func TestTransformGuardedCall(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	mcp.AddTool(srv, mcp.Tool{Name: "wipe", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true}},
		func(ctx context.Context, c *mcp.Context, in wipeIn) (string, error) { return "wiped " + in.Target, nil })
	srv.AddTransformedTool("wipe", mcp.Transform{Name: "clean",
		Annotations: &mcp.ToolAnnotations{Title: "Clean up"},
		Args:        map[string]mcp.ArgTransform{"target": {Name: "path"}, "token": {Name: "auth"}, "force": {Hide: true, Value: true}}})
	srv.AddTransformedTool("clean", mcp.Transform{Name: "tidy", Args: map[string]mcp.ArgTransform{"auth": {Name: "pass"}}})
	var mu sync.Mutex
	seen := map[string]mcp.GuardedCall{}
	srv.AddToolGuard(func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
		mu.Lock()
		seen[call.Name] = *call
		mu.Unlock()
		return nil
	})

	for _, name := range []string{"clean", "tidy"} {
		tl := toolByName(t, srv, name)
		require.NotNil(t, tl.Annotations, name)
		require.NotNil(t, tl.Annotations.DestructiveHint, name)
		assert.True(t, *tl.Annotations.DestructiveHint, "%s: the source's destructiveHint", name)
	}
	assert.Equal(t, "Clean up", toolByName(t, srv, "clean").Annotations.Title)
	assert.False(t, toolByName(t, srv, "clean").Annotations.IdempotentHint, "the transform's annotations replace the rest")

	for _, tr := range []mcp.Transform{
		{Name: "safe", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)}},
		{Name: "peek", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
	} {
		for _, source := range []string{"wipe", "clean"} {
			err := srv.Registry().AddTransformedTool(source, tr)
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition, "%s from %s", tr.Name, source)
			assert.Contains(t, err.Error(), "destructiveHint", "%s from %s", tr.Name, source)
		}
	}

	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	res, err := c.CallTool(ctx, "clean", map[string]any{"path": "/tmp", "auth": "s3cret"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "wiped /tmp", res.Text())
	res, err = c.CallTool(ctx, "tidy", map[string]any{"path": "/var", "pass": "s3cret"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "wiped /var", res.Text())

	mu.Lock()
	defer mu.Unlock()
	clean, tidy := seen["clean"], seen["tidy"]
	assert.Equal(t, reflect.TypeFor[wipeIn](), clean.InputType, "the source's typed input")
	assert.Equal(t, map[string]string{"path": "target", "auth": "token"}, clean.InputNames)
	assert.JSONEq(t, `{"path":"/tmp","auth":"s3cret"}`, string(clean.Arguments), "as the client sent them")
	assert.True(t, *clean.Tool.Annotations.DestructiveHint)
	assert.Equal(t, reflect.TypeFor[wipeIn](), tidy.InputType, "a transform of a transform: the first source's")
	assert.Equal(t, map[string]string{"path": "target", "pass": "token"}, tidy.InputNames, "renames composed")
	assert.True(t, *tidy.Tool.Annotations.DestructiveHint)
}

// TestImportKeepsGuards: a server's own guards (package approval's)
// run for its tools wherever they are served: mounted, as they always
// did, and imported (copied into another server), where they run after
// the importing server's, for a transform of an imported tool too.
func TestImportKeepsGuards(t *testing.T) {
	t.Parallel()
	child := newServer(t)
	mcp.AddTool(child, mcp.Tool{Name: "drop"}, func(ctx context.Context, c *mcp.Context, in guardIn) (string, error) {
		return "dropped " + in.Repo, nil
	})
	var mu sync.Mutex
	var order []string
	note := func(who string) mcp.ToolGuard {
		return func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
			mu.Lock()
			order = append(order, who+":"+call.Name)
			mu.Unlock()
			if who == "child" && call.Name != "m_drop" {
				return &mcp.UserError{Message: "the child's guard refuses " + call.Name}
			}
			return nil
		}
	}
	child.AddToolGuard(note("child"))
	parent := newServer(t)
	parent.AddToolGuard(note("parent"))
	parent.Mount("m", child, nil)
	parent.Import("i", child, nil)
	parent.AddTransformedTool("i_drop", mcp.Transform{Name: "drop_it"})
	outer := newServer(t)
	outer.Import("o", parent, nil)

	h := mcphttp.New(parent, nil)
	t.Cleanup(func() { _ = h.Close() })
	ho := mcphttp.New(outer, nil)
	t.Cleanup(func() { _ = ho.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	co, err := client.Connect(ctx, client.InProcess(ho, nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = co.Close() })

	res, err := c.CallTool(ctx, "m_drop", map[string]any{"repo": "a"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "dropped a", res.Text(), "the mounted tool: the child's guard lets it through")
	for _, cl := range []struct {
		c    *client.Client
		name string
	}{{c, "i_drop"}, {c, "drop_it"}, {co, "o_i_drop"}, {co, "o_drop_it"}} {
		res, err = cl.c.CallTool(ctx, cl.name, map[string]any{"repo": "a"}, nil)
		require.NoError(t, err, cl.name)
		assert.True(t, res.IsError, "%s: the child's guard runs for its copy", cl.name)
		assert.Equal(t, "the child's guard refuses "+cl.name, res.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"parent:m_drop", "child:m_drop", "parent:i_drop", "child:i_drop", "parent:drop_it", "child:drop_it",
		"parent:o_i_drop", "child:o_i_drop", "parent:o_drop_it", "child:o_drop_it"}, order)
}

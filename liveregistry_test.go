package mcp_test

import (
	"context"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/mcptest"
)

// TestRegistryErrors drives every method of the server's registry and of
// a session's with what each must refuse, and checks the error each
// returns: the sentinel it wraps and the words that say what was wrong.
func TestRegistryErrors(t *testing.T) {
	t.Parallel()
	s := visServer(t) // tools echo, whoami, unlock; resource mem://readme; prompt greet
	sess := mcptest.NewSession(t, s, nil)
	id := whoami(t, sess)
	live := s.SessionRegistry(id)
	require.NoError(t, live.AddRawTool(mcp.Tool{Name: "mine"}, rawNoop))

	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }
	tload := func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
		return nil, nil
	}
	pload := func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }
	typed := func(context.Context, *mcp.Context, struct {
		N string `json:"n"`
	}) (*mcp.PromptResult, error) {
		return nil, nil
	}
	skill := fstest.MapFS{"readme.txt": {Data: []byte("no skill here")}}
	child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0"})
	_, err := s.Registry().Mount("kid", child, nil)
	require.NoError(t, err)

	type scope struct {
		name string
		reg  *mcp.Registry
	}
	server := scope{"server", s.Registry()}
	session := scope{"session", live}
	gone := scope{"unknown session", s.SessionRegistry("no-such-session")}
	empty := scope{"empty session ID", s.SessionRegistry("")}

	tests := []struct {
		name string
		in   scope
		call func(r *mcp.Registry) error
		want error
		text string
	}{
		// Duplicates, in each scope: a session's object may shadow the
		// server's, not another of its own.
		{"duplicate raw tool", server, func(r *mcp.Registry) error { return r.AddRawTool(mcp.Tool{Name: "echo"}, rawNoop) }, mcp.ErrAlreadyRegistered, `tool "echo" is already registered`},
		{"duplicate typed tool", server, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: "whoami"}, noop) }, mcp.ErrAlreadyRegistered, `"whoami"`},
		{"duplicate session tool", session, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: "mine"}, noop) }, mcp.ErrAlreadyRegistered, `session tool "mine"`},
		{"duplicate resource", server, func(r *mcp.Registry) error {
			return r.AddResource(mcp.Resource{URI: "mem://readme", Name: "r", Load: load})
		}, mcp.ErrAlreadyRegistered, `"mem://readme"`},
		{"duplicate prompt", server, func(r *mcp.Registry) error { return r.AddPrompt(mcp.Prompt{Name: "greet", Load: pload}) }, mcp.ErrAlreadyRegistered, `prompt "greet"`},
		{"duplicate typed prompt", server, func(r *mcp.Registry) error { return mcp.TryAddTypedPrompt(r, mcp.Prompt{Name: "greet"}, typed) }, mcp.ErrAlreadyRegistered, `"greet"`},
		{"duplicate mount prefix", server, func(r *mcp.Registry) error {
			_, err := r.Mount("kid", mcp.NewServer(mcp.Options{Name: "other", Version: "1.0.0"}), nil)
			return err
		}, mcp.ErrAlreadyRegistered, `mount prefix "kid"`},

		// Bad definitions.
		{"bad tool name", server, func(r *mcp.Registry) error { return r.AddRawTool(mcp.Tool{Name: "a b"}, rawNoop) }, mcp.ErrInvalidToolName, `"a b"`},
		{"bad session tool name", session, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: ""}, noop) }, mcp.ErrInvalidToolName, ""},
		{"nil tool function", session, func(r *mcp.Registry) error { return r.AddRawTool(mcp.Tool{Name: "raw"}, nil) }, mcp.ErrInvalidDefinition, "nil"},
		{"resource without a scheme", server, func(r *mcp.Registry) error {
			return r.AddResource(mcp.Resource{URI: "notes.txt", Name: "n", Load: load})
		}, mcp.ErrInvalidDefinition, "not an absolute URI"},
		{"bad template", server, func(r *mcp.Registry) error {
			return r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://{x", Name: "x", Load: tload})
		}, mcp.ErrInvalidDefinition, "not an RFC 6570 template"},
		{"bad session template", session, func(r *mcp.Registry) error {
			return r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://fixed", Name: "x", Load: tload})
		}, mcp.ErrInvalidDefinition, "has no {variable}"},
		{"prompt without load", session, func(r *mcp.Registry) error { return r.AddPrompt(mcp.Prompt{Name: "p"}) }, mcp.ErrInvalidDefinition, "Prompt.Load is required"},
		{"remove a kind that is not one", server, func(r *mcp.Registry) error { return r.Remove("widget", "x") }, mcp.ErrInvalidDefinition, `Match.Kind "widget"`},
		{"disable a kind that is not one", session, func(r *mcp.Registry) error { return r.Disable(mcp.Match{Kind: "widget"}) }, mcp.ErrInvalidDefinition, `Match.Kind "widget"`},
		{"enable a kind that is not one", server, func(r *mcp.Registry) error { return r.Enable(mcp.Match{Kind: "widget"}) }, mcp.ErrInvalidDefinition, `Match.Kind "widget"`},
		{"transform of an unknown tool", server, func(r *mcp.Registry) error {
			return r.AddTransformedTool("nope", mcp.Transform{Name: "t"})
		}, mcp.ErrInvalidDefinition, `no tool named "nope"`},
		{"app view outside ui://", server, func(r *mcp.Registry) error {
			return r.AddAppResource(mcp.AppResource{URI: "mem://v.html", Name: "v", HTML: "<p>v</p>"})
		}, mcp.ErrInvalidDefinition, `"mem://v.html"`},
		{"no skills", server, func(r *mcp.Registry) error { return r.AddSkills(skill) }, mcp.ErrNoSkills, ""},
		{"mount of nil", server, func(r *mcp.Registry) error { _, err := r.Mount("n", nil, nil); return err }, mcp.ErrInvalidDefinition, "nil"},
		{"import under a bad prefix", server, func(r *mcp.Registry) error { return r.Import("a.b", child, nil) }, mcp.ErrInvalidDefinition, "prefix"},

		// What belongs to the whole server, asked of a session.
		{"session app view", session, func(r *mcp.Registry) error {
			return r.AddAppResource(mcp.AppResource{URI: "ui://v.html", Name: "v", HTML: "<p>v</p>"})
		}, mcp.ErrInvalidDefinition, "Registry.AddAppResource changes the whole server"},
		{"session skills", session, func(r *mcp.Registry) error { return r.AddSkills(skill) }, mcp.ErrInvalidDefinition, "Registry.AddSkills"},
		{"session transform", session, func(r *mcp.Registry) error { return r.AddTransformedTool("echo", mcp.Transform{Name: "t"}) }, mcp.ErrInvalidDefinition, "Registry.AddTransformedTool"},
		{"session mount", session, func(r *mcp.Registry) error { _, err := r.Mount("m", child, nil); return err }, mcp.ErrInvalidDefinition, "Registry.Mount"},
		{"session import", session, func(r *mcp.Registry) error { return r.Import("m", child, nil) }, mcp.ErrInvalidDefinition, "Registry.Import"},

		// A session this process does not hold: every change is refused.
		{"raw tool", gone, func(r *mcp.Registry) error { return r.AddRawTool(mcp.Tool{Name: "x"}, rawNoop) }, mcp.ErrNoSession, `session "no-such-session" is not live`},
		{"typed tool", gone, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: "x"}, noop) }, mcp.ErrNoSession, `"no-such-session"`},
		{"bad typed tool", gone, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: "a b"}, noop) }, mcp.ErrNoSession, ""},
		{"resource", gone, func(r *mcp.Registry) error { return r.AddResource(mcp.Resource{URI: "a://b", Name: "b", Load: load}) }, mcp.ErrNoSession, ""},
		{"template", gone, func(r *mcp.Registry) error {
			return r.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "a://{b}", Name: "b", Load: tload})
		}, mcp.ErrNoSession, ""},
		{"prompt", gone, func(r *mcp.Registry) error { return r.AddPrompt(mcp.Prompt{Name: "p", Load: pload}) }, mcp.ErrNoSession, ""},
		{"typed prompt", gone, func(r *mcp.Registry) error { return mcp.TryAddTypedPrompt(r, mcp.Prompt{Name: "p"}, typed) }, mcp.ErrNoSession, ""},
		{"remove", gone, func(r *mcp.Registry) error { return r.Remove(access.KindTool, "x") }, mcp.ErrNoSession, ""},
		{"disable", gone, func(r *mcp.Registry) error { return r.Disable(mcp.Match{}) }, mcp.ErrNoSession, ""},
		{"enable", gone, func(r *mcp.Registry) error { return r.Enable(mcp.Match{}) }, mcp.ErrNoSession, ""},
		{"tool", empty, func(r *mcp.Registry) error { return mcp.TryAddTool(r, mcp.Tool{Name: "x"}, noop) }, mcp.ErrNoSession, "the session ID is empty"},
		{"remove", empty, func(r *mcp.Registry) error { return r.Remove("", "x") }, mcp.ErrNoSession, "the session ID is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in.name+"/"+tt.name, func(t *testing.T) {
			err := tt.call(tt.in.reg)
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.text)
		})
	}
	// Nothing refused was kept: the session holds its one tool, no other
	// session anything, and the server's lists are as they were.
	assert.Equal(t, 1, s.SessionOverlays())
	assert.Equal(t, []string{"echo", "admin_reset", "admin_read", "whoami", "unlock", "mine"}, namesOf(sess.ListTools()))
}

// TestRegistryRemove checks Remove in both scopes: by kind, every kind
// at once, a resource and a template under one kind, and that a session
// removes only what it registered itself.
func TestRegistryRemove(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	sess := mcptest.NewSession(t, s, nil)
	id := whoami(t, sess)
	tload := func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
		return nil, nil
	}
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://t/{x}", Name: "t", Load: tload})
	reg := s.SessionRegistry(id)
	require.NoError(t, reg.AddRawTool(mcp.Tool{Name: "echo"}, rawNoop)) // shadows the server's
	require.NoError(t, reg.AddRawTool(mcp.Tool{Name: "own"}, rawNoop))

	// A session removes its own: the server's echo shows again.
	before := len(sess.Notifications())
	require.NoError(t, reg.Remove("", "echo", "greet", "mem://readme"))
	require.Eventually(t, func() bool { return len(sess.Notifications()) > before }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, "global echo", callText(t, sess, "echo"))
	assert.Len(t, sess.ListPrompts(), 1, "a session removed the server's prompt")
	assert.Contains(t, namesOf(sess.ListTools()), "own")

	// The server's: a resource and a template under KindResource.
	require.NoError(t, s.Registry().Remove(access.KindResource, "mem://readme", "mem://t/{x}"))
	assert.Len(t, s.ListResources(t.Context(), nil), 1) // mem://ops
	assert.Empty(t, s.ListResourceTemplates(t.Context(), nil))
	require.NoError(t, s.Registry().Remove(access.KindTool, "echo"))
	assert.NotContains(t, namesOf(sess.ListTools()), "echo")
	require.NoError(t, s.Registry().Remove("", "greet", "own"))
	assert.Empty(t, sess.ListPrompts())
	assert.Contains(t, namesOf(sess.ListTools()), "own", "the server's Remove reached a session's own tool")
}

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

// visServer is a server with tagged objects of every kind, and the tools
// the visibility tests call: whoami returns the caller's session ID, and
// unlock registers the tool "secret" for the caller's session alone.
func visServer(t testing.TB) *mcp.Server {
	s := newServer(t)
	text := func(v string) mcp.ToolFunc[struct{}, string] {
		return func(context.Context, *mcp.Context, struct{}) (string, error) { return v, nil }
	}
	mcp.AddTool(s, mcp.Tool{Name: "echo", Tags: []string{"basic"}}, text("global echo"))
	mcp.AddTool(s, mcp.Tool{Name: "admin_reset", Tags: []string{"admin", "write"}}, text("reset"))
	mcp.AddTool(s, mcp.Tool{Name: "admin_read", Tags: []string{"admin"}}, text("read"))
	mcp.AddTool(s, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		err := mcp.TryAddTool(s.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret"}, text("the secret of "+c.SessionID))
		if err != nil {
			return "", err
		}
		return "unlocked", nil
	})
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "global"}}, nil
	}
	s.AddResource(mcp.Resource{URI: "mem://readme", Name: "readme", Load: load})
	s.AddResource(mcp.Resource{URI: "mem://ops", Name: "ops", Tags: []string{"admin"}, Load: load})
	s.AddPrompt(mcp.Prompt{Name: "greet", Tags: []string{"basic"}, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("hi"), nil
	}})
	return s
}

func namesOf(tools []mcp.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// callText calls the tool name without arguments and returns its text.
func callText(t *testing.T, s *mcptest.Session, name string) string {
	t.Helper()
	res := s.CallTool(name, nil, nil)
	require.False(t, res.IsError, "%v", res.Content)
	require.Len(t, res.Content, 1)
	return res.Content[0].(mcp.TextContent).Text
}

func whoami(t *testing.T, s *mcptest.Session) string {
	t.Helper()
	id := callText(t, s, "whoami")
	require.NotEmpty(t, id)
	return id
}

// hasNotification reports whether s got a notification with method.
func hasNotification(s *mcptest.Session, method string) bool {
	return slices.ContainsFunc(s.Notifications(), func(n mcptest.Notification) bool { return n.Method == method })
}

// settle gives notifications that should not come time to arrive: a
// global change made after a per-session one is delivered after it, so
// a session that got the global change's notification but not the
// per-session one was not sent the latter.
func settle(t *testing.T, s *mcp.Server, sessions ...*mcptest.Session) {
	t.Helper()
	s.Registry().Remove(access.KindPrompt, "no-such-prompt") // a global change: prompts/list_changed to everyone
	for _, x := range sessions {
		x.WaitNotification("notifications/prompts/list_changed", 5*time.Second)
	}
}

func TestSessionToolReachesOnlyItsSession(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	require.NotEqual(t, idA, whoami(t, b))

	assert.Equal(t, "unlocked", callText(t, a, "unlock"))
	a.WaitNotification("notifications/tools/list_changed", 5*time.Second)
	settle(t, s, a, b)
	assert.False(t, hasNotification(b, "notifications/tools/list_changed"), "the other session heard of a per-session tool")

	assert.Contains(t, namesOf(a.ListTools()), "secret")
	assert.NotContains(t, namesOf(b.ListTools()), "secret")
	assert.Equal(t, "the secret of "+idA, callText(t, a, "secret"))
	_, err := b.Client().CallTool(t.Context(), "secret", nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Unknown tool: "secret"`)

	// Registering it again in the same session is refused; the tool says so.
	res := a.CallTool("unlock", nil, nil)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(mcp.TextContent).Text, `session tool "secret" is already registered`)

	// Removed: gone from the list, and the session is told.
	before := len(a.Notifications())
	require.NoError(t, s.SessionRegistry(idA).Remove(access.KindTool, "secret"))
	require.Eventually(t, func() bool {
		n := a.Notifications()
		return len(n) > before && n[len(n)-1].Method == "notifications/tools/list_changed"
	}, 5*time.Second, 5*time.Millisecond)
	assert.NotContains(t, namesOf(a.ListTools()), "secret")
}

func TestSessionToolShadowsTheServers(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	require.NoError(t, mcp.TryAddTool(s.SessionRegistry(idA), mcp.Tool{Name: "echo", Description: "mine"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "session echo", nil }))

	assert.Equal(t, "session echo", callText(t, a, "echo"))
	assert.Equal(t, "global echo", callText(t, b, "echo"))
	// Listed once, the session's last (after the server's others).
	tools := a.ListTools()
	names := namesOf(tools)
	assert.Equal(t, []string{"admin_reset", "admin_read", "whoami", "unlock", "echo"}, names)
	assert.Equal(t, "mine", tools[len(tools)-1].Description)
	// The server's own list, asked outside any request, is the server's.
	assert.Equal(t, []string{"echo", "admin_reset", "admin_read", "whoami", "unlock"}, namesOf(s.ListTools(t.Context(), nil)))

	require.NoError(t, s.SessionRegistry(idA).Remove(access.KindTool, "echo"))
	assert.Equal(t, "global echo", callText(t, a, "echo"))
}

func TestSessionResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	ctx := t.Context()

	require.NoError(t, s.SessionRegistry(idA).AddResource(mcp.Resource{URI: "mem://cart", Name: "cart",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "3 items"}}, nil
		}}))
	a.WaitNotification("notifications/resources/list_changed", 5*time.Second)
	require.NoError(t, s.SessionRegistry(idA).AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://orders/{id}", Name: "order",
		Arguments: []mcp.TemplateArgument{{Name: "id", Complete: func(context.Context, string, map[string]string) ([]string, error) {
			return []string{"o-1", "o-2"}, nil
		}}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "order " + args["id"]}}, nil
		}}))
	require.NoError(t, s.SessionRegistry(idA).AddPrompt(mcp.Prompt{Name: "checkout",
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("check out"), nil
		}}))
	a.WaitNotification("notifications/prompts/list_changed", 5*time.Second)
	type reviewArgs struct {
		Stars string `json:"stars" enum:"1,2,3"`
	}
	require.NoError(t, mcp.TryAddTypedPrompt(s.SessionRegistry(idA), mcp.Prompt{Name: "review"},
		func(_ context.Context, _ *mcp.Context, in reviewArgs) (*mcp.PromptResult, error) {
			return mcp.UserText(in.Stars + " stars"), nil
		}))

	assert.Equal(t, "3 items", a.ReadResource("mem://cart").Contents[0].Text)
	assert.Equal(t, "order o-7", a.ReadResource("mem://orders/o-7").Contents[0].Text)
	assert.Equal(t, "check out", a.GetPrompt("checkout", nil).Messages[0].Content.(mcp.TextContent).Text)
	assert.Equal(t, "2 stars", a.GetPrompt("review", map[string]string{"stars": "2"}).Messages[0].Content.(mcp.TextContent).Text)
	assert.Equal(t, []string{"o-1", "o-2"}, a.Complete(mcp.CompletionRef{Type: "ref/resource", URI: "mem://orders/{id}"}, "id", "", nil).Values)

	_, err := b.Client().ReadResource(ctx, "mem://cart")
	assert.ErrorContains(t, err, "Resource not found")
	_, err = b.Client().ReadResource(ctx, "mem://orders/o-7")
	assert.ErrorContains(t, err, "Resource not found")
	_, err = b.Client().GetPrompt(ctx, "checkout", nil)
	assert.ErrorContains(t, err, `Unknown prompt: "checkout"`)
	_, err = b.Client().Complete(ctx, mcp.CompletionRef{Type: "ref/resource", URI: "mem://orders/{id}"}, "id", "", nil)
	assert.ErrorContains(t, err, "Unknown resource template")
	bRes, err := b.Client().ListResources(ctx)
	require.NoError(t, err)
	assert.Len(t, bRes, 2)
	aTmpl, err := a.Client().ListResourceTemplates(ctx)
	require.NoError(t, err)
	require.Len(t, aTmpl, 1)
	aPrompts, err := a.Client().ListPrompts(ctx)
	require.NoError(t, err)
	assert.Len(t, aPrompts, 3)

	require.NoError(t, s.SessionRegistry(idA).Remove(access.KindResource, "mem://cart"))
	require.NoError(t, s.SessionRegistry(idA).Remove(access.KindResource, "mem://orders/{id}"))
	require.NoError(t, s.SessionRegistry(idA).Remove(access.KindPrompt, "checkout", "review"))
	aRes, err := a.Client().ListResources(ctx)
	require.NoError(t, err)
	assert.Len(t, aRes, 2)
	aPrompts, err = a.Client().ListPrompts(ctx)
	require.NoError(t, err)
	assert.Len(t, aPrompts, 1)
}

// TestSessionStateEndsWithTheSession registers from outside a request
// (the OnStart hook) and checks that nothing the session had outlives it.
func TestSessionStateEndsWithTheSession(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	var mu sync.Mutex
	var hookErr error
	hooks := &mcphttp.SessionHooks{OnStart: func(info mcphttp.SessionInfo) {
		mu.Lock()
		defer mu.Unlock()
		hookErr = s.SessionRegistry(info.ID).AddRawTool(mcp.Tool{Name: "welcome"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "hello"}}}, nil
		})
		if hookErr == nil {
			hookErr = s.SessionRegistry(info.ID).Disable(mcp.Match{Tags: []string{"admin"}})
		}
	}}
	for range 3 {
		e := mcptest.NewSession(t, s, &mcptest.Options{Handler: &mcphttp.Options{Hooks: hooks}}).Client()
		mu.Lock()
		require.NoError(t, hookErr)
		mu.Unlock()
		tools, err := e.ListTools(t.Context())
		require.NoError(t, err)
		assert.Equal(t, []string{"echo", "whoami", "unlock", "welcome"}, namesOf(tools))
		res, err := e.CallTool(t.Context(), "whoami", nil, nil)
		require.NoError(t, err)
		id := res.Content[0].(mcp.TextContent).Text
		assert.Equal(t, 1, s.SessionOverlays())
		require.NoError(t, e.Close())
		assert.Equal(t, 0, s.SessionOverlays(), "a session's own objects outlived it")
		assert.ErrorIs(t, s.SessionRegistry(id).AddRawTool(mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
			return nil, nil
		}), mcp.ErrNoSession)
	}
}

func TestDisableEnable(t *testing.T) {
	t.Parallel()
	all := []string{"echo", "admin_reset", "admin_read", "whoami", "unlock"}
	tests := []struct {
		name  string
		rules func(s *mcp.Server) error
		want  []string
	}{
		{"nothing", func(*mcp.Server) error { return nil }, all},
		{"by tag", func(s *mcp.Server) error { return s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}) },
			[]string{"echo", "whoami", "unlock"}},
		{"by name", func(s *mcp.Server) error { return s.Registry().Disable(mcp.Match{Names: []string{"echo", "unlock"}}) },
			[]string{"admin_reset", "admin_read", "whoami"}},
		{"names or tags", func(s *mcp.Server) error {
			return s.Registry().Disable(mcp.Match{Names: []string{"echo"}, Tags: []string{"write"}})
		}, []string{"admin_read", "whoami", "unlock"}},
		{"another kind matches no tool", func(s *mcp.Server) error {
			return s.Registry().Disable(mcp.Match{Kind: access.KindPrompt, Tags: []string{"basic"}})
		}, all},
		{"enable undoes disable", func(s *mcp.Server) error {
			return firstErr(s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}), s.Registry().Enable(mcp.Match{Tags: []string{"admin"}}))
		}, all},
		{"a later enable makes an exception", func(s *mcp.Server) error {
			return firstErr(s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}), s.Registry().Enable(mcp.Match{Names: []string{"admin_read"}}))
		}, []string{"echo", "admin_read", "whoami", "unlock"}},
		{"a later disable wins over an earlier enable", func(s *mcp.Server) error {
			return firstErr(s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}), s.Registry().Enable(mcp.Match{Names: []string{"admin_read"}}),
				s.Registry().Disable(mcp.Match{Names: []string{"admin_read"}}))
		}, []string{"echo", "whoami", "unlock"}},
		{"allow-list: everything off, then a tag on", func(s *mcp.Server) error {
			return firstErr(s.Registry().Disable(mcp.Match{Kind: access.KindTool}), s.Registry().Enable(mcp.Match{Tags: []string{"admin"}}))
		}, []string{"admin_reset", "admin_read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := visServer(t)
			require.NoError(t, tt.rules(s))
			assert.Equal(t, tt.want, namesOf(s.ListTools(t.Context(), nil)))
			sess := mcptest.NewSession(t, s, nil)
			assert.Equal(t, tt.want, namesOf(sess.ListTools()))
			for _, name := range all {
				_, err := sess.Client().CallTool(t.Context(), name, nil, nil)
				if slices.Contains(tt.want, name) {
					assert.NoError(t, err, name)
				} else {
					assert.ErrorContains(t, err, `Unknown tool: "`+name+`"`)
				}
			}
		})
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestDisableHidesResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	sess := mcptest.NewSession(t, s, nil)
	ctx := t.Context()
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"admin", "basic"}}))
	sess.WaitNotification("notifications/resources/list_changed", 5*time.Second)
	sess.WaitNotification("notifications/prompts/list_changed", 5*time.Second)
	res, err := sess.Client().ListResources(ctx)
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "mem://readme", res[0].URI)
	_, err = sess.Client().ReadResource(ctx, "mem://ops")
	assert.ErrorContains(t, err, "Resource not found")
	prompts, err := sess.Client().ListPrompts(ctx)
	require.NoError(t, err)
	assert.Empty(t, prompts)
	_, err = sess.Client().GetPrompt(ctx, "greet", nil)
	assert.ErrorContains(t, err, `Unknown prompt: "greet"`)
}

// TestRuleChangesNotifyWhatChanged watches the server's changes: a rule
// that changes what some session sees is announced for that kind, one
// that changes nothing is not announced at all.
func TestRuleChangesNotifyWhatChanged(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	var mu sync.Mutex
	var got []mcp.Change
	stop := s.Watch(func(ch mcp.Change) { mu.Lock(); got = append(got, ch); mu.Unlock() })
	defer stop()
	take := func() []mcp.Change {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"no-such-tag"}}))
	assert.Empty(t, take(), "a rule that hides nothing")
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}))
	assert.Equal(t, []mcp.Change{{Kind: mcp.ToolsChanged}, {Kind: mcp.ResourcesChanged}}, take())
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}))
	assert.Empty(t, take(), "the same rule again")
	require.NoError(t, s.Registry().Enable(mcp.Match{Kind: access.KindTool, Names: []string{"admin_read"}}))
	assert.Equal(t, []mcp.Change{{Kind: mcp.ToolsChanged}}, take())

	sess := mcptest.NewSession(t, s, nil)
	id := whoami(t, sess)
	take()
	require.NoError(t, s.SessionRegistry(id).Disable(mcp.Match{Names: []string{"greet"}}))
	assert.Equal(t, []mcp.Change{{Kind: mcp.PromptsChanged, SessionID: id}}, take())
	require.NoError(t, s.SessionRegistry(id).Enable(mcp.Match{Names: []string{"admin_reset"}}))
	assert.Equal(t, []mcp.Change{{Kind: mcp.ToolsChanged, SessionID: id}}, take())
	assert.Contains(t, namesOf(sess.ListTools()), "admin_reset", "a session's rule overrides the server's")
}

func TestPerSessionRules(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	require.NoError(t, s.SessionRegistry(idA).Disable(mcp.Match{Tags: []string{"admin"}}))
	a.WaitNotification("notifications/tools/list_changed", 5*time.Second)
	a.WaitNotification("notifications/resources/list_changed", 5*time.Second)
	settle(t, s, a, b)
	assert.False(t, hasNotification(b, "notifications/tools/list_changed"))
	assert.Equal(t, []string{"echo", "whoami", "unlock"}, namesOf(a.ListTools()))
	assert.Equal(t, []string{"echo", "admin_reset", "admin_read", "whoami", "unlock"}, namesOf(b.ListTools()))
	_, err := a.Client().CallTool(t.Context(), "admin_read", nil, nil)
	assert.ErrorContains(t, err, `Unknown tool: "admin_read"`)

	// A session's own tools obey the rules too.
	require.NoError(t, mcp.TryAddTool(s.SessionRegistry(idA), mcp.Tool{Name: "sudo", Tags: []string{"admin"}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }))
	assert.NotContains(t, namesOf(a.ListTools()), "sudo")
	require.NoError(t, s.SessionRegistry(idA).Enable(mcp.Match{Tags: []string{"admin"}}))
	assert.Contains(t, namesOf(a.ListTools()), "sudo")
}

// TestSessionEnableShowsWhatTheServerHides: a session's Enable, with no
// Disable of its own before it, shows that session what a server-wide
// rule hides (the last matching rule decides, the session's after the
// server's), tells that session alone, and leaves the others as they were.
func TestSessionEnableShowsWhatTheServerHides(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"admin"}}))
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	require.NotContains(t, namesOf(a.ListTools()), "admin_read")

	require.NoError(t, s.SessionRegistry(idA).Enable(mcp.Match{Tags: []string{"admin"}}))
	a.WaitNotification("notifications/tools/list_changed", 5*time.Second)
	settle(t, s, a, b)
	assert.False(t, hasNotification(b, "notifications/tools/list_changed"))
	assert.Equal(t, []string{"echo", "admin_reset", "admin_read", "whoami", "unlock"}, namesOf(a.ListTools()))
	assert.Equal(t, []string{"echo", "whoami", "unlock"}, namesOf(b.ListTools()))
	assert.NotEmpty(t, callText(t, a, "admin_read"), "and callable")
}

func TestPerSessionCallErrors(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	sess := mcptest.NewSession(t, s, nil)
	id := whoami(t, sess)
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }
	tests := []struct {
		name string
		err  error
		want error
		text string
	}{
		{"empty session ID", mcp.TryAddTool(s.SessionRegistry(""), mcp.Tool{Name: "x"}, noop), mcp.ErrNoSession, "stateless HTTP and revision 2026-07-28"},
		{"unknown session", s.SessionRegistry("nope").Disable(mcp.Match{}), mcp.ErrNoSession, `session "nope" is not live`},
		{"remove in unknown session", s.SessionRegistry("nope").Remove(access.KindTool, "x"), mcp.ErrNoSession, ""},
		{"resource in unknown session", s.SessionRegistry("nope").AddResource(mcp.Resource{URI: "a://b", Name: "b", Load: load}), mcp.ErrNoSession, ""},
		{"bad kind", s.Registry().Disable(mcp.Match{Kind: "widget"}), mcp.ErrInvalidDefinition, `Match.Kind "widget"`},
		{"bad kind for a session", s.SessionRegistry(id).Enable(mcp.Match{Kind: "widget"}), mcp.ErrInvalidDefinition, ""},
		{"bad tool name", mcp.TryAddTool(s.SessionRegistry(id), mcp.Tool{Name: "a b"}, noop), mcp.ErrInvalidToolName, ""},
		{"nil raw tool", s.SessionRegistry(id).AddRawTool(mcp.Tool{Name: "raw"}, nil), mcp.ErrInvalidDefinition, "nil"},
		{"bad resource", s.SessionRegistry(id).AddResource(mcp.Resource{URI: "no scheme", Name: "x", Load: load}), mcp.ErrInvalidDefinition, ""},
		{"template without variable", s.SessionRegistry(id).AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "a://b", Name: "x",
			Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
				return nil, nil
			}}), mcp.ErrInvalidDefinition, ""},
		{"prompt without load", s.SessionRegistry(id).AddPrompt(mcp.Prompt{Name: "p"}), mcp.ErrInvalidDefinition, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, tt.err, tt.want)
			assert.Contains(t, tt.err.Error(), tt.text)
		})
	}
	assert.Equal(t, 0, s.SessionOverlays(), "a refused registration left state behind")
}

func TestAccessPolicySeesSessionAndTags(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	var mu sync.Mutex
	seen := map[string]bool{}
	policy := func(_ context.Context, q access.Query) bool {
		mu.Lock()
		seen[q.SessionID] = true
		mu.Unlock()
		return !slices.Contains(q.Tags, "admin") || q.Auth == "root"
	}
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(access.WithPolicy(r.Context(), policy)))
		})
	}
	user := mcptest.NewSession(t, s, &mcptest.Options{SessionAuth: "user", Middleware: []func(http.Handler) http.Handler{mw}})
	root := mcptest.NewSession(t, s, &mcptest.Options{SessionAuth: "root", Middleware: []func(http.Handler) http.Handler{mw}})
	assert.Equal(t, []string{"echo", "whoami", "unlock"}, namesOf(user.ListTools()))
	assert.Equal(t, []string{"echo", "admin_reset", "admin_read", "whoami", "unlock"}, namesOf(root.ListTools()))
	_, err := user.Client().CallTool(t.Context(), "admin_reset", nil, nil)
	assert.ErrorContains(t, err, `Unknown tool: "admin_reset"`)
	id := whoami(t, user)
	mu.Lock()
	assert.True(t, seen[id], "the policy never saw the session ID")
	mu.Unlock()

	// Policies compose: both must admit.
	noEcho := func(_ context.Context, q access.Query) bool { return q.Name != "echo" }
	ctx := access.WithPolicy(access.WithPolicy(t.Context(), policy), noEcho)
	assert.Equal(t, []string{"whoami", "unlock"}, namesOf(s.ListTools(ctx, "user")))
}

// TestSessionEndRacesRegistration registers per-session tools while the
// sessions end: whatever the interleaving, a registration either fails
// with ErrNoSession or is dropped with its session, so nothing is left.
func TestSessionEndRacesRegistration(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	ids := make(chan string, 1)
	hooks := &mcphttp.SessionHooks{OnStart: func(info mcphttp.SessionInfo) { ids <- info.ID }}
	noop := func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) { return nil, nil }
	var wg sync.WaitGroup
	for range 20 {
		e := mcptest.NewSession(t, s, &mcptest.Options{Handler: &mcphttp.Options{Hooks: hooks}}).Client()
		id := <-ids
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				err := s.SessionRegistry(id).AddRawTool(mcp.Tool{Name: fmt.Sprintf("t%d", i)}, noop)
				if err == nil {
					err = s.SessionRegistry(id).Disable(mcp.Match{Names: []string{"echo"}})
				}
				if errors.Is(err, mcp.ErrNoSession) {
					return
				}
				assert.NoError(t, err)
			}
		}()
		go func() {
			defer wg.Done()
			time.Sleep(time.Millisecond)
			assert.NoError(t, e.Close())
		}()
	}
	wg.Wait()
	assert.Equal(t, 0, s.SessionOverlays())
}

// TestListInsideATool: Server.ListTools called with a tool's context is
// that tool's session's list, its own tools and rules included.
func TestListInsideATool(t *testing.T) {
	t.Parallel()
	s := visServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "mine"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return strings.Join(namesOf(s.ListTools(ctx, c.Session)), ","), nil
	})
	a := mcptest.NewSession(t, s, nil)
	b := mcptest.NewSession(t, s, nil)
	idA := whoami(t, a)
	require.NoError(t, mcp.TryAddTool(s.SessionRegistry(idA), mcp.Tool{Name: "extra"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", nil
	}))
	require.NoError(t, s.SessionRegistry(idA).Disable(mcp.Match{Tags: []string{"admin"}}))
	assert.Equal(t, "echo,whoami,unlock,mine,extra", callText(t, a, "mine"))
	assert.Equal(t, "echo,admin_reset,admin_read,whoami,unlock,mine", callText(t, b, "mine"))
}

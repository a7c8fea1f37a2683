package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
)

// textTool is a tool without arguments that returns v.
func textTool(v string) mcp.ToolFunc[struct{}, string] {
	return func(context.Context, *mcp.Context, struct{}) (string, error) { return v, nil }
}

func textLoad(v string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
	return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: v}}, nil
	}
}

func promptText(v string) func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
	return func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText(v), nil
	}
}

// kidServer is a child with one object of each kind, each answering with
// who it is (name).
func kidServer(t testing.TB, name string) *mcp.Server {
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "hello", Tags: []string{"greeting"}}, textTool(name+" hello"))
	s.AddResource(mcp.Resource{URI: "mem://readme", Name: "readme", Load: textLoad(name + " readme")})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://doc/{id}", Name: "doc",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: name + " doc " + args["id"]}}, nil
		}})
	s.AddPrompt(mcp.Prompt{Name: "intro", Load: promptText(name + " intro")})
	return s
}

func resourceURIs(rs []mcp.Resource) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URI
	}
	return out
}

func templateURIs(ts []mcp.ResourceTemplate) []string {
	out := make([]string, len(ts))
	for i, r := range ts {
		out[i] = r.URITemplate
	}
	return out
}

func promptNames(ps []mcp.Prompt) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func listAllOf(t *testing.T, s *mcptest.Session) (tools, resources, templates, prompts []string) {
	t.Helper()
	ctx := t.Context()
	rs, err := s.Client().ListResources(ctx)
	require.NoError(t, err)
	ts, err := s.Client().ListResourceTemplates(ctx)
	require.NoError(t, err)
	ps, err := s.Client().ListPrompts(ctx)
	require.NoError(t, err)
	return namesOf(s.ListTools()), resourceURIs(rs), templateURIs(ts), promptNames(ps)
}

func readText(t *testing.T, s *mcptest.Session, uri string) string {
	t.Helper()
	r := s.ReadResource(uri)
	require.Len(t, r.Contents, 1)
	return r.Contents[0].Text
}

func promptOf(t *testing.T, s *mcptest.Session, name string) string {
	t.Helper()
	return s.GetPrompt(name, nil).Messages[0].Content.(mcp.TextContent).Text
}

// TestMountNamesObjects lists and uses a parent with its own objects, a
// child under a prefix, a grandchild below it and a child without a
// prefix, at both revisions.
func TestMountNamesObjects(t *testing.T) {
	t.Parallel()
	for _, rev := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(rev), func(t *testing.T) {
			parent := newServer(t)
			mcp.AddTool(parent, mcp.Tool{Name: "own"}, textTool("parent own"))
			kid, grand, flat := kidServer(t, "kid"), kidServer(t, "grand"), newServer(t)
			mcp.AddTool(flat, mcp.Tool{Name: "plain"}, textTool("flat plain"))
			flat.AddResource(mcp.Resource{URI: "urn:flat:one", Name: "one", Load: textLoad("flat urn")})
			kid.AddResource(mcp.Resource{URI: "urn:kid:hidden", Name: "urn", Load: textLoad("no place for a prefix")})
			kid.Mount("g", grand, nil)
			parent.Mount("kid", kid, nil)
			parent.Mount("", flat, nil)
			s := mcptest.NewSession(t, parent, &mcptest.Options{Client: client.Options{ProtocolVersion: rev}})

			tools, resources, templates, prompts := listAllOf(t, s)
			assert.Equal(t, []string{"own", "kid_hello", "kid_g_hello", "plain"}, tools)
			assert.Equal(t, []string{"mem://kid/readme", "mem://kid/g/readme", "urn:flat:one"}, resources)
			assert.Equal(t, []string{"mem://kid/doc/{id}", "mem://kid/g/doc/{id}"}, templates)
			assert.Equal(t, []string{"kid_intro", "kid_g_intro"}, prompts)

			for _, tc := range []struct{ name, want string }{
				{"own", "parent own"}, {"kid_hello", "kid hello"}, {"kid_g_hello", "grand hello"}, {"plain", "flat plain"},
			} {
				assert.Equal(t, tc.want, callText(t, s, tc.name), tc.name)
			}
			for _, tc := range []struct{ uri, want string }{
				{"mem://kid/readme", "kid readme"},
				{"mem://kid/g/readme", "grand readme"},
				{"mem://kid/doc/7", "kid doc 7"},
				{"mem://kid/g/doc/8", "grand doc 8"},
				{"urn:flat:one", "flat urn"},
			} {
				r := s.ReadResource(tc.uri)
				require.Len(t, r.Contents, 1, tc.uri)
				assert.Equal(t, tc.want, r.Contents[0].Text, tc.uri)
				assert.Equal(t, tc.uri, r.Contents[0].URI, "the contents carry the URI the client asked")
			}
			assert.Equal(t, "kid intro", promptOf(t, s, "kid_intro"))
			assert.Equal(t, "grand intro", promptOf(t, s, "kid_g_intro"))

			ctx := t.Context()
			for _, name := range []string{"hello", "kid_", "kid_nope", "g_hello", "kid_g_"} {
				_, err := s.Client().CallTool(ctx, name, nil, nil)
				require.Error(t, err, name)
				assert.Contains(t, err.Error(), `Unknown tool: "`+name+`"`)
			}
			for _, uri := range []string{"mem://readme", "mem://kid/nope", "urn:kid:hidden", "mem://g/readme"} {
				_, err := s.Client().ReadResource(ctx, uri)
				require.Error(t, err, uri)
				assert.Contains(t, err.Error(), "Resource not found", uri)
			}
			_, err := s.Client().GetPrompt(ctx, "intro", nil)
			require.Error(t, err)
		})
	}
}

// TestMountParentWins: the parent's own object hides a mounted one of the
// same name, and of two mounts without a prefix the first wins.
func TestMountParentWins(t *testing.T) {
	t.Parallel()
	parent := newServer(t)
	mcp.AddTool(parent, mcp.Tool{Name: "kid_hello"}, textTool("parent's kid_hello"))
	mcp.AddTool(parent, mcp.Tool{Name: "x"}, textTool("parent's x"))
	one, two := newServer(t), newServer(t)
	for _, c := range []struct {
		s    *mcp.Server
		name string
	}{{one, "one"}, {two, "two"}} {
		mcp.AddTool(c.s, mcp.Tool{Name: "x"}, textTool(c.name+"'s x"))
		mcp.AddTool(c.s, mcp.Tool{Name: "y"}, textTool(c.name+"'s y"))
	}
	parent.Mount("kid", kidServer(t, "kid"), nil)
	parent.Mount("", one, nil)
	parent.Mount("", two, nil)
	s := mcptest.NewSession(t, parent, nil)
	assert.Equal(t, []string{"kid_hello", "x", "y"}, namesOf(s.ListTools()))
	assert.Equal(t, "parent's kid_hello", callText(t, s, "kid_hello"))
	assert.Equal(t, "parent's x", callText(t, s, "x"))
	assert.Equal(t, "one's y", callText(t, s, "y"))
}

// countOf is the number of notifications with method s got so far.
func countOf(s *mcptest.Session, method string) int {
	n := 0
	for _, x := range s.Notifications() {
		if x.Method == method {
			n++
		}
	}
	return n
}

// waitMore waits until s got more than before notifications with method.
func waitMore(t *testing.T, s *mcptest.Session, method string, before int) {
	t.Helper()
	require.Eventually(t, func() bool { return countOf(s, method) > before }, 5*time.Second, 5*time.Millisecond, method)
}

// TestMountIsLive: what the child registers or removes after the mount
// shows in the parent, whose clients are sent list_changed; Unmount takes
// it all away.
func TestMountIsLive(t *testing.T) {
	t.Parallel()
	parent, kid := newServer(t), newServer(t)
	m := parent.Mount("kid", kid, nil)
	s := mcptest.NewSession(t, parent, nil)
	tools, resources, templates, prompts := listAllOf(t, s)
	require.Empty(t, slices.Concat(tools, resources, templates, prompts))

	for _, tc := range []struct {
		name   string
		method string
		change func()
		check  func() bool
	}{
		{"add tool", "notifications/tools/list_changed",
			func() { mcp.AddTool(kid, mcp.Tool{Name: "late"}, textTool("late")) },
			func() bool { return slices.Contains(namesOf(s.ListTools()), "kid_late") }},
		{"add resource", "notifications/resources/list_changed",
			func() { kid.AddResource(mcp.Resource{URI: "mem://late", Name: "late", Load: textLoad("late")}) },
			func() bool { _, r, _, _ := listAllOf(t, s); return slices.Contains(r, "mem://kid/late") }},
		{"add template", "notifications/resources/list_changed",
			func() {
				kid.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://late/{x}", Name: "late",
					Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
						return nil, nil
					}})
			},
			func() bool { _, _, tm, _ := listAllOf(t, s); return slices.Contains(tm, "mem://kid/late/{x}") }},
		{"add prompt", "notifications/prompts/list_changed",
			func() { kid.AddPrompt(mcp.Prompt{Name: "late", Load: promptText("late")}) },
			func() bool { _, _, _, p := listAllOf(t, s); return slices.Contains(p, "kid_late") }},
		{"remove tool", "notifications/tools/list_changed",
			func() { kid.Registry().Remove(access.KindTool, "late") },
			func() bool { return !slices.Contains(namesOf(s.ListTools()), "kid_late") }},
		{"remove resource", "notifications/resources/list_changed",
			func() { kid.Registry().Remove(access.KindResource, "mem://late") },
			func() bool { _, r, _, _ := listAllOf(t, s); return len(r) == 0 }},
		{"remove template", "notifications/resources/list_changed",
			func() { kid.Registry().Remove(access.KindResource, "mem://late/{x}") },
			func() bool { _, _, tm, _ := listAllOf(t, s); return len(tm) == 0 }},
		{"remove prompt", "notifications/prompts/list_changed",
			func() { kid.Registry().Remove(access.KindPrompt, "late") },
			func() bool { _, _, _, p := listAllOf(t, s); return len(p) == 0 }},
	} {
		before := countOf(s, tc.method)
		tc.change()
		waitMore(t, s, tc.method, before)
		assert.True(t, tc.check(), tc.name)
	}

	mcp.AddTool(kid, mcp.Tool{Name: "again"}, textTool("again"))
	assert.Equal(t, "again", callText(t, s, "kid_again"))
	before := countOf(s, "notifications/tools/list_changed")
	m.Unmount()
	waitMore(t, s, "notifications/tools/list_changed", before)
	assert.Empty(t, s.ListTools())
	_, err := s.Client().CallTool(t.Context(), "kid_again", nil, nil)
	require.Error(t, err)
	m.Unmount() // a second time does nothing

	// Unmounted, the child's changes no longer reach the parent's clients.
	before = countOf(s, "notifications/tools/list_changed")
	mcp.AddTool(kid, mcp.Tool{Name: "after"}, textTool("after"))
	settle(t, parent, s)
	assert.Equal(t, before, countOf(s, "notifications/tools/list_changed"))
	// The prefix is free again.
	parent.Mount("kid", newServer(t), nil)
}

// TestImportIsStatic: Import copies the child's objects as they are; the
// child's later changes do not reach the parent.
func TestImportIsStatic(t *testing.T) {
	t.Parallel()
	parent, kid := newServer(t), kidServer(t, "kid")
	mcp.AddTool(kid, mcp.Tool{Name: "off"}, textTool("off"))
	require.NoError(t, kid.Registry().Disable(mcp.Match{Names: []string{"off"}}))
	parent.Import("kid", kid, &mcp.MountOptions{Tags: []string{"imported"}})
	s := mcptest.NewSession(t, parent, nil)

	want := func() {
		tools, resources, templates, prompts := listAllOf(t, s)
		assert.Equal(t, []string{"kid_hello"}, tools)
		assert.Equal(t, []string{"mem://kid/readme"}, resources)
		assert.Equal(t, []string{"mem://kid/doc/{id}"}, templates)
		assert.Equal(t, []string{"kid_intro"}, prompts)
		assert.Equal(t, "kid hello", callText(t, s, "kid_hello"))
		assert.Equal(t, "kid readme", readText(t, s, "mem://kid/readme"))
		assert.Equal(t, "kid doc 3", readText(t, s, "mem://kid/doc/3"))
		assert.Equal(t, "kid intro", promptOf(t, s, "kid_intro"))
	}
	want()
	mcp.AddTool(kid, mcp.Tool{Name: "late"}, textTool("late"))
	kid.AddPrompt(mcp.Prompt{Name: "late", Load: promptText("late")})
	kid.Registry().Remove(access.KindTool, "hello")
	kid.Registry().Remove(access.KindResource, "mem://readme")
	require.NoError(t, kid.Registry().Enable(mcp.Match{Names: []string{"off"}}))
	want()

	// The copies are the parent's own: its rules select them by the mount's tags.
	require.NoError(t, parent.Registry().Disable(mcp.Match{Tags: []string{"imported"}}))
	tools, resources, _, prompts := listAllOf(t, s)
	assert.Empty(t, slices.Concat(tools, resources, prompts))

	// A name taken refuses the whole import.
	other := newServer(t)
	mcp.AddTool(other, mcp.Tool{Name: "fresh"}, textTool("fresh"))
	mcp.AddTool(other, mcp.Tool{Name: "hello"}, textTool("hello"))
	err := parent.Registry().Import("kid", other, nil)
	require.ErrorIs(t, err, mcp.ErrAlreadyRegistered)
	assert.NotContains(t, namesOf(parent.ListTools(t.Context(), nil)), "kid_fresh")
	require.NoError(t, parent.Registry().Enable(mcp.Match{Tags: []string{"imported"}}))
	assert.Equal(t, []string{"kid_hello"}, namesOf(parent.ListTools(t.Context(), nil)))
}

// TestMountRefusals: bad prefixes, a nil child, a prefix taken and every
// kind of cycle are refused with a clear error, and change nothing.
func TestMountRefusals(t *testing.T) {
	t.Parallel()
	a, b, c := newServer(t), newServer(t), newServer(t)
	a.Mount("b", b, nil)
	b.Mount("c", c, nil)
	for _, tc := range []struct {
		name   string
		mount  func() error
		is     error
		substr string
	}{
		{"itself", func() error { _, err := a.Registry().Mount("self", a, nil); return err }, mcp.ErrInvalidDefinition, "cannot be mounted into itself"},
		{"its parent", func() error { _, err := b.Registry().Mount("a", a, nil); return err }, mcp.ErrInvalidDefinition, "would make a cycle"},
		{"its grandparent", func() error { _, err := c.Registry().Mount("a", a, nil); return err }, mcp.ErrInvalidDefinition, "would make a cycle"},
		{"prefix taken", func() error { _, err := a.Registry().Mount("b", c, nil); return err }, mcp.ErrAlreadyRegistered, `mount prefix "b"`},
		{"underscore", func() error { _, err := a.Registry().Mount("a_b", c, nil); return err }, mcp.ErrInvalidDefinition, "no underscore"},
		{"slash", func() error { _, err := a.Registry().Mount("a/b", c, nil); return err }, mcp.ErrInvalidDefinition, "1 to 64"},
		{"nil child", func() error { _, err := a.Registry().Mount("n", nil, nil); return err }, mcp.ErrInvalidDefinition, "nil"},
		{"import bad prefix", func() error { return a.Registry().Import("a.b", c, nil) }, mcp.ErrInvalidDefinition, "prefix"},
		{"import nil", func() error { return a.Registry().Import("n", nil, nil) }, mcp.ErrInvalidDefinition, "nil"},
	} {
		err := tc.mount()
		require.ErrorIs(t, err, tc.is, tc.name)
		assert.Contains(t, err.Error(), tc.substr, tc.name)
	}
	assert.PanicsWithValue(t, `mcp: Mount: invalid definition: mount "self": a server cannot be mounted into itself`, func() { a.Mount("self", a, nil) })
	// The same child twice, under two prefixes, is no cycle.
	_, err := a.Registry().Mount("c", c, nil)
	require.NoError(t, err)
}

// TestMountContextPassesThrough: the child's tool gets the parent's
// request Context, so its session, client, log, progress, sampling and
// elicitation are the parent's client's.
func TestMountContextPassesThrough(t *testing.T) {
	t.Parallel()
	parent, kid := newServer(t), newServer(t)
	mcp.AddTool(parent, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	type seen struct {
		sessionID, client, version string
		auth                       any
		sample, elicit, root       string
		progressErr, streamErr     error
	}
	got := make(chan seen, 1)
	mcp.AddTool(kid, mcp.Tool{Name: "probe"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		v := seen{sessionID: c.SessionID, client: c.Client.Name, version: string(c.ProtocolVersion), auth: c.Session}
		if mcp.FromContext(ctx) != c {
			return "", mcp.UserErrorf("FromContext is not the tool's Context")
		}
		c.Log.Info("from the kid")
		v.progressErr = c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: "half"})
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 5, Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return "", err
		}
		v.sample = res.Content.(mcp.TextContent).Text
		e, err := elicit.Create(ctx, c, &elicit.Params{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "string"}}}})
		if err != nil {
			return "", err
		}
		v.elicit = e.Content["n"].(string)
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		v.root = roots[0].URI
		v.streamErr = c.StreamContent(ctx, mcp.TextContent{Text: "part"})
		got <- v
		return "ok", nil
	})
	parent.Mount("kid", kid, nil)
	s := mcptest.NewSession(t, parent, &mcptest.Options{SessionAuth: "alice", Client: client.Options{Info: mcp.Implementation{Name: "probe-client", Version: "1.0.0"}, Sample: mcptest.SampleReply("sampled"), Elicit: mcptest.ElicitAccept(map[string]any{"n": "ada"}),
		Roots: mcptest.RootsOf("file:///work")}})
	s.SetLogLevel(mcp.LevelDebug)
	id := whoami(t, s)

	res, reports := s.CallToolProgress("kid_probe", map[string]any{})
	require.False(t, res.IsError, "%v", res.Content)
	require.Len(t, reports, 1, "the kid's report reached the call's progress callback")
	assert.Equal(t, "half", reports[0].Message)
	v := <-got
	assert.Equal(t, id, v.sessionID)
	assert.Equal(t, "probe-client", v.client)
	assert.Equal(t, "2025-11-25", v.version)
	assert.Equal(t, "alice", v.auth)
	assert.Equal(t, "sampled", v.sample)
	assert.Equal(t, "ada", v.elicit)
	assert.Equal(t, "file:///work", v.root)
	require.NoError(t, v.progressErr)
	require.NoError(t, v.streamErr)

	var progress, logged, streamed bool
	for _, n := range s.Notifications() {
		switch n.Method {
		case "notifications/progress":
			var p struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Message       string          `json:"message"`
			}
			require.NoError(t, json.Unmarshal(n.Params, &p))
			progress = len(p.ProgressToken) > 0 && p.Message == "half"
		case "notifications/message":
			var m struct {
				Logger string         `json:"logger"`
				Data   map[string]any `json:"data"`
			}
			require.NoError(t, json.Unmarshal(n.Params, &m))
			logged = logged || m.Data["message"] == "from the kid" && m.Logger == "kid_probe"
		case "notifications/tool/streamContent":
			var p struct {
				ToolName string `json:"toolName"`
			}
			require.NoError(t, json.Unmarshal(n.Params, &p))
			streamed = p.ToolName == "kid_probe"
		}
	}
	assert.True(t, progress, "the kid's progress reached the client: %v", s.Notifications())
	assert.True(t, logged, "the kid's log reached the client under the tool's name there: %v", s.Notifications())
	assert.True(t, streamed, "the kid's streamed content reached the client: %v", s.Notifications())
}

// TestMountChecks: every check applies to a mounted object, in the
// documented order: the mount's CanAccess, the child's checks under the
// child's name, then the parent's rules and the request's policies under
// the prefixed name.
func TestMountChecks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var trace []string
	note := func(s string) {
		mu.Lock()
		trace = append(trace, s)
		mu.Unlock()
	}
	kid := newServer(t)
	mcp.AddTool(kid, mcp.Tool{Name: "open", Tags: []string{"public"}}, textTool("open"))
	mcp.AddTool(kid, mcp.Tool{Name: "guarded", CanAccess: func(_ context.Context, auth any) bool {
		note("child CanAccess")
		return auth == "admin"
	}}, textTool("guarded"))
	mcp.AddTool(kid, mcp.Tool{Name: "slow", Timeout: 20 * time.Millisecond}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	mcp.AddTool(kid, mcp.Tool{Name: "off"}, textTool("off"))
	require.NoError(t, kid.Registry().Disable(mcp.Match{Names: []string{"off"}}))
	parent := newServer(t)
	parent.Mount("kid", kid, &mcp.MountOptions{Tags: []string{"kids"}, CanAccess: func(_ context.Context, auth any) bool {
		note("mount CanAccess")
		return auth != "stranger"
	}})
	policy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := access.WithPolicy(r.Context(), func(_ context.Context, q access.Query) bool {
				if q.Name == "kid_guarded" {
					note("policy " + q.Name)
				}
				return q.Name != "kid_open" || q.Auth != "no-open"
			})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	session := func(auth string) *mcptest.Session {
		return mcptest.NewSession(t, parent, &mcptest.Options{SessionAuth: auth, Middleware: []func(http.Handler) http.Handler{policy}})
	}
	admin, guest, stranger, noOpen := session("admin"), session("guest"), session("stranger"), session("no-open")

	for _, tc := range []struct {
		who  *mcptest.Session
		want []string
	}{
		{admin, []string{"kid_open", "kid_guarded", "kid_slow"}},
		{guest, []string{"kid_open", "kid_slow"}},
		{stranger, []string{}},
		{noOpen, []string{"kid_slow"}},
	} {
		assert.Equal(t, tc.want, namesOf(tc.who.ListTools()))
	}

	mu.Lock()
	trace = nil
	mu.Unlock()
	assert.Equal(t, "guarded", callText(t, admin, "kid_guarded"))
	mu.Lock()
	assert.Equal(t, []string{"mount CanAccess", "child CanAccess", "policy kid_guarded"}, trace)
	mu.Unlock()
	for _, who := range []*mcptest.Session{guest, stranger} {
		_, err := who.Client().CallTool(t.Context(), "kid_guarded", nil, nil)
		require.Error(t, err)
	}
	_, err := noOpen.Client().CallTool(t.Context(), "kid_open", nil, nil)
	require.Error(t, err, "the request's policy judges the prefixed name")

	// The child's Timeout applies; the message names the tool as called.
	res := admin.CallTool("kid_slow", nil, nil)
	require.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(mcp.TextContent).Text, `Tool "kid_slow" timed out`)

	// The parent's rules: by prefixed name, by the child's tags, by the mount's tags.
	for _, tc := range []struct {
		m    mcp.Match
		want []string
	}{
		{mcp.Match{Names: []string{"kid_slow"}}, []string{"kid_open", "kid_guarded"}},
		{mcp.Match{Names: []string{"slow"}}, []string{"kid_open", "kid_guarded", "kid_slow"}},
		{mcp.Match{Tags: []string{"public"}}, []string{"kid_guarded", "kid_slow"}},
		{mcp.Match{Tags: []string{"kids"}}, []string{}},
	} {
		before := countOf(admin, "notifications/tools/list_changed")
		require.NoError(t, parent.Registry().Disable(tc.m))
		assert.Equal(t, tc.want, namesOf(admin.ListTools()), "%+v", tc.m)
		if len(tc.want) < 3 {
			waitMore(t, admin, "notifications/tools/list_changed", before)
		}
		if !slices.Contains(tc.want, "kid_open") {
			_, err := admin.Client().CallTool(t.Context(), "kid_open", nil, nil)
			require.Error(t, err, "%+v", tc.m)
		}
		require.NoError(t, parent.Registry().Enable(tc.m))
	}
	// The child's per-session rule, for a session of the parent.
	id := whoamiOf(t, parent, admin)
	require.NoError(t, kid.SessionRegistry(id).Disable(mcp.Match{Names: []string{"open"}}))
	assert.Equal(t, []string{"whoami", "kid_guarded", "kid_slow"}, namesOf(admin.ListTools()))
	assert.Equal(t, []string{"whoami", "kid_open", "kid_slow"}, namesOf(guest.ListTools()))
}

// whoamiOf adds a whoami tool to s (once) and returns the session's ID.
func whoamiOf(t *testing.T, s *mcp.Server, sess *mcptest.Session) string {
	t.Helper()
	_ = mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	return whoami(t, sess)
}

// TestMountSessionObjects: the child's per-session objects for a session
// of the parent appear in that session alone, which is told.
func TestMountSessionObjects(t *testing.T) {
	t.Parallel()
	parent, kid := newServer(t), newServer(t)
	mcp.AddTool(kid, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "unlocked", mcp.TryAddTool(kid.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret"}, textTool("secret of "+c.SessionID))
	})
	kidMount := parent.Mount("kid", kid, nil)
	mcp.AddTool(parent, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	a, b := mcptest.NewSession(t, parent, nil), mcptest.NewSession(t, parent, nil)
	idA := whoami(t, a)

	// Unknown to the parent's transports, a session is not live for the child either.
	require.ErrorIs(t, mcp.TryAddTool(kid.SessionRegistry("no-such-session"), mcp.Tool{Name: "x"}, textTool("x")), mcp.ErrNoSession)

	assert.Equal(t, "unlocked", callText(t, a, "kid_unlock"))
	a.WaitNotification("notifications/tools/list_changed", 5*time.Second)
	settle(t, parent, a, b)
	assert.False(t, hasNotification(b, "notifications/tools/list_changed"))
	assert.Contains(t, namesOf(a.ListTools()), "kid_secret")
	assert.NotContains(t, namesOf(b.ListTools()), "kid_secret")
	assert.Equal(t, "secret of "+idA, callText(t, a, "kid_secret"))
	_, err := b.Client().CallTool(t.Context(), "kid_secret", nil, nil)
	require.Error(t, err)

	// Unmounted, the child forgets the parent's sessions: mounted again,
	// the session's tool is gone.
	kidMount.Unmount()
	require.ErrorIs(t, mcp.TryAddTool(kid.SessionRegistry(idA), mcp.Tool{Name: "z"}, textTool("z")), mcp.ErrNoSession)
	parent.Mount("kid", kid, nil)
	assert.NotContains(t, namesOf(a.ListTools()), "kid_secret")
	assert.Equal(t, "unlocked", callText(t, a, "kid_unlock"))
	assert.Equal(t, "secret of "+idA, callText(t, a, "kid_secret"))

	// When the session ends, the child drops what it kept for it.
	require.NoError(t, a.Client().Close())
	require.Eventually(t, func() bool {
		return mcp.TryAddTool(kid.SessionRegistry(idA), mcp.Tool{Name: "y"}, textTool("y")) != nil
	}, 5*time.Second, 5*time.Millisecond)
}

// TestMountCompletion completes the arguments of a child's prompt and
// template through the parent.
func TestMountCompletion(t *testing.T) {
	t.Parallel()
	kid := newServer(t)
	colors := func(_ context.Context, v string, _ map[string]string) ([]string, error) {
		return slices.DeleteFunc([]string{"red", "rose", "blue"}, func(c string) bool { return len(v) > 0 && c[0] != v[0] }), nil
	}
	kid.AddPrompt(mcp.Prompt{Name: "paint", Arguments: []mcp.PromptArgument{{Name: "color", Complete: colors}, {Name: "size", Enum: []string{"small", "large"}}},
		Load: promptText("paint")})
	kid.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "paint://{color}", Name: "pot",
		Arguments: []mcp.TemplateArgument{{Name: "color", Complete: colors}},
		Load: func(_ context.Context, _ *mcp.Context, a map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: a["color"]}}, nil
		}})
	parent := newServer(t)
	parent.Mount("kid", kid, nil)
	s := mcptest.NewSession(t, parent, nil)
	for _, tc := range []struct {
		ref        mcp.CompletionRef
		arg, value string
		want       []string
	}{
		{mcp.CompletionRef{Type: "ref/prompt", Name: "kid_paint"}, "color", "r", []string{"red", "rose"}},
		{mcp.CompletionRef{Type: "ref/prompt", Name: "kid_paint"}, "size", "l", []string{"large"}},
		{mcp.CompletionRef{Type: "ref/resource", URI: "paint://kid/{color}"}, "color", "b", []string{"blue"}},
	} {
		assert.Equal(t, tc.want, s.Complete(tc.ref, tc.arg, tc.value, nil).Values, "%+v", tc.ref)
	}
	for _, ref := range []mcp.CompletionRef{{Type: "ref/prompt", Name: "paint"}, {Type: "ref/resource", URI: "paint://{color}"}} {
		_, err := s.Client().Complete(t.Context(), ref, "color", "", nil)
		require.Error(t, err, "%+v", ref)
	}
	assert.Equal(t, "rose", readText(t, s, "paint://kid/rose"))
}

// TestMountResourceUpdated: the child's ResourceUpdated reaches the
// parent's subscribers under the prefixed URI; contents URIs the child's
// loader sets are prefixed too.
func TestMountResourceUpdated(t *testing.T) {
	t.Parallel()
	kid := newServer(t)
	kid.AddResource(mcp.Resource{URI: "mem://stock", Name: "stock", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: "mem://stock/part", Text: "3"}, {URI: "urn:x", Text: "as is"}}, nil
	}})
	parent := newServer(t)
	parent.Mount("kid", kid, nil)
	s := mcptest.NewSession(t, parent, nil)
	require.NoError(t, s.Client().Call(t.Context(), "resources/subscribe", map[string]string{"uri": "mem://kid/stock"}, nil))
	kid.ResourceUpdated("mem://stock")
	n := s.WaitNotification("notifications/resources/updated", 5*time.Second)
	var p struct {
		URI string `json:"uri"`
	}
	require.NoError(t, json.Unmarshal(n.Params, &p))
	assert.Equal(t, "mem://kid/stock", p.URI)

	r := s.ReadResource("mem://kid/stock")
	require.Len(t, r.Contents, 2)
	assert.Equal(t, "mem://kid/stock/part", r.Contents[0].URI)
	assert.Equal(t, "urn:x", r.Contents[1].URI)

	kid.LogToClients(mcp.LevelWarning, "broadcast from the kid", nil)
	s.WaitNotification("notifications/message", 5*time.Second)
}

// TestMountApps: a child's MCP App is the parent's: its tool links the
// prefixed view, the parent declares the extension, and a client without
// it sees neither the app-only tool nor the view.
func TestMountApps(t *testing.T) {
	t.Parallel()
	kid := newServer(t)
	kid.AddAppResource(mcp.AppResource{URI: "ui://kid/view.html", Name: "view", HTML: viewHTML})
	mcp.AddTool(kid, mcp.Tool{Name: "show", UI: &apps.ToolUI{ResourceURI: "ui://kid/view.html"}}, textTool("shown"))
	mcp.AddTool(kid, mcp.Tool{Name: "refresh", UI: &apps.ToolUI{ResourceURI: "ui://kid/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, textTool("refreshed"))
	parent := newServer(t)
	parent.Mount("k", kid, nil)

	host := mcptest.NewSession(t, parent, &mcptest.Options{Client: client.Options{Extensions: map[string]any{apps.Extension: map[string]any{"mimeTypes": []string{apps.MIMEType}}}}})
	plain := mcptest.NewSession(t, parent, nil)
	tools := host.ListTools()
	assert.Equal(t, []string{"k_show", "k_refresh"}, namesOf(tools))
	assert.Equal(t, "ui://k/kid/view.html", tools[0].Meta["ui"].(map[string]any)["resourceUri"])
	_, rs, _, _ := listAllOf(t, host)
	assert.Equal(t, []string{"ui://k/kid/view.html"}, rs)
	assert.Contains(t, readText(t, host, "ui://k/kid/view.html"), "<html")

	assert.Equal(t, []string{"k_show"}, namesOf(plain.ListTools()))
	_, rs, _, _ = listAllOf(t, plain)
	assert.Empty(t, rs)
}

// TestMountInterceptor: the parent's interceptors wrap the request once
// and see the name the client called.
func TestMountInterceptor(t *testing.T) {
	t.Parallel()
	kid := newServer(t)
	mcp.AddTool(kid, mcp.Tool{Name: "hello"}, textTool("hello"))
	parent := newServer(t)
	parent.Mount("kid", kid, nil)
	var mu sync.Mutex
	var seen []string
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := mcp.WithInterceptor(r.Context(), func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					if c.Method == "tools/call" {
						var p struct {
							Name string `json:"name"`
						}
						_ = json.Unmarshal(c.Params, &p)
						mu.Lock()
						seen = append(seen, p.Name)
						mu.Unlock()
					}
					return next(ctx, c)
				}
			})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	s := mcptest.NewSession(t, parent, &mcptest.Options{Middleware: []func(http.Handler) http.Handler{mw}})
	assert.Equal(t, "hello", callText(t, s, "kid_hello"))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"kid_hello"}, seen)
}

// TestMountSamplingLoop: a parent's tool loop offers the model a
// mounted tool, by name or among all, and runs it when the model asks.
func TestMountSamplingLoop(t *testing.T) {
	t.Parallel()
	for _, names := range [][]string{{"kid_weather"}, nil} {
		kid := newServer(t)
		mcp.AddTool(kid, mcp.Tool{Name: "weather"}, func(_ context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "18°C in " + in.City, nil
		})
		parent := newServer(t)
		parent.Mount("kid", kid, nil)
		mcp.AddTool(parent, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			out, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 50,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("plan")}}},
				sampling.Loop{Tools: parent, Names: names, MaxRounds: 3})
			if err != nil {
				return "", err
			}
			return out.Result.Content.(mcp.TextContent).Text, nil
		})
		var offered []string
		model := func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
			last := p.Messages[len(p.Messages)-1].ContentBlocks()
			if r, ok := last[0].(sampling.ToolResult); ok {
				return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", StopReason: "endTurn",
					Content: mcp.Text("saw " + r.Content[0].(mcp.TextContent).Text)}, nil
			}
			for _, tl := range p.Tools {
				offered = append(offered, tl.Name)
			}
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", StopReason: "toolUse",
				Blocks: []mcp.Content{sampling.ToolUse{ID: "1", Name: "kid_weather", Input: json.RawMessage(`{"city":"Lyon"}`)}}}, nil
		}
		s := mcptest.NewSession(t, parent, &mcptest.Options{Client: client.Options{Sample: model, SamplingTools: true}})
		assert.Equal(t, "saw 18°C in Lyon", callText(t, s, "plan"), "%v", names)
		assert.Contains(t, offered, "kid_weather")
	}
}

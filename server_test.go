package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

func TestNewServerPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    mcp.Options
		wantSub []string // substrings of the panic message; nil: no panic
	}{
		{"empty name", mcp.Options{Version: "1.0.0"}, []string{"Name", "required"}},
		{"two-part version", mcp.Options{Name: "s", Version: "1.0"}, []string{`"1.0"`, "semantic version"}},
		{"word version", mcp.Options{Name: "s", Version: "abc"}, []string{`"abc"`, "semantic version"}},
		{"empty version", mcp.Options{Name: "s"}, []string{`""`, "semantic version"}},
		{"leading zero", mcp.Options{Name: "s", Version: "01.0.0"}, []string{`"01.0.0"`, "semantic version"}},
		{"plain semver", mcp.Options{Name: "s", Version: "1.2.3"}, nil},
		{"v prefix", mcp.Options{Name: "s", Version: "v1.2.3"}, nil},
		{"prerelease and build", mcp.Options{Name: "s", Version: "1.0.0-rc.1+build.5"}, nil},
		{"two auth settings", mcp.Options{Name: "s", Version: "1.0.0", Auth: bothAuth{}, Authenticate: bothAuth{}.VerifyRequest},
			[]string{"Options.Auth and Options.Authenticate are both set"}},
		{"Auth alone", mcp.Options{Name: "s", Version: "1.0.0", Auth: bothAuth{}}, nil},
		{"Authenticate alone", mcp.Options{Name: "s", Version: "1.0.0", Authenticate: bothAuth{}.VerifyRequest}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.Logger = quietLogger()
			var srv *mcp.Server
			msg := panicMessage(func() { srv = mcp.NewServer(tt.opts) })
			if tt.wantSub == nil {
				require.Empty(t, msg)
				require.NotNil(t, srv)
				return
			}
			require.NotEmpty(t, msg, "NewServer must panic")
			for _, s := range tt.wantSub {
				assert.Contains(t, msg, s)
			}
		})
	}
}

func TestNewServerDefaultLogger(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0"})
	require.NotNil(t, srv.Logger(), "a nil Options.Logger gets the default logger")
}

func noopLoad(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }

func noopTemplateLoad(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
	return nil, nil
}

func noopPrompt(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
	return mcp.UserText("hi"), nil
}

func noopTool(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil }

func TestDuplicateRegistrationPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		add     func(s *mcp.Server)
		wantSub []string
	}{
		{"tool", func(s *mcp.Server) { mcp.AddTool(s, mcp.Tool{Name: "echo"}, noopTool) },
			[]string{`"echo"`, "already registered"}},
		{"raw tool", func(s *mcp.Server) {
			s.AddRawTool(mcp.Tool{Name: "raw"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) { return nil, nil })
		}, []string{`"raw"`, "already registered"}},
		{"resource", func(s *mcp.Server) { s.AddResource(mcp.Resource{URI: "mem://a", Name: "a", Load: noopLoad}) },
			[]string{`"mem://a"`, "already registered"}},
		{"template", func(s *mcp.Server) {
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "g", Load: noopTemplateLoad})
		}, []string{`"greeting://{name}"`, "already registered"}},
		{"prompt", func(s *mcp.Server) { s.AddPrompt(mcp.Prompt{Name: "review", Load: noopPrompt}) },
			[]string{`"review"`, "already registered"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			require.Empty(t, panicMessage(func() { tt.add(s) }), "the first registration must succeed")
			msg := panicMessage(func() { tt.add(s) })
			require.NotEmpty(t, msg, "the second registration must panic")
			for _, sub := range tt.wantSub {
				assert.Contains(t, msg, sub)
			}
			// The registry lock must not stay held after the panic.
			done := make(chan struct{})
			go func() {
				defer close(done)
				mcp.AddTool(s, mcp.Tool{Name: "after-panic"}, noopTool)
			}()
			<-done
			assert.Len(t, s.ListTools(context.Background(), nil), map[bool]int{true: 2, false: 1}[tt.name == "tool" || tt.name == "raw tool"])
		})
	}
}

func TestRegistrationPanicsOnBadDeclarations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		add     func(s *mcp.Server)
		wantSub string
	}{
		{"tool without name", func(s *mcp.Server) { mcp.AddTool(s, mcp.Tool{}, noopTool) }, "Name is required"},
		{"resource without URI", func(s *mcp.Server) { s.AddResource(mcp.Resource{Name: "a", Load: noopLoad}) }, "URI is required"},
		{"resource without name", func(s *mcp.Server) { s.AddResource(mcp.Resource{URI: "mem://x", Load: noopLoad}) }, "Name is required"},
		{"resource without load", func(s *mcp.Server) { s.AddResource(mcp.Resource{URI: "mem://x", Name: "x"}) }, "Load is required"},
		{"template not RFC 6570", func(s *mcp.Server) {
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://{a", Name: "x", Load: noopTemplateLoad})
		}, "RFC 6570"},
		{"template argument not a variable", func(s *mcp.Server) {
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://{a}", Name: "x", Load: noopTemplateLoad,
				Arguments: []mcp.TemplateArgument{{Name: "b"}}})
		}, `argument "b" is not a variable`},
		{"prompt repeated argument", func(s *mcp.Server) {
			s.AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt, Arguments: []mcp.PromptArgument{{Name: "a"}, {Name: "a"}}})
		}, "unique"},
		{"route bad method", func(s *mcp.Server) { s.AddRoute("TRACE", "/x", http.NotFoundHandler(), nil) }, `"TRACE"`},
		{"route relative path", func(s *mcp.Server) { s.AddRoute("GET", "x", http.NotFoundHandler(), nil) }, "must start with /"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := panicMessage(func() { tt.add(newServer(t)) })
			require.NotEmpty(t, msg)
			assert.Contains(t, msg, tt.wantSub)
		})
	}
}

// changeLog records the changes a server reports.
type changeLog struct {
	mu      sync.Mutex
	changes []mcp.Change
}

func (l *changeLog) add(c mcp.Change) { l.mu.Lock(); l.changes = append(l.changes, c); l.mu.Unlock() }

func (l *changeLog) take() []mcp.Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.changes
	l.changes = nil
	return c
}

func TestWatchReportsChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(s *mcp.Server)
		want   mcp.Change
	}{
		{"add tool", func(s *mcp.Server) { mcp.AddTool(s, mcp.Tool{Name: "new"}, noopTool) }, mcp.Change{Kind: mcp.ToolsChanged}},
		{"remove tools", func(s *mcp.Server) { s.Registry().Remove(access.KindTool, "t") }, mcp.Change{Kind: mcp.ToolsChanged}},
		{"add resource", func(s *mcp.Server) { s.AddResource(mcp.Resource{URI: "mem://new", Name: "n", Load: noopLoad}) },
			mcp.Change{Kind: mcp.ResourcesChanged}},
		{"remove resources", func(s *mcp.Server) { s.Registry().Remove(access.KindResource, "mem://r") }, mcp.Change{Kind: mcp.ResourcesChanged}},
		{"remove templates", func(s *mcp.Server) { s.Registry().Remove(access.KindResource, "tmpl://{x}") }, mcp.Change{Kind: mcp.ResourcesChanged}},
		{"add prompt", func(s *mcp.Server) { s.AddPrompt(mcp.Prompt{Name: "new", Load: noopPrompt}) }, mcp.Change{Kind: mcp.PromptsChanged}},
		{"remove prompts", func(s *mcp.Server) { s.Registry().Remove(access.KindPrompt, "p") }, mcp.Change{Kind: mcp.PromptsChanged}},
		{"resource updated", func(s *mcp.Server) { s.ResourceUpdated("mem://r") }, mcp.Change{Kind: mcp.ResourceUpdated, URI: "mem://r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			mcp.AddTool(s, mcp.Tool{Name: "t"}, noopTool)
			s.AddResource(mcp.Resource{URI: "mem://r", Name: "r", Load: noopLoad})
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "tmpl://{x}", Name: "x", Load: noopTemplateLoad})
			s.AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt})

			var log changeLog
			stop := s.Watch(log.add)
			tt.change(s)
			assert.Equal(t, []mcp.Change{tt.want}, log.take())

			stop()
			tt.change(newServerLike(t)) // unrelated server: nothing
			s.ResourceUpdated("mem://r")
			assert.Empty(t, log.take(), "no change is reported after stop")
		})
	}
}

// newServerLike is a server with the objects the change tests touch,
// unrelated to theirs.
func newServerLike(t *testing.T) *mcp.Server {
	n := newServer(t)
	mcp.AddTool(n, mcp.Tool{Name: "t"}, noopTool)
	n.AddResource(mcp.Resource{URI: "mem://r", Name: "r", Load: noopLoad})
	n.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "tmpl://{x}", Name: "x", Load: noopTemplateLoad})
	n.AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt})
	return n
}

func TestRemoveHidesFromListsAndCalls(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := context.Background()
	mcp.AddTool(s, mcp.Tool{Name: "a"}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "b"}, noopTool)
	s.AddResource(mcp.Resource{URI: "mem://r", Name: "r", Load: noopLoad})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "tmpl://{x}", Name: "x", Load: noopTemplateLoad})
	s.AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt})

	s.Registry().Remove(access.KindTool, "a", "unknown")
	s.Registry().Remove(access.KindResource, "mem://r")
	s.Registry().Remove(access.KindResource, "tmpl://{x}")
	s.Registry().Remove(access.KindPrompt, "p")

	tools := s.ListTools(ctx, nil)
	require.Len(t, tools, 1)
	assert.Equal(t, "b", tools[0].Name)
	assert.Empty(t, s.ListResources(ctx, nil))
	assert.Empty(t, s.ListResourceTemplates(ctx, nil))
	assert.Empty(t, s.ListPrompts(ctx, nil))

	_, err := s.CallTool(ctx, newCtx(nil), "a", nil)
	assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams})
	_, err = s.ReadResource(ctx, newCtx(nil), "tmpl://y")
	assert.ErrorIs(t, err, mcp.ErrResourceNotFound)
	_, err = s.GetPrompt(ctx, newCtx(nil), "p", nil)
	assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams})
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRoute("get", "/a", http.NotFoundHandler(), nil)
	s.AddRoute("POST", "/b/{id}", http.NotFoundHandler(), &mcp.RouteOptions{Public: true})
	rs := s.Routes()
	require.Len(t, rs, 2)
	assert.Equal(t, "GET", rs[0].Method, "the method is upper-cased")
	assert.False(t, rs[0].Public)
	assert.Equal(t, "/b/{id}", rs[1].Path)
	assert.True(t, rs[1].Public)
}

// bothAuth is an auth provider whose method also serves as an AuthFunc.
type bothAuth struct{}

func (bothAuth) VerifyRequest(*http.Request) (any, error) { return nil, nil }

func (bothAuth) Mount(*http.ServeMux) {}

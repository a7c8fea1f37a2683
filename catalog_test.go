package mcp_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// admin is auth data with the subject "admin".
var admin = betaUser("admin")

func isAdmin(_ context.Context, auth any) bool { return auth == admin }

// catalogServer has resources, a template, prompts and tools of every
// kind of visibility, a mounted child, and the catalog tools.
func catalogServer(t testing.TB) *mcp.Server {
	s := newServer(t)
	text := func(v string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: v}}, nil
		}
	}
	s.AddResource(mcp.Resource{URI: "docs://readme", Name: "readme", Description: "Read me first", MIMEType: "text/markdown", Load: text("# Hello")})
	s.AddResource(mcp.Resource{URI: "docs://secret", Name: "secret", CanAccess: isAdmin, Load: text("the secret")})
	s.AddResource(mcp.Resource{URI: "docs://old", Name: "old", Tags: []string{"legacy"}, Load: text("old")})
	s.AddResource(mcp.Resource{URI: "img://logo", Name: "logo", MIMEType: "image/png", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Blob: []byte{0x89, 'P', 'N', 'G'}}}, nil
	}})
	s.AddResource(mcp.Resource{URI: "bin://data", Name: "data", MIMEType: "application/octet-stream", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Blob: []byte{0, 1, 2}}}, nil
	}})
	s.AddResource(mcp.Resource{URI: "docs://broken", Name: "broken", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return nil, context.DeadlineExceeded
	}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "users://{id}/profile", Name: "profile", Description: "A user's profile",
		Arguments: []mcp.TemplateArgument{{Name: "id", Description: "the user id", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "profile of " + args["id"]}}, nil
		}})
	s.AddPrompt(mcp.Prompt{Name: "review", Description: "Review a change",
		Arguments: []mcp.PromptArgument{{Name: "style", Description: "how", Required: true, Enum: []string{"terse", "thorough"}}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Review this change, " + args["style"] + "ly."), nil
		}})
	s.AddPrompt(mcp.Prompt{Name: "audit", CanAccess: isAdmin, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("audit"), nil
	}})
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	mcp.AddTool(s, mcp.Tool{Name: "invoice_list", Tags: []string{"billing"}}, noop)
	mcp.AddTool(s, mcp.Tool{Name: "invoice_void", Tags: []string{"billing", "write"}, CanAccess: isAdmin}, noop)
	mcp.AddTool(s, mcp.Tool{Name: "ping"}, noop)
	child := newServer(t)
	mcp.AddTool(child, mcp.Tool{Name: "issues", Description: "List issues"}, func(context.Context, *mcp.Context, struct {
		Repo string `json:"repo" jsonschema:"owner/name"`
	}) (string, error) {
		return "", nil
	})
	mcp.AddTool(child, mcp.Tool{Name: "pulls", Tags: []string{"write"}}, noop)
	child.AddResource(mcp.Resource{URI: "gh://repos", Name: "repos", Load: text("mcpchain/mcp")})
	s.Mount("github", child, nil)
	require.NoError(t, s.Registry().Disable(mcp.Match{Tags: []string{"legacy"}}))
	s.AddCatalogTools(mcp.CatalogTools{Resources: true, Prompts: true, Groups: true,
		GroupDescriptions: map[string]string{"billing": "invoices and payments"}})
	return s
}

// catalogClient connects to srv as a caller with auth data auth.
func catalogClient(t *testing.T, srv *mcp.Server, auth any) *client.Client {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return connectTo(t, authAs(auth)(h), nil)
}

// callJSON calls a catalog tool and decodes its one text item.
func callJSON[T any](t *testing.T, c *client.Client, name string, args any) T {
	t.Helper()
	res, err := c.CallTool(t.Context(), name, args, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %s", name, res.Text())
	var out T
	require.NoError(t, json.Unmarshal([]byte(res.Text()), &out), "%s", res.Text())
	return out
}

type resourceListing struct {
	Resources []struct {
		URI, Name, Description, MIMEType string
	} `json:"resources"`
	Templates []struct {
		URITemplate string `json:"uriTemplate"`
		Name        string
		Arguments   []struct {
			Name        string
			Description string
			Required    bool
		}
	} `json:"templates"`
}

func (l resourceListing) uris() []string {
	var out []string
	for _, r := range l.Resources {
		out = append(out, r.URI)
	}
	return out
}

// list_resources lists what resources/list and resources/templates/list
// would for the same caller: CanAccess, Disable rules and mounts apply.
func TestCatalogListResources(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		auth any
		want []string
	}{
		{"anonymous", nil, []string{"docs://readme", "img://logo", "bin://data", "docs://broken", "gh://github/repos"}},
		{"admin", admin, []string{"docs://readme", "docs://secret", "img://logo", "bin://data", "docs://broken", "gh://github/repos"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := catalogServer(t)
			c := catalogClient(t, srv, tt.auth)
			got := callJSON[resourceListing](t, c, "list_resources", nil)
			assert.Equal(t, tt.want, got.uris())
			var listed []string
			resources, err := c.ListResources(t.Context())
			require.NoError(t, err)
			for _, r := range resources {
				listed = append(listed, r.URI)
			}
			assert.Equal(t, listed, got.uris(), "what resources/list gives")
			assert.Equal(t, "Read me first", got.Resources[0].Description)
			assert.Equal(t, "text/markdown", got.Resources[0].MIMEType)
			require.Len(t, got.Templates, 1)
			assert.Equal(t, "users://{id}/profile", got.Templates[0].URITemplate)
			assert.Equal(t, "id", got.Templates[0].Arguments[0].Name)
			assert.True(t, got.Templates[0].Arguments[0].Required)
		})
	}
}

// read_resource reads as resources/read would; what the caller may not
// see reads as unknown, with a message a model can act on.
func TestCatalogReadResource(t *testing.T) {
	t.Parallel()
	srv := catalogServer(t)
	anon := catalogClient(t, srv, nil)
	adm := catalogClient(t, srv, admin)
	tests := []struct {
		name    string
		c       *client.Client
		uri     string
		want    mcp.Content
		isError string
	}{
		{"text", anon, "docs://readme", mcp.TextContent{Text: "# Hello"}, ""},
		{"a template", anon, "users://42/profile", mcp.TextContent{Text: "profile of 42"}, ""},
		{"through a mount", anon, "gh://github/repos", mcp.TextContent{Text: "mcpchain/mcp"}, ""},
		{"an image is an image", anon, "img://logo", mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"}, ""},
		{"other binary is an embedded resource", anon, "bin://data",
			mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "bin://data", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}}, ""},
		{"the admin reads the secret", adm, "docs://secret", mcp.TextContent{Text: "the secret"}, ""},
		{"unknown", anon, "docs://nothing", nil, `Resource not found: "docs://nothing". list_resources lists`},
		{"refused reads as unknown", anon, "docs://secret", nil, `Resource not found: "docs://secret". list_resources lists`},
		{"disabled reads as unknown", adm, "docs://old", nil, `Resource not found: "docs://old"`},
		{"the child's own name is not the parent's", anon, "gh://repos", nil, `Resource not found: "gh://repos"`},
		{"a failing loader", anon, "docs://broken", nil, `Failed to load resource "broken"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := tt.c.CallTool(t.Context(), "read_resource", map[string]string{"uri": tt.uri}, nil)
			require.NoError(t, err)
			if tt.isError != "" {
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), tt.isError)
				return
			}
			require.False(t, res.IsError, "%s", res.Text())
			require.Len(t, res.Content, 1)
			assert.Equal(t, tt.want, res.Content[0])
		})
	}
	res, err := anon.CallTool(t.Context(), "read_resource", map[string]string{}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), `argument "uri" is required`)
}

// list_prompts and get_prompt answer as prompts/list and prompts/get
// would; a refused prompt is unknown.
func TestCatalogPrompts(t *testing.T) {
	t.Parallel()
	srv := catalogServer(t)
	anon := catalogClient(t, srv, nil)
	listing := callJSON[struct {
		Prompts []struct {
			Name      string
			Arguments []struct {
				Name     string
				Required bool
				Enum     []string
			}
		}
	}](t, anon, "list_prompts", nil)
	require.Len(t, listing.Prompts, 1, "audit is the admin's")
	assert.Equal(t, "review", listing.Prompts[0].Name)
	assert.Equal(t, []string{"terse", "thorough"}, listing.Prompts[0].Arguments[0].Enum)
	assert.Len(t, callJSON[struct{ Prompts []any }](t, catalogClient(t, srv, admin), "list_prompts", nil).Prompts, 2)

	got := callJSON[mcp.PromptResult](t, anon, "get_prompt", map[string]any{"name": "review", "arguments": map[string]string{"style": "terse"}})
	assert.Equal(t, "Review a change", got.Description)
	require.Len(t, got.Messages, 1)
	assert.Equal(t, mcp.RoleUser, got.Messages[0].Role)
	assert.Equal(t, mcp.TextContent{Text: "Review this change, tersely."}, got.Messages[0].Content)

	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing argument", map[string]any{"name": "review"}, `Prompt "review" requires argument "style". list_prompts lists`},
		{"outside the enum", map[string]any{"name": "review", "arguments": map[string]string{"style": "loud"}}, `must be one of terse, thorough`},
		{"refused", map[string]any{"name": "audit"}, `Unknown prompt: "audit"`},
		{"not a string", map[string]any{"name": "review", "arguments": map[string]int{"style": 1}}, `Invalid arguments for tool "get_prompt"`},
	} {
		res, err := anon.CallTool(t.Context(), "get_prompt", tt.args, nil)
		require.NoError(t, err, tt.name)
		assert.True(t, res.IsError, tt.name)
		assert.Contains(t, res.Text(), tt.want, tt.name)
	}
}

type groupListing struct {
	Groups []struct {
		Name, Kind, Description string
		Tools                   int
	}
	Ungrouped, Total int
}

// list_tool_groups counts the caller's tools by tag and by mount prefix,
// and lists one group with the tools' input schemas; what the caller may
// not see is never counted or listed.
func TestCatalogGroups(t *testing.T) {
	t.Parallel()
	srv := catalogServer(t)
	type g = struct {
		Name, Kind, Description string
		Tools                   int
	}
	anon := callJSON[groupListing](t, catalogClient(t, srv, nil), "list_tool_groups", nil)
	assert.Equal(t, []g{
		{"billing", "tag", "invoices and payments", 1},
		{"github", "namespace", "", 2},
		{"write", "tag", "", 1},
	}, anon.Groups)
	assert.Equal(t, 6, anon.Ungrouped, "ping and the five catalog tools")
	assert.Equal(t, 9, anon.Total)
	adm := callJSON[groupListing](t, catalogClient(t, srv, admin), "list_tool_groups", nil)
	assert.Equal(t, 2, adm.Groups[0].Tools, "invoice_void is the admin's")
	assert.Equal(t, 2, adm.Groups[2].Tools)

	c := catalogClient(t, srv, nil)
	group := callJSON[struct {
		Group, Description string
		Tools              []struct {
			Name, Description string
			InputSchema       map[string]any `json:"inputSchema"`
		}
	}](t, c, "list_tool_groups", map[string]string{"group": "github"})
	assert.Equal(t, "github", group.Group)
	require.Len(t, group.Tools, 2)
	assert.Equal(t, "github_issues", group.Tools[0].Name)
	assert.Equal(t, "List issues", group.Tools[0].Description)
	assert.Equal(t, "owner/name", group.Tools[0].InputSchema["properties"].(map[string]any)["repo"].(map[string]any)["description"])

	res, err := c.CallTool(t.Context(), "list_tool_groups", map[string]string{"group": "admin"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), `No group "admin"`)
	assert.Contains(t, res.Text(), "billing, github, write")
}

// The catalog tools describe the server they are registered on: a mount
// or an import of it does not offer them, so a parent's client cannot
// read the child's objects by the child's names past the parent's checks.
func TestCatalogToolsStayHome(t *testing.T) {
	t.Parallel()
	child := newServer(t)
	child.AddResource(mcp.Resource{URI: "docs://secret", Name: "secret", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "the secret"}}, nil
	}})
	child.AddCatalogTools(mcp.CatalogTools{Resources: true, Prompts: true, Groups: true})
	child.AddTransformedTool("read_resource", mcp.Transform{Name: "docs_read"}) // serves the same catalog
	parent := newServer(t)
	parent.Mount("m", child, nil)
	parent.Import("i", child, nil)
	parent.AddCatalogTools(mcp.CatalogTools{Resources: true})
	// The parent hides the child's secret from everyone.
	hide := middleware.RestrictAccess(func(_ context.Context, q access.Query) bool {
		return q.Kind != access.KindResource || q.Name != "docs://m/secret" && q.Name != "docs://i/secret"
	})
	h := mcphttp.New(parent, nil)
	t.Cleanup(func() { _ = h.Close() })
	c := connectTo(t, hide(h), nil)
	tools, err := c.ListTools(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"list_resources", "read_resource"}, namesOf(tools))
	for _, name := range []string{"m_read_resource", "i_read_resource", "m_list_resources", "m_docs_read", "i_docs_read"} {
		_, err := c.CallTool(t.Context(), name, map[string]string{"uri": "docs://secret"}, nil)
		assert.ErrorContains(t, err, "Unknown tool", name)
	}
	for _, uri := range []string{"docs://m/secret", "docs://i/secret", "docs://secret"} {
		res, err := c.CallTool(t.Context(), "read_resource", map[string]string{"uri": uri}, nil)
		require.NoError(t, err)
		assert.True(t, res.IsError, uri)
		assert.NotContains(t, res.Text(), "the secret", uri)
	}
}

// The catalog tools read only, and say so; a name taken makes
// AddCatalogTools panic, registering none of them.
func TestAddCatalogTools(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddCatalogTools(mcp.CatalogTools{Resources: true, Prompts: true, Groups: true, Tags: []string{"catalog"}})
	tools := s.ListTools(t.Context(), nil)
	assert.Equal(t, []string{"list_resources", "read_resource", "list_prompts", "get_prompt", "list_tool_groups"}, namesOf(tools))
	for _, tool := range tools {
		assert.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
		assert.Equal(t, []string{"catalog"}, tool.Tags, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
	}

	s = newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "get_prompt"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	msg := panicMessage(func() { s.AddCatalogTools(mcp.CatalogTools{Resources: true, Prompts: true}) })
	assert.Contains(t, msg, `tool "get_prompt" is already registered`)
	assert.Equal(t, []string{"get_prompt"}, namesOf(s.ListTools(t.Context(), nil)))
}

// Over HTTP (stateless), as in process.
func TestCatalogToolsHTTP(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(catalogServer(t), &mcphttp.Options{Stateless: true})
	ts := httptest.NewServer(authAs(admin)(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	c, err := client.Connect(t.Context(), client.HTTP(ts.URL, &client.HTTPOptions{Header: http.Header{}}), &client.Options{Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	res, err := c.CallTool(t.Context(), "read_resource", map[string]string{"uri": "docs://secret"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "the secret", res.Text())
	assert.Len(t, callJSON[groupListing](t, c, "list_tool_groups", nil).Groups, 3)
}

// Namespaces are the prefixes of mounts and imports, nested ones too; an
// empty prefix adds none.
func TestCatalogGroupsNamespaces(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	leaf := newServer(t)
	mcp.AddTool(leaf, mcp.Tool{Name: "x"}, noop)
	mid := newServer(t)
	mcp.AddTool(mid, mcp.Tool{Name: "y"}, noop)
	mid.Mount("n", leaf, nil)
	s := newServer(t)
	s.Mount("m", mid, nil)
	s.Mount("", leaf, nil)
	s.Import("i", leaf, nil)
	s.AddCatalogTools(mcp.CatalogTools{Groups: true})
	type g = struct {
		Name, Kind, Description string
		Tools                   int
	}
	got := callJSON[groupListing](t, catalogClient(t, s, nil), "list_tool_groups", nil)
	assert.Equal(t, []g{{"i", "namespace", "", 1}, {"m", "namespace", "", 2}, {"m_n", "namespace", "", 1}}, got.Groups)
	assert.Equal(t, 2, got.Ungrouped, "list_tool_groups and the x of the empty prefix")
	assert.Equal(t, 5, got.Total)
}

// list_tool_groups counts what the caller could call from the model's
// side: a tool only an MCP App's view may call is left out (a host keeps
// it from the model, and does not filter a tool's result), and a tool
// whose every version the request's version filter hides is not counted
// nor listed in its group; a group's listing describes the version the
// caller gets.
func TestCatalogGroupsAppsAndVersions(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddAppResource(mcp.AppResource{URI: "ui://board/view.html", Name: "board", HTML: "<!doctype html><title>b</title>"})
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	mcp.AddTool(srv, mcp.Tool{Name: "refresh_board", Tags: []string{"board"},
		UI: &apps.ToolUI{ResourceURI: "ui://board/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "show_board", Tags: []string{"board"},
		UI: &apps.ToolUI{ResourceURI: "ui://board/view.html"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "export", Version: "1.0.0", Description: "as CSV", Tags: []string{"reports"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "export", Version: "2.0.0", Description: "as PDF", Tags: []string{"reports"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "chart", Version: "2.0.0", Tags: []string{"reports"}}, noop)
	srv.AddCatalogTools(mcp.CatalogTools{Groups: true})
	mh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = mh.Close() })
	h := versionHeader(mh)
	type member struct{ Name, Description string }
	type listing struct {
		Tools []member
	}
	for _, tc := range []struct {
		major   string
		reports []member
	}{
		{"", []member{{"export", "as PDF"}, {"chart", ""}}},
		{"2", []member{{"export", "as PDF"}, {"chart", ""}}},
		{"1", []member{{"export", "as CSV"}}},
	} {
		t.Run("major "+tc.major, func(t *testing.T) {
			t.Parallel()
			hdr := http.Header{}
			if tc.major != "" {
				hdr.Set("X-Api-Major", tc.major)
			}
			c := connectTo(t, h, hdr)
			all := callJSON[groupListing](t, c, "list_tool_groups", nil)
			counts := map[string]int{}
			for _, g := range all.Groups {
				counts[g.Name] = g.Tools
			}
			assert.Equal(t, map[string]int{"board": 1, "reports": len(tc.reports)}, counts, "refresh_board is the view's alone")
			assert.Equal(t, 2+len(tc.reports), all.Total, "show_board, the reports and list_tool_groups")
			board := callJSON[listing](t, c, "list_tool_groups", map[string]string{"group": "board"})
			assert.Equal(t, []member{{"show_board", ""}}, board.Tools)
			reports := callJSON[listing](t, c, "list_tool_groups", map[string]string{"group": "reports"})
			assert.Equal(t, tc.reports, reports.Tools)
		})
	}
}

// list_tool_groups reveals no tag of a tool version the caller may not
// use: the versions of a name share their tags for Disable and Enable
// rules, but a group counts the version the caller gets, with its own
// tags (and those of the mounts and imports on the way), so a version
// hidden by the request's version filter or denied by its own CanAccess
// adds no group, no count and no name to the "no group" answer.
func TestCatalogGroupsHideUnseenVersionTags(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	reg := func(s *mcp.Server) {
		mcp.AddTool(s, mcp.Tool{Name: "export", Version: "1.0.0", Tags: []string{"reports"}}, noop)
		mcp.AddTool(s, mcp.Tool{Name: "export", Version: "2.0.0", Tags: []string{"reports", "beta"}}, noop)
		mcp.AddTool(s, mcp.Tool{Name: "deploy", Version: "1.0.0", Tags: []string{"ops"}}, noop)
		mcp.AddTool(s, mcp.Tool{Name: "deploy", Version: "1.1.0", Tags: []string{"ops", "secret_ops"}, CanAccess: isAdmin}, noop)
	}
	srv := newServer(t)
	reg(srv)
	child := newServer(t)
	reg(child)
	srv.Mount("m", child, &mcp.MountOptions{Tags: []string{"mounted"}})
	srv.Import("i", child, &mcp.MountOptions{Tags: []string{"imported"}})
	srv.AddCatalogTools(mcp.CatalogTools{Groups: true})
	mh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = mh.Close() })
	for _, tc := range []struct {
		name   string
		auth   any
		major  string
		groups map[string]int
	}{
		{"major 1", nil, "1", map[string]int{"reports": 3, "ops": 3, "m": 2, "i": 2, "mounted": 2, "imported": 2}},
		{"anyone", nil, "", map[string]int{"reports": 3, "beta": 3, "ops": 3, "m": 2, "i": 2, "mounted": 2, "imported": 2}},
		{"admin, major 1", admin, "1", map[string]int{"reports": 3, "ops": 3, "secret_ops": 3, "m": 2, "i": 2, "mounted": 2, "imported": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hdr := http.Header{}
			if tc.major != "" {
				hdr.Set("X-Api-Major", tc.major)
			}
			c := connectTo(t, authAs(tc.auth)(versionHeader(mh)), hdr)
			all := callJSON[groupListing](t, c, "list_tool_groups", nil)
			counts := map[string]int{}
			for _, g := range all.Groups {
				counts[g.Name] = g.Tools
			}
			assert.Equal(t, tc.groups, counts)
			for _, hidden := range []string{"beta", "secret_ops"} {
				if _, ok := tc.groups[hidden]; ok {
					continue
				}
				res, err := c.CallTool(t.Context(), "list_tool_groups", map[string]string{"group": hidden}, nil)
				require.NoError(t, err)
				assert.True(t, res.IsError, hidden)
				_, named, ok := strings.Cut(res.Text(), "the groups are: ")
				require.True(t, ok, res.Text())
				named, _, _ = strings.Cut(named, ". ")
				assert.Equal(t, slices.Sorted(maps.Keys(tc.groups)), strings.Split(named, ", "), "the groups the answer names")
			}
		})
	}
}

// A tool the caller may not see (its CanAccess, a Disable rule, one of
// the session's own, the request's access policy, its mount's CanAccess)
// adds none of its tags to list_tool_groups' answer.
func TestCatalogGroupsHideDeniedTags(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	srv := newServer(t)
	mcp.AddTool(srv, mcp.Tool{Name: "open", Tags: []string{"shared"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "vault", Tags: []string{"shared", "t_access"}, CanAccess: isAdmin}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "old", Tags: []string{"shared", "t_disabled"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "mine", Tags: []string{"shared", "t_session"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "policed", Tags: []string{"shared", "t_policy"}}, noop)
	child := newServer(t)
	mcp.AddTool(child, mcp.Tool{Name: "x", Tags: []string{"t_child"}}, noop)
	srv.Mount("priv", child, &mcp.MountOptions{CanAccess: isAdmin, Tags: []string{"t_mount"}})
	require.NoError(t, srv.Registry().Disable(mcp.Match{Names: []string{"old"}}))
	srv.AddCatalogTools(mcp.CatalogTools{Groups: true})
	mh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = mh.Close() })
	policy := middleware.RestrictAccess(func(_ context.Context, q access.Query) bool { return q.Name != "policed" })
	c := connectTo(t, policy(mh), nil)
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, mc *mcp.Context, _ struct{}) (string, error) {
		return mc.SessionID, nil
	})
	who, err := c.CallTool(t.Context(), "whoami", nil, nil)
	require.NoError(t, err)
	require.NotEmpty(t, who.Text())
	require.NoError(t, srv.SessionRegistry(who.Text()).Disable(mcp.Match{Names: []string{"mine"}}))
	all := callJSON[groupListing](t, c, "list_tool_groups", nil)
	type g = struct {
		Name, Kind, Description string
		Tools                   int
	}
	assert.Equal(t, []g{{"shared", "tag", "", 1}}, all.Groups)
	assert.Equal(t, 3, all.Total, "open, whoami and list_tool_groups")
	res, err := c.CallTool(t.Context(), "list_tool_groups", map[string]string{"group": "t_access"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "the groups are: shared.")
}

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// echoTemplate loads a resource whose text lists the matched arguments.
func echoTemplate(name string) func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
	return func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: name + ":" + args["name"] + args["path"]}}, nil
	}
}

func TestReadResource(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddResource(mcp.Resource{URI: "file:///etc/motd", Name: "motd", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "static wins"}}, nil
		}})
	s.AddResource(mcp.Resource{URI: "mem://blob", Name: "blob",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "mem://other", MIMEType: "application/octet-stream", Blob: []byte{0, 1}}}, nil
		}})
	s.AddResource(mcp.Resource{URI: "mem://broken", Name: "broken",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return nil, errors.New("backend down")
		}})
	s.AddResource(mcp.Resource{URI: "mem://rpc", Name: "rpc",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return nil, &mcp.Error{Code: -32050, Message: "custom"}
		}})
	s.AddResource(mcp.Resource{URI: "mem://gone", Name: "gone",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return nil, fmt.Errorf("row deleted: %w", mcp.ErrResourceNotFound)
		}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "user://{id}", Name: "user",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			if args["id"] != "ada" {
				return nil, fmt.Errorf("no user %q: %w", args["id"], mcp.ErrResourceNotFound)
			}
			return []mcp.ResourceContents{{Text: "Ada"}}, nil
		}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "greeting",
		MIMEType: "text/plain", Load: echoTemplate("greeting")})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///{+path}", Name: "file", Load: echoTemplate("file")})

	tests := []struct {
		name     string
		uri      string
		want     []mcp.ResourceContents
		wantCode int64
	}{
		{"static", "file:///etc/motd", []mcp.ResourceContents{{URI: "file:///etc/motd", MIMEType: "text/plain", Text: "static wins"}}, 0},
		{"loader's URI and MIME type kept", "mem://blob", []mcp.ResourceContents{{URI: "mem://other", MIMEType: "application/octet-stream", Blob: []byte{0, 1}}}, 0},
		{"simple template", "greeting://alice", []mcp.ResourceContents{{URI: "greeting://alice", MIMEType: "text/plain", Text: "greeting:alice"}}, 0},
		{"simple template decodes percent-encoding", "greeting://J%C3%BCrgen", []mcp.ResourceContents{{URI: "greeting://J%C3%BCrgen", MIMEType: "text/plain", Text: "greeting:Jürgen"}}, 0},
		{"reserved expansion keeps slashes", "file:///a/b/c.txt", []mcp.ResourceContents{{URI: "file:///a/b/c.txt", Text: "file:a/b/c.txt"}}, 0},
		{"simple template does not match a slash", "greeting://a/b", nil, mcp.CodeInvalidParams},
		{"unknown scheme", "nope://x", nil, mcp.CodeInvalidParams},
		{"loader error", "mem://broken", nil, mcp.CodeInternalError},
		{"loader mcp.Error passes through", "mem://rpc", nil, -32050},
		{"loader's ErrResourceNotFound is the spec's not found", "mem://gone", nil, mcp.CodeInvalidParams},
		{"template loader's ErrResourceNotFound is the spec's not found", "user://bob", nil, mcp.CodeInvalidParams},
		{"template loader found", "user://ada", []mcp.ResourceContents{{URI: "user://ada", Text: "Ada"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := s.ReadResource(context.Background(), newCtx(nil), tt.uri)
			if tt.wantCode == 0 {
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Contents)
				return
			}
			var je *mcp.Error
			require.ErrorAs(t, err, &je)
			assert.Equal(t, tt.wantCode, je.Code)
			if tt.wantCode == mcp.CodeInvalidParams {
				assert.Equal(t, map[string]string{"uri": tt.uri}, je.Data, "SEP-2164: the URI is in data")
				assert.Contains(t, je.Message, tt.uri)
				assert.ErrorIs(t, err, mcp.ErrResourceNotFound)
				assert.True(t, strings.HasPrefix(je.Message, "Resource not found: "), je.Message)
				assert.NotContains(t, je.Message, "no user", "the loader's own words stay on the server")
			}
			if tt.wantCode == mcp.CodeInternalError {
				assert.Contains(t, je.Message, "backend down")
				assert.Contains(t, je.Message, `"broken"`)
			}
		})
	}
}

func TestReadResourceWireForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    mcp.ResourceContents
		want string
	}{
		{"text", mcp.ResourceContents{URI: "a://b", Text: "hi"}, `{"uri":"a://b","text":"hi"}`},
		{"empty text is still text", mcp.ResourceContents{URI: "a://b"}, `{"uri":"a://b","text":""}`},
		{"blob", mcp.ResourceContents{URI: "a://b", MIMEType: "image/png", Blob: []byte("hi")}, `{"uri":"a://b","mimeType":"image/png","blob":"aGk="}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.JSONEq(t, tt.want, string(mustJSON(t, tt.c)))
		})
	}
}

func TestTemplateListingAndLoadArgs(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	got := make(chan map[string]string, 1)
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "repo://{owner}/{repo}/issues{?state}", Name: "issues",
		Arguments: []mcp.TemplateArgument{{Name: "owner"}, {Name: "state"}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			got <- args
			return nil, nil
		}})
	res, err := s.ReadResource(context.Background(), newCtx(nil), "repo://golang/go/issues?state=open")
	require.NoError(t, err)
	assert.Equal(t, []mcp.ResourceContents{}, res.Contents, "nil contents are an empty list")
	assert.Equal(t, map[string]string{"owner": "golang", "repo": "go", "state": "open"}, <-got)

	list := s.ListResourceTemplates(context.Background(), nil)
	require.Len(t, list, 1)
	m := toJSONMap(t, list[0])
	assert.Equal(t, "repo://{owner}/{repo}/issues{?state}", m["uriTemplate"])
	assert.Equal(t, "issues", m["name"])
}

func TestTemplateRequiredArguments(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	loads := 0
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "search://items{?q,page}", Name: "search",
		Arguments: []mcp.TemplateArgument{{Name: "q", Required: true}, {Name: "page"}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			loads++
			return []mcp.ResourceContents{{Text: args["q"] + "/" + args["page"]}}, nil
		}})
	ctx := context.Background()
	res, err := s.ReadResource(ctx, newCtx(nil), "search://items?q=go&page=2")
	require.NoError(t, err)
	assert.Equal(t, "go/2", res.Contents[0].Text)
	res, err = s.ReadResource(ctx, newCtx(nil), "search://items?q=go")
	require.NoError(t, err, "an optional argument may be absent")
	assert.Equal(t, "go/", res.Contents[0].Text)

	for _, uri := range []string{"search://items", "search://items?page=2", "search://items?q="} {
		_, err = s.ReadResource(ctx, newCtx(nil), uri)
		var je *mcp.Error
		require.ErrorAs(t, err, &je, uri)
		assert.EqualValues(t, mcp.CodeInvalidParams, je.Code)
		assert.Contains(t, je.Message, `requires argument "q"`)
		assert.NotErrorIs(t, err, mcp.ErrResourceNotFound, "the template matched: the resource is not unknown")
	}
	assert.Equal(t, 2, loads, "Load never runs without a required argument")
}

func TestResourceAndLinkShareTheWireShape(t *testing.T) {
	t.Parallel()
	r := mcp.Resource{URI: "file:///a.txt", Name: "a", Title: "A", Description: "d", MIMEType: "text/plain", Size: 3,
		Meta: map[string]any{"k": "v"}, Load: noopLoad}
	listed := toJSONMap(t, r)
	link := toJSONMap(t, r.Link())
	assert.Equal(t, "resource_link", link["type"])
	delete(link, "type")
	assert.Equal(t, listed, link, "a resources/list entry is a resource link without its type")

	var back mcp.Resource
	require.NoError(t, json.Unmarshal(mustJSON(t, r), &back))
	r.Load = nil
	assert.Equal(t, r, back)
}

// TestJSONContentsAndContextReadResource: a loader returns a struct of
// its own as JSON contents (application/json, the URI read), and a tool
// reads its server's resources through c.ReadResource with its caller's
// access: what CanAccess hides from the caller, or a loader says does not
// exist, is ErrResourceNotFound. A resource loader cannot use it.
func TestJSONContentsAndContextReadResource(t *testing.T) {
	t.Parallel()
	type user struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	s := newServer(t)
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "user://{id}", Name: "user",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			if args["id"] != "ada" {
				return nil, fmt.Errorf("no user %q: %w", args["id"], mcp.ErrResourceNotFound)
			}
			return mcp.JSONContents(user{ID: "ada", Name: "Ada Lovelace"})
		}})
	s.AddResource(mcp.Resource{URI: "admin://keys", Name: "keys",
		CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" },
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "k1"}}, nil
		}})
	s.AddResource(mcp.Resource{URI: "loop://self", Name: "self",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			_, err := c.ReadResource(ctx, "user://ada")
			return nil, err
		}})
	s.AddResource(mcp.Resource{URI: "bad://json", Name: "bad",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return mcp.JSONContents(func() {})
		}})
	mcp.AddTool(s, mcp.Tool{Name: "read"}, func(ctx context.Context, c *mcp.Context, in struct {
		URI string `json:"uri"`
	}) (string, error) {
		res, err := c.ReadResource(ctx, in.URI)
		switch {
		case errors.Is(err, mcp.ErrResourceNotFound):
			return "not found", nil
		case err != nil:
			return "", err
		}
		return res.Contents[0].MIMEType + " " + res.Contents[0].URI + " " + res.Contents[0].Text, nil
	})

	res, err := s.ReadResource(context.Background(), newCtx(nil), "user://ada")
	require.NoError(t, err)
	assert.Equal(t, []mcp.ResourceContents{{URI: "user://ada", MIMEType: "application/json", Text: `{"id":"ada","name":"Ada Lovelace"}`}}, res.Contents)

	tests := []struct {
		name, auth, uri, want string
	}{
		{"a template's JSON", "", "user://ada", `application/json user://ada {"id":"ada","name":"Ada Lovelace"}`},
		{"the loader's not found", "", "user://bob", "not found"},
		{"no such resource", "", "nothing://here", "not found"},
		{"hidden from the caller", "guest", "admin://keys", "not found"},
		{"visible to the caller", "admin", "admin://keys", " admin://keys k1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var auth any
			if tt.auth != "" {
				auth = tt.auth
			}
			res, err := s.CallTool(context.Background(), newCtx(auth), "read", json.RawMessage(`{"uri":"`+tt.uri+`"}`))
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.Equal(t, tt.want, res.Text())
		})
	}

	_, err = s.ReadResource(context.Background(), newCtx(nil), "loop://self")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a tools/call")
	_, err = s.ReadResource(context.Background(), newCtx(nil), "bad://json")
	require.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInternalError})
	assert.Contains(t, err.Error(), "encoding a resource's contents as JSON")
}

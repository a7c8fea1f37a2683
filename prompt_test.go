package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

func TestGetPrompt(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPrompt(mcp.Prompt{Name: "review", Description: "Review code",
		Arguments: []mcp.PromptArgument{
			{Name: "code", Required: true},
			{Name: "lang", Enum: []string{"go", "rust"}},
		},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Review this " + args["lang"] + ": " + args["code"]), nil
		}})
	s.AddPrompt(mcp.Prompt{Name: "broken",
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return nil, errors.New("template missing")
		}})
	s.AddPrompt(mcp.Prompt{Name: "empty",
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }})

	tests := []struct {
		name     string
		prompt   string
		args     map[string]string
		wantText string
		wantCode int64
		wantMsg  []string
	}{
		{"ok", "review", map[string]string{"code": "x := 1", "lang": "go"}, "Review this go: x := 1", 0, nil},
		{"missing required", "review", map[string]string{"lang": "go"}, "", mcp.CodeInvalidParams, []string{`"review"`, `"code"`}},
		{"nil args miss required", "review", nil, "", mcp.CodeInvalidParams, []string{`"code"`}},
		{"blank optional enum", "review", map[string]string{"code": "x", "lang": ""}, "Review this : x", 0, nil},
		{"enum violation", "review", map[string]string{"code": "x", "lang": "cobol"}, "", mcp.CodeInvalidParams, []string{`"lang"`, "cobol", "go, rust"}},
		{"unknown prompt", "nope", nil, "", mcp.CodeInvalidParams, []string{`"nope"`}},
		{"loader error", "broken", nil, "", mcp.CodeInternalError, []string{`"broken"`, "template missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := s.GetPrompt(context.Background(), newCtx(nil), tt.prompt, tt.args)
			if tt.wantCode == 0 {
				require.NoError(t, err)
				require.Len(t, res.Messages, 1)
				assert.Equal(t, mcp.RoleUser, res.Messages[0].Role)
				assert.Equal(t, mcp.Text(tt.wantText), res.Messages[0].Content)
				assert.Equal(t, "Review code", res.Description, "the prompt's description is the default")
				return
			}
			var je *mcp.Error
			require.ErrorAs(t, err, &je)
			assert.Equal(t, tt.wantCode, je.Code)
			for _, m := range tt.wantMsg {
				assert.Contains(t, je.Message, m)
			}
		})
	}
	t.Run("nil result is an empty message list", func(t *testing.T) {
		t.Parallel()
		res, err := s.GetPrompt(context.Background(), newCtx(nil), "empty", nil)
		require.NoError(t, err)
		assert.Equal(t, `{"messages":[]}`, string(mustJSON(t, res)))
	})
}

func TestPromptListForm(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPrompt(mcp.Prompt{Name: "bare", Load: noopPrompt})
	s.AddPrompt(mcp.Prompt{Name: "args", Load: noopPrompt, Arguments: []mcp.PromptArgument{{Name: "a", Required: true, Enum: []string{"x"}}}})
	list := s.ListPrompts(context.Background(), nil)
	require.Len(t, list, 2)
	assert.JSONEq(t, `{"name":"bare","arguments":[]}`, string(mustJSON(t, list[0])))
	assert.JSONEq(t, `{"name":"args","arguments":[{"name":"a","required":true}]}`, string(mustJSON(t, list[1])), "Enum is not on the wire")
}

func TestComplete(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprintf("v%03d", i)
	}
	s.AddPrompt(mcp.Prompt{Name: "code", Load: noopPrompt, Arguments: []mcp.PromptArgument{
		{Name: "lang", Enum: []string{"python", "PyTorch", "go"}},
		{Name: "many", Complete: func(_ context.Context, value string, _ map[string]string) ([]string, error) {
			var out []string
			for _, v := range many {
				if strings.HasPrefix(v, value) {
					out = append(out, v)
				}
			}
			return out, nil
		}},
		{Name: "ctx", Complete: func(_ context.Context, value string, args map[string]string) ([]string, error) {
			return []string{args["lang"] + "/" + value}, nil
		}},
		{Name: "fails", Complete: func(context.Context, string, map[string]string) ([]string, error) {
			return nil, errors.New("index offline")
		}},
		{Name: "free"},
	}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "g", Load: noopTemplateLoad,
		Arguments: []mcp.TemplateArgument{{Name: "name", Complete: func(_ context.Context, value string, _ map[string]string) ([]string, error) {
			return []string{value + "lice", value + "nna"}, nil
		}}}})

	prompt := mcp.CompletionRef{Type: "ref/prompt", Name: "code"}
	tests := []struct {
		name      string
		ref       mcp.CompletionRef
		arg, val  string
		args      map[string]string
		want      []string
		wantTotal int
		wantMore  bool
		wantCode  int64
	}{
		{"enum prefix, case-insensitive", prompt, "lang", "py", nil, []string{"python", "PyTorch"}, 2, false, 0},
		{"enum empty value lists all", prompt, "lang", "", nil, []string{"python", "PyTorch", "go"}, 3, false, 0},
		{"enum no match", prompt, "lang", "z", nil, []string{}, 0, false, 0},
		{"func capped at 100", prompt, "many", "v", nil, many[:100], 150, true, 0},
		{"func under the cap", prompt, "many", "v14", nil, many[140:150], 10, false, 0},
		{"func sees context arguments", prompt, "ctx", "x", map[string]string{"lang": "go"}, []string{"go/x"}, 1, false, 0},
		{"argument without completion", prompt, "free", "x", nil, []string{}, 0, false, 0},
		{"template argument", mcp.CompletionRef{Type: "ref/resource", URI: "greeting://{name}"}, "name", "a", nil, []string{"alice", "anna"}, 2, false, 0},
		{"func error", prompt, "fails", "", nil, nil, 0, false, mcp.CodeInternalError},
		{"unknown argument", prompt, "nope", "", nil, nil, 0, false, mcp.CodeInvalidParams},
		{"unknown prompt", mcp.CompletionRef{Type: "ref/prompt", Name: "nope"}, "lang", "", nil, nil, 0, false, mcp.CodeInvalidParams},
		{"unknown template", mcp.CompletionRef{Type: "ref/resource", URI: "x://{y}"}, "y", "", nil, nil, 0, false, mcp.CodeInvalidParams},
		{"unknown ref type", mcp.CompletionRef{Type: "ref/tool", Name: "code"}, "lang", "", nil, nil, 0, false, mcp.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := s.Complete(context.Background(), newCtx(nil), tt.ref, tt.arg, tt.val, tt.args)
			if tt.wantCode != 0 {
				var je *mcp.Error
				require.ErrorAs(t, err, &je)
				assert.Equal(t, tt.wantCode, je.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Values)
			assert.LessOrEqual(t, len(res.Values), 100)
			assert.Equal(t, tt.wantTotal, res.Total)
			assert.Equal(t, tt.wantMore, res.HasMore)
		})
	}
}

type reviewArgs struct {
	Code  string `json:"code" jsonschema:"the code to review"`
	Lang  string `json:"lang,omitempty" jsonschema:"its language" enum:"go,rust"`
	Tone  string `json:"tone,omitzero" title:"Tone of voice"`
	skip  string //lint:ignore U1000 an unexported field is no argument
	Level string `json:"-"`
}

func TestTypedPrompt(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var got reviewArgs
	mcp.AddTypedPrompt(s, mcp.Prompt{Name: "review", Description: "Review code",
		Arguments: []mcp.PromptArgument{{Name: "lang", Complete: func(context.Context, string, map[string]string) ([]string, error) {
			return []string{"go"}, nil
		}}}},
		func(_ context.Context, _ *mcp.Context, a reviewArgs) (*mcp.PromptResult, error) {
			got = a
			return mcp.UserText("Review this " + a.Lang + ": " + a.Code), nil
		})
	ctx := context.Background()

	prompts := s.ListPrompts(ctx, nil)
	require.Len(t, prompts, 1)
	assert.JSONEq(t, `{"name":"review","description":"Review code","arguments":[
		{"name":"code","description":"the code to review","required":true},
		{"name":"lang","description":"its language"},
		{"name":"tone","title":"Tone of voice"}]}`, string(mustJSON(t, prompts[0])))
	assert.Equal(t, []string{"go", "rust"}, prompts[0].Arguments[1].Enum)

	res, err := s.GetPrompt(ctx, newCtx(nil), "review", map[string]string{"code": "x := 1", "lang": "go"})
	require.NoError(t, err)
	assert.Equal(t, mcp.Text("Review this go: x := 1"), res.Messages[0].Content)
	assert.Equal(t, reviewArgs{Code: "x := 1", Lang: "go"}, got)

	_, err = s.GetPrompt(ctx, newCtx(nil), "review", map[string]string{"lang": "go"})
	require.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams})
	assert.Contains(t, err.Error(), `requires argument "code"`)
	_, err = s.GetPrompt(ctx, newCtx(nil), "review", map[string]string{"code": "x", "lang": "cobol"})
	require.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams})
	assert.Contains(t, err.Error(), "go, rust")

	c, err := s.Complete(ctx, newCtx(nil), mcp.CompletionRef{Type: "ref/prompt", Name: "review"}, "lang", "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"go"}, c.Values, "Prompt.Arguments adds a Complete to an inferred argument")
}

func TestTypedPromptRefusesBadDeclarations(t *testing.T) {
	t.Parallel()
	load := func(context.Context, *mcp.Context, reviewArgs) (*mcp.PromptResult, error) { return nil, nil }
	tests := []struct {
		name string
		err  func(s *mcp.Server) error
		want string
	}{
		{"non-string field", func(s *mcp.Server) error {
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p"}, func(context.Context, *mcp.Context, struct{ N int }) (*mcp.PromptResult, error) {
				return nil, nil
			})
		}, "field N is a int: prompt arguments are strings"},
		{"not a struct", func(s *mcp.Server) error {
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p"}, func(context.Context, *mcp.Context, string) (*mcp.PromptResult, error) { return nil, nil })
		}, "from a struct"},
		{"unknown extra argument", func(s *mcp.Server) error {
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "nope"}}}, load)
		}, `names "nope"`},
		{"Load set too", func(s *mcp.Server) error {
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p", Load: noopPrompt}, load)
		}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			err := tt.err(s)
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, panicMessage(func() { mcp.AddTypedPrompt(s, mcp.Prompt{Name: "q", Load: noopPrompt}, load) }), "mcp: AddTypedPrompt:")
		})
	}
}

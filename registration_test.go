package mcp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
)

// Argument types that would fail on every call or have no JSON Schema.
type (
	stringerArgs struct {
		Name fmt.Stringer `json:"name"`
	}
	chanArgs struct {
		Events chan int `json:"events"`
	}
	funcArgs struct {
		Hook func() `json:"hook"`
	}
	intMapArgs struct {
		ByID map[int]string `json:"byId"`
	}
	complexArgs struct {
		Z complex128 `json:"z"`
	}
	nestedStringerArgs struct {
		Filter struct {
			Items []struct {
				Key fmt.Stringer `json:"key"`
			} `json:"items"`
		} `json:"filter"`
	}
	selfArgs struct {
		Name     string     `json:"name"`
		Children []selfArgs `json:"children,omitempty"`
	}
	skippedArgs struct {
		Name string   `json:"name"`
		Done chan int `json:"-"`
	}
	anyArgs struct {
		Value any `json:"value"`
	}
	chanResult struct {
		C chan int `json:"c"`
	}
)

func TestAddToolRefusesTypesThatFailEveryCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		add  func(*mcp.Server) error
		want []string // every one must be in the error
	}{
		{"non-empty interface", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, stringerArgs) (string, error) { return "", nil })
		}, []string{`tool "t"`, "field Name", "fmt.Stringer", "any"}},
		{"channel", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, chanArgs) (string, error) { return "", nil })
		}, []string{"field Events", "chan int has no JSON form"}},
		{"function", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, funcArgs) (string, error) { return "", nil })
		}, []string{"field Hook", "func() has no JSON form"}},
		{"map with int keys", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, intMapArgs) (string, error) { return "", nil })
		}, []string{"field ByID", "map key must be a string type", "not int"}},
		{"complex", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, complexArgs) (string, error) { return "", nil })
		}, []string{"field Z", "complex128 has no JSON form"}},
		{"nested path", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, nestedStringerArgs) (string, error) { return "", nil })
		}, []string{"field Filter.Items[].Key", "fmt.Stringer"}},
		{"recursive", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, selfArgs) (string, error) { return "", nil })
		}, []string{"field Children[]", "contains itself"}},
		{"top-level channel", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, chan int) (string, error) { return "", nil })
		}, []string{"input type chan int", "no JSON form"}},
		{"output with a channel", func(s *mcp.Server) error {
			return mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, struct{}) (chanResult, error) { return chanResult{}, nil })
		}, []string{"output type", "field C", "chan int"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			err := tt.add(s)
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "ForType(", "the message is ours, not the schema library's")
			assert.Empty(t, s.ListTools(context.Background(), nil), "nothing is registered")
		})
	}
	t.Run("AddTool panics with the message", func(t *testing.T) {
		t.Parallel()
		msg := panicMessage(func() {
			mcp.AddTool(newServer(t), mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, chanArgs) (string, error) { return "", nil })
		})
		assert.Contains(t, msg, "mcp: AddTool:")
		assert.Contains(t, msg, "field Events")
	})
}

func TestAddToolAcceptsAnyAndSkippedFields(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "any"}, func(_ context.Context, _ *mcp.Context, in anyArgs) (string, error) {
		return fmt.Sprintf("%T %v", in.Value, in.Value), nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "skipped"}, func(_ context.Context, _ *mcp.Context, in skippedArgs) (string, error) {
		return in.Name, nil
	})
	// A hand-written schema: the type is the author's business.
	require.NoError(t, mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "hand", InputSchema: toolSchema(t, `{"type":"object"}`)},
		func(context.Context, *mcp.Context, chanArgs) (string, error) { return "ok", nil }))
	sess := mcptest.NewSession(t, s, nil)
	for _, tt := range []struct {
		tool string
		args any
		want string
	}{
		{"any", map[string]any{"value": map[string]any{"a": 1}}, "map[string]interface {} map[a:1]"},
		{"any", map[string]any{"value": "x"}, "string x"},
		{"skipped", map[string]any{"name": "n"}, "n"},
		{"hand", map[string]any{}, "ok"},
	} {
		res := sess.CallTool(tt.tool, tt.args, nil)
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, tt.want, res.Text())
	}
}

func TestResourceURIAndTemplateRules(t *testing.T) {
	t.Parallel()
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }
	tload := func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
		return nil, nil
	}
	tests := []struct {
		name string
		add  func(*mcp.Server) error
		want string // "" means accepted
	}{
		{"not a uri", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "not a uri", Name: "r", Load: load})
		}, `resource "not a uri": not an absolute URI`},
		{"relative path", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "notes/today.txt", Name: "r", Load: load})
		}, "not an absolute URI"},
		{"space after the scheme", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "file:///my notes.txt", Name: "r", Load: load})
		}, "white space"},
		{"bad escape", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "test://x%zz", Name: "r", Load: load})
		}, "not a URI"},
		{"file uri", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "file:///notes.txt", Name: "r", Load: load})
		}, ""},
		{"escape in the authority", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "skill://team%20a/SKILL.md", Name: "r", Load: load})
		}, ""},
		{"urn", func(s *mcp.Server) error {
			return s.Registry().AddResource(mcp.Resource{URI: "urn:isbn:0451450523", Name: "r", Load: load})
		}, ""},
		{"template without variables", func(s *mcp.Server) error {
			return s.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "config://app", Name: "t", Load: tload})
		}, `template "config://app" has no {variable}`},
		{"template with a variable", func(s *mcp.Server) error {
			return s.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "users://{id}", Name: "t", Load: tload})
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.add(newServer(t))
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.Contains(t, panicMessage(func() {
		newServer(t).AddResource(mcp.Resource{URI: "not a uri", Name: "r", Load: load})
	}), "mcp: AddResource:")
}

func TestTypedPromptDefaults(t *testing.T) {
	t.Parallel()
	type toneArgs struct {
		Topic string `json:"topic"`
		Tone  string `json:"tone,omitempty" default:"friendly" enum:"friendly,formal"`
		Note  string `json:"note,omitempty"`
	}
	s := newServer(t)
	mcp.AddTypedPrompt(s, mcp.Prompt{Name: "write"}, func(_ context.Context, _ *mcp.Context, in toneArgs) (*mcp.PromptResult, error) {
		return mcp.UserText("Write about " + in.Topic + " in a " + in.Tone + " tone." + in.Note), nil
	})
	sess := mcptest.NewSession(t, s, nil)
	for _, tt := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"topic": "Go"}, "Write about Go in a friendly tone."},
		{map[string]string{"topic": "Go", "tone": "formal"}, "Write about Go in a formal tone."},
		{map[string]string{"topic": "Go", "note": ""}, "Write about Go in a friendly tone."},
		{map[string]string{"topic": "Go", "tone": ""}, "Write about Go in a friendly tone."},
	} {
		res := sess.GetPrompt("write", tt.args)
		require.Len(t, res.Messages, 1)
		assert.Equal(t, mcp.Text(tt.want), res.Messages[0].Content)
	}

	bad := []struct {
		name string
		add  func(*mcp.Server) error
		want string
	}{
		{"default on a required argument", func(s *mcp.Server) error {
			type a struct {
				Tone string `json:"tone" default:"friendly"`
			}
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p"}, func(context.Context, *mcp.Context, a) (*mcp.PromptResult, error) { return nil, nil })
		}, "field Tone: default: a required argument"},
		{"default outside the enum", func(s *mcp.Server) error {
			type a struct {
				Tone string `json:"tone,omitempty" default:"rude" enum:"friendly,formal"`
			}
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p"}, func(context.Context, *mcp.Context, a) (*mcp.PromptResult, error) { return nil, nil })
		}, `field Tone: default "rude" is not one of the enum`},
		{"empty default", func(s *mcp.Server) error {
			type a struct {
				Tone string `json:"tone,omitempty" default:""`
			}
			return mcp.TryAddTypedPrompt(s.Registry(), mcp.Prompt{Name: "p"}, func(context.Context, *mcp.Context, a) (*mcp.PromptResult, error) { return nil, nil })
		}, "field Tone: default: an empty default"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.add(newServer(t))
			require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

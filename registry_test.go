package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

func rawNoop(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
	return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
}

func TestToolNameRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"echo", true},
		{"get_user-v2.beta", true},
		{"A1", true},
		{strings.Repeat("a", 128), true},
		{"", false},
		{"my tool", false},
		{"a/b", false},
		{"héllo", false},
		{"a:b", false},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 200), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			msg := panicMessage(func() { mcp.AddTool(s, mcp.Tool{Name: tt.name}, noopTool) })
			err := s.Registry().AddRawTool(mcp.Tool{Name: tt.name}, rawNoop)
			if tt.ok {
				assert.Empty(t, msg)
				require.ErrorIs(t, err, mcp.ErrAlreadyRegistered, "the typed form registered it")
				return
			}
			assert.Contains(t, msg, "1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot", "the panic names the rule")
			assert.ErrorIs(t, err, mcp.ErrInvalidToolName)
			assert.Empty(t, s.ListTools(context.Background(), nil), "nothing registered")
		})
	}
}

// TestTryAddForms: the error-returning forms register like the panicking
// ones and return, instead of panicking, what those panic with.
func TestTryAddForms(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := context.Background()
	type args struct {
		Who string `json:"who"`
	}
	greet := func(_ context.Context, _ *mcp.Context, a args) (string, error) { return "hi " + a.Who, nil }
	require.NoError(t, mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "greet"}, greet))
	require.NoError(t, s.Registry().AddRawTool(mcp.Tool{Name: "raw"}, rawNoop))
	require.NoError(t, s.Registry().AddResource(mcp.Resource{URI: "mem://a", Name: "a", Load: noopLoad}))
	require.NoError(t, s.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "t://{x}", Name: "t", Load: noopTemplateLoad}))
	require.NoError(t, s.Registry().AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt}))
	assert.Equal(t, "hi ann", callTool(t, s, "greet", `{"who":"ann"}`).Text())

	tests := []struct {
		name string
		err  error
		is   error
		want string
	}{
		{"duplicate tool", mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "greet"}, greet), mcp.ErrAlreadyRegistered, `tool "greet" is already registered`},
		{"duplicate raw tool", s.Registry().AddRawTool(mcp.Tool{Name: "raw"}, rawNoop), mcp.ErrAlreadyRegistered, `"raw"`},
		{"nil raw function", s.Registry().AddRawTool(mcp.Tool{Name: "nil"}, nil), mcp.ErrInvalidDefinition, "nil"},
		{"bad schema type", s.Registry().AddRawTool(mcp.Tool{Name: "arr", InputSchema: toolSchema(t, `{"type":"array"}`)}, rawNoop), mcp.ErrInvalidDefinition, `"object"`},
		{"bad input type", mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "ch"}, func(context.Context, *mcp.Context, struct{ C chan int }) (string, error) { return "", nil }),
			mcp.ErrInvalidDefinition, "input type"},
		{"duplicate resource", s.Registry().AddResource(mcp.Resource{URI: "mem://a", Name: "a", Load: noopLoad}), mcp.ErrAlreadyRegistered, `"mem://a"`},
		{"resource without load", s.Registry().AddResource(mcp.Resource{URI: "mem://b", Name: "b"}), mcp.ErrInvalidDefinition, "Load is required"},
		{"duplicate template", s.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "t://{x}", Name: "t", Load: noopTemplateLoad}), mcp.ErrAlreadyRegistered, `"t://{x}"`},
		{"bad template", s.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "t://{x", Name: "t", Load: noopTemplateLoad}), mcp.ErrInvalidDefinition, "RFC 6570"},
		{"duplicate prompt", s.Registry().AddPrompt(mcp.Prompt{Name: "p", Load: noopPrompt}), mcp.ErrAlreadyRegistered, `"p"`},
		{"prompt without name", s.Registry().AddPrompt(mcp.Prompt{Load: noopPrompt}), mcp.ErrInvalidDefinition, "Name is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, tt.err, tt.is)
			assert.Contains(t, tt.err.Error(), tt.want)
		})
	}
	// Nothing of the refused registrations got in.
	assert.Len(t, s.ListTools(ctx, nil), 2)
	assert.Len(t, s.ListResources(ctx, nil), 1)
	assert.Len(t, s.ListResourceTemplates(ctx, nil), 1)
	assert.Len(t, s.ListPrompts(ctx, nil), 1)
}

type tenantKey struct{}

// TestCanAccessSeesTheRequestContext: a check gets the request's context,
// so it can decide with what middleware put there (a tenant).
func TestCanAccessSeesTheRequestContext(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	acme := func(ctx context.Context, _ any) bool { return ctx.Value(tenantKey{}) == "acme" }
	mcp.AddTool(s, mcp.Tool{Name: "acme_report", CanAccess: acme}, noopTool)
	s.AddResource(mcp.Resource{URI: "mem://acme", Name: "acme", CanAccess: acme, Load: noopLoad})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "acme://{x}", Name: "acme", CanAccess: acme, Load: noopTemplateLoad})
	s.AddPrompt(mcp.Prompt{Name: "acme", CanAccess: acme, Load: noopPrompt})

	for _, tenant := range []string{"acme", "globex"} {
		ctx := context.WithValue(context.Background(), tenantKey{}, tenant)
		want := tenant == "acme"
		assert.Equal(t, want, len(s.ListTools(ctx, nil)) == 1, tenant)
		assert.Equal(t, want, len(s.ListResources(ctx, nil)) == 1, tenant)
		assert.Equal(t, want, len(s.ListResourceTemplates(ctx, nil)) == 1, tenant)
		assert.Equal(t, want, len(s.ListPrompts(ctx, nil)) == 1, tenant)
		_, err := s.CallTool(ctx, newCtx(nil), "acme_report", nil)
		assert.Equal(t, want, err == nil, tenant)
		_, err = s.ReadResource(ctx, newCtx(nil), "acme://1")
		assert.Equal(t, want, err == nil, tenant)
		_, err = s.GetPrompt(ctx, newCtx(nil), "acme", nil)
		assert.Equal(t, want, err == nil, tenant)
	}
}

// TestErrorIs: an *Error with only a Code matches every error of that
// code; no sentinel matches every -32602.
func TestErrorIs(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := context.Background()
	_, toolErr := s.CallTool(ctx, newCtx(nil), "nope", nil)
	_, promptErr := s.GetPrompt(ctx, newCtx(nil), "nope", nil)
	_, resErr := s.ReadResource(ctx, newCtx(nil), "mem://nope")

	for _, err := range []error{toolErr, promptErr, resErr} {
		require.Error(t, err)
		assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams}, "a code-only target is a pattern")
		assert.NotErrorIs(t, err, &mcp.Error{Code: mcp.CodeInternalError})
	}
	assert.ErrorIs(t, resErr, mcp.ErrResourceNotFound)
	assert.NotErrorIs(t, toolErr, mcp.ErrResourceNotFound, "an unknown tool is not a missing resource")
	assert.NotErrorIs(t, promptErr, mcp.ErrResourceNotFound)
	assert.NotErrorIs(t, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "bad cursor"}, mcp.ErrResourceNotFound)

	a := &mcp.Error{Code: mcp.CodeInvalidParams, Message: "a"}
	assert.ErrorIs(t, a, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "a"})
	assert.NotErrorIs(t, a, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "b"}, "a target with a message matches only that message")
	assert.ErrorIs(t, errors.Join(errors.New("x"), a), &mcp.Error{Code: mcp.CodeInvalidParams})
}

// TestPanicsAreRecoveredInOnePlace: a panic in a tool, a loader or a
// completion becomes an answer without the panic's value.
func TestPanicsAreRecoveredInOnePlace(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := context.Background()
	mcp.AddTool(s, mcp.Tool{Name: "boom"}, func(context.Context, *mcp.Context, struct{}) (string, error) { panic("secret detail") })
	mcp.AddTool(s, mcp.Tool{Name: "boom_later", Timeout: time.Second}, func(context.Context, *mcp.Context, struct{}) (string, error) { panic("secret detail") })
	s.AddResource(mcp.Resource{URI: "mem://boom", Name: "boom", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { panic("secret detail") }})
	s.AddPrompt(mcp.Prompt{Name: "boom", Arguments: []mcp.PromptArgument{{Name: "a", Complete: func(context.Context, string, map[string]string) ([]string, error) { panic("secret detail") }}},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			panic("secret detail")
		}})

	for _, name := range []string{"boom", "boom_later"} {
		res := callTool(t, s, name, `{}`)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text(), `"`+name+`" failed with an internal error`)
		assert.NotContains(t, res.Text(), "secret")
	}
	_, rerr := s.ReadResource(ctx, newCtx(nil), "mem://boom")
	_, perr := s.GetPrompt(ctx, newCtx(nil), "boom", nil)
	_, cerr := s.Complete(ctx, newCtx(nil), mcp.CompletionRef{Type: "ref/prompt", Name: "boom"}, "a", "", nil)
	for _, err := range []error{rerr, perr, cerr} {
		var je *mcp.Error
		require.ErrorAs(t, err, &je)
		assert.EqualValues(t, mcp.CodeInternalError, je.Code)
		assert.Contains(t, je.Message, "internal error (see the server log)")
		assert.NotContains(t, je.Message, "secret")
	}
}

// TestToolIgnoringItsContextStillTimesOut: the client gets the timeout
// result at the limit even when the tool never looks at ctx; the tool
// runs on until it returns.
func TestToolIgnoringItsContextStillTimesOut(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	release := make(chan struct{})
	finished := make(chan struct{})
	mcp.AddTool(s, mcp.Tool{Name: "stubborn", Timeout: 30 * time.Millisecond},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			defer close(finished)
			<-release // ignores ctx
			return "late", nil
		})
	start := time.Now()
	res := callTool(t, s, "stubborn", `{}`)
	assert.Less(t, time.Since(start), 2*time.Second, "the answer does not wait for the tool")
	assert.True(t, res.IsError)
	assert.Equal(t, `Tool "stubborn" timed out after 30ms. Consider raising its Timeout or making it faster.`, res.Text())
	close(release)
	<-finished // the tool ran on in the background; its result was dropped
}

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func TestCallToolResultForms(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "string"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "plain", nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "content"}, func(context.Context, *mcp.Context, struct{}) (mcp.Content, error) {
		return mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "text-content"}, func(context.Context, *mcp.Context, struct{}) (mcp.TextContent, error) {
		return mcp.Text("one item"), nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "contents"}, func(context.Context, *mcp.Context, struct{}) ([]mcp.Content, error) {
		return []mcp.Content{mcp.Text("a"), mcp.Text("b")}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "result"}, func(context.Context, *mcp.Context, struct{}) (*mcp.ContentResult, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("r")}, Meta: map[string]any{"k": "v"}}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "nil-result"}, func(context.Context, *mcp.Context, struct{}) (*mcp.ContentResult, error) {
		return nil, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "result-value"}, func(context.Context, *mcp.Context, struct{}) (mcp.ContentResult, error) {
		return mcp.ContentResult{Content: []mcp.Content{mcp.Text("v")}}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "struct"}, func(context.Context, *mcp.Context, struct{}) (point, error) {
		return point{X: 1, Y: 2}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "any-string"}, func(context.Context, *mcp.Context, struct{}) (any, error) {
		return "dynamic", nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "any-struct"}, func(context.Context, *mcp.Context, struct{}) (any, error) {
		return point{X: 3}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "any-contents"}, func(context.Context, *mcp.Context, struct{}) (any, error) {
		return []mcp.Content{mcp.Text("x")}, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "any-nil"}, func(context.Context, *mcp.Context, struct{}) (any, error) {
		return nil, nil
	})

	tests := []struct {
		tool           string
		wantContent    []mcp.Content
		wantStructured any
		wantOutSchema  bool
		wantMeta       map[string]any
	}{
		{tool: "string", wantContent: []mcp.Content{mcp.Text("plain")}},
		{tool: "content", wantContent: []mcp.Content{mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}}},
		{tool: "text-content", wantContent: []mcp.Content{mcp.Text("one item")}},
		{tool: "contents", wantContent: []mcp.Content{mcp.Text("a"), mcp.Text("b")}},
		{tool: "result", wantContent: []mcp.Content{mcp.Text("r")}, wantMeta: map[string]any{"k": "v"}},
		{tool: "nil-result"},
		{tool: "result-value", wantContent: []mcp.Content{mcp.Text("v")}},
		{tool: "struct", wantContent: []mcp.Content{mcp.Text(`{"x":1,"y":2}`)},
			wantStructured: json.RawMessage(`{"x":1,"y":2}`), wantOutSchema: true},
		{tool: "any-string", wantContent: []mcp.Content{mcp.Text("dynamic")}},
		{tool: "any-struct", wantContent: []mcp.Content{mcp.Text(`{"x":3,"y":0}`)},
			wantStructured: json.RawMessage(`{"x":3,"y":0}`)},
		{tool: "any-contents", wantContent: []mcp.Content{mcp.Text("x")}},
		{tool: "any-nil"},
	}
	tools := map[string]mcp.Tool{}
	for _, tl := range s.ListTools(context.Background(), nil) {
		tools[tl.Name] = tl
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			res := callTool(t, s, tt.tool, `{}`)
			assert.False(t, res.IsError)
			assert.Equal(t, tt.wantContent, res.Content)
			if tt.wantStructured == nil {
				assert.Nil(t, res.StructuredContent)
			} else {
				assert.JSONEq(t, string(tt.wantStructured.(json.RawMessage)), string(mustJSON(t, res.StructuredContent)))
			}
			assert.Equal(t, tt.wantMeta, res.Meta)
			if tt.wantOutSchema {
				require.NotNil(t, tools[tt.tool].OutputSchema)
				sch := toJSONMap(t, tools[tt.tool].OutputSchema)
				assert.Equal(t, "object", sch["type"])
				assert.Contains(t, sch["properties"], "x")
			} else {
				assert.Nil(t, tools[tt.tool].OutputSchema)
			}
			// The wire form always carries a content array.
			assert.Contains(t, string(mustJSON(t, res)), `"content":[`)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

type greetInput struct {
	Name  string `json:"name"`
	Mode  string `json:"mode,omitempty" enum:"formal,casual" default:"casual"`
	Count int    `json:"count,omitempty" default:"3"`
	Home  struct {
		Zip int `json:"zip"`
	} `json:"home,omitempty"`
}

func TestValidationFailuresAreToolErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var ran atomic.Int32
	mcp.AddTool(s, mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Context, in greetInput) (string, error) {
		ran.Add(1)
		return "hi " + in.Name, nil
	})
	tests := []struct {
		name string
		args string
		want []string // every one must be in the result text
	}{
		{"wrong type", `{"name": 42}`, []string{`"name"`, "type", "string"}},
		{"missing required", `{"mode": "formal"}`, []string{`"name"`, "required"}},
		{"enum violation", `{"name": "a", "mode": "rude"}`, []string{`"mode"`, "enum", "rude"}},
		{"extra property", `{"name": "a", "extra": true}`, []string{`"extra"`, "additional"}},
		{"nested wrong type", `{"name": "a", "home": {"zip": "x"}}`, []string{`"home.zip"`, "type"}},
		{"two extra properties", `{"name": "a", "x": 1, "y": 2}`, []string{`argument "x" is not accepted, nor is "y"`}},
		{"nested missing", `{"name": "a", "home": {}}`, []string{`argument "home.zip" is required but missing`}},
		{"not an object", `[1, 2]`, []string{"object", "array"}},
		{"not JSON", `{"name":`, []string{"not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := callTool(t, s, "greet", tt.args)
			require.True(t, res.IsError, "validation failures are isError results")
			text := res.Text()
			assert.Contains(t, text, `"greet"`, "the text names the tool")
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			_, detail, _ := strings.Cut(text, `"greet": `)
			assert.True(t, strings.HasPrefix(detail, "argument"), "the message starts with the word argument: %q", detail)
		})
	}
	assert.Zero(t, ran.Load(), "the tool never sees invalid input")
}

// TestValidationMessagesNameTheArgument checks the wording of both
// validators (the flat one and jsonschema-go's): every message starts with
// "argument" and names the argument.
func TestValidationMessagesNameTheArgument(t *testing.T) {
	t.Parallel()
	type flat struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
	}
	type full struct {
		Query  string    `json:"query"`
		Values []float64 `json:"values"`
		Tags   []string  `json:"tags,omitempty"`
	}
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "flat"}, func(context.Context, *mcp.Context, flat) (string, error) { return "ok", nil })
	mcp.AddTool(s, mcp.Tool{Name: "full"}, func(context.Context, *mcp.Context, full) (string, error) { return "ok", nil })
	tests := []struct {
		tool, args, want string
	}{
		{"flat", `{}`, `argument "query" is required but missing`},
		{"flat", `{"query": 1}`, `argument "query": type: 1 has type "integer", want "string"`},
		{"flat", `{"query": "q", "other": 1}`, `argument "other" is not accepted (the schema allows no additional properties)`},
		{"full", `{"values": []}`, `argument "query" is required but missing`},
		{"full", `{}`, `argument "query" is required but missing, and so is "values"`},
		{"full", `{"query": "q", "values": null}`, `argument "values" is required and cannot be null`},
		{"full", `{"query": "q", "values": ["a"]}`, `argument "values[]": type: a has type "string", want "number"`},
		{"full", `{"query": "q", "values": [], "tags": null}`, ""},
		{"flat", `{"query": null}`, `argument "query" is required and cannot be null`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			t.Parallel()
			res := callTool(t, s, tt.tool, tt.args)
			if tt.want == "" {
				assert.False(t, res.IsError, res.Text())
				return
			}
			require.True(t, res.IsError)
			assert.Equal(t, fmt.Sprintf("Invalid arguments for tool %q: %s", tt.tool, tt.want), res.Text())
		})
	}
}

func TestDefaultsAppliedBeforeTheToolRuns(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	got := make(chan greetInput, 10)
	mcp.AddTool(s, mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Context, in greetInput) (string, error) {
		got <- in
		return "", nil
	})
	var raw atomic.Value
	s.AddRawTool(mcp.Tool{Name: "raw", InputSchema: toolSchema(t, `{"type":"object","properties":{"n":{"type":"integer","default":7}}}`)},
		func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			raw.Store(string(args))
			return &mcp.ContentResult{}, nil
		})
	tests := []struct {
		name    string
		args    string
		want    greetInput
		wantErr bool
	}{
		{name: "all defaults", args: `{"name":"a"}`, want: greetInput{Name: "a", Mode: "casual", Count: 3}},
		{name: "given values win", args: `{"name":"b","mode":"formal","count":9}`, want: greetInput{Name: "b", Mode: "formal", Count: 9}},
		{name: "defaults do not satisfy required", args: `null`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, s, "greet", tt.args)
			if tt.wantErr {
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), `"name"`)
				return
			}
			require.False(t, res.IsError, res.Text())
			assert.Equal(t, tt.want, <-got)
		})
	}
	t.Run("raw tool", func(t *testing.T) {
		res := callTool(t, s, "raw", `{}`)
		require.False(t, res.IsError, res.Text())
		assert.JSONEq(t, `{"n":7}`, raw.Load().(string))
	})
}

func TestUserErrorPassthrough(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	type extras struct {
		Field string `json:"field"`
	}
	tests := []struct {
		name           string
		err            error
		wantText       string
		wantStructured any
	}{
		{"message only", &mcp.UserError{Message: "Out of stock: try tomorrow"}, "Out of stock: try tomorrow", nil},
		{"with extras", &mcp.UserError{Message: "bad field", Extras: extras{Field: "qty"}}, "bad field", extras{Field: "qty"}},
		{"formatted", mcp.UserErrorf("only %d left", 2), "only 2 left", nil},
		{"wrapped", fmt.Errorf("context: %w", &mcp.UserError{Message: "inner"}), "inner", nil},
	}
	for i, tt := range tests {
		name := fmt.Sprintf("u%d", i)
		mcp.AddTool(s, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "", tt.err
		})
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := callTool(t, s, name, `{}`)
			assert.True(t, res.IsError)
			require.Len(t, res.Content, 1)
			assert.Equal(t, mcp.Text(tt.wantText), res.Content[0], "the text is the message, unchanged")
			assert.Equal(t, tt.wantStructured, res.StructuredContent)
		})
	}
}

func TestToolFailures(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "fails"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", errors.New("disk full")
	})
	mcp.AddTool(s, mcp.Tool{Name: "panics"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		panic("boom")
	})
	mcp.AddTool(s, mcp.Tool{Name: "rpc-error"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", &mcp.Error{Code: -32099, Message: "custom"}
	})
	mcp.AddTool(s, mcp.Tool{Name: "ok"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "fine", nil
	})

	t.Run("plain error names the tool", func(t *testing.T) {
		t.Parallel()
		res := callTool(t, s, "fails", `{}`)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text(), `"fails"`)
		assert.Contains(t, res.Text(), "disk full")
	})
	t.Run("panic names the tool and the server keeps working", func(t *testing.T) {
		t.Parallel()
		for range 3 {
			res := callTool(t, s, "panics", `{}`)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), `"panics"`)
			assert.NotContains(t, res.Text(), "boom", "panic values stay in the server log")
		}
		res := callTool(t, s, "ok", `{}`)
		assert.False(t, res.IsError)
		assert.Equal(t, "fine", res.Text())
	})
	t.Run("mcp.Error becomes a JSON-RPC error", func(t *testing.T) {
		t.Parallel()
		_, err := s.CallTool(context.Background(), newCtx(nil), "rpc-error", nil)
		var je *mcp.Error
		require.ErrorAs(t, err, &je)
		assert.EqualValues(t, -32099, je.Code)
	})
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		_, err := s.CallTool(context.Background(), newCtx(nil), "nope", nil)
		var je *mcp.Error
		require.ErrorAs(t, err, &je)
		assert.EqualValues(t, mcp.CodeInvalidParams, je.Code)
		assert.Contains(t, je.Message, `"nope"`)
	})
}

func TestToolTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	cause := make(chan error, 1)
	mcp.AddTool(s, mcp.Tool{Name: "slow", Timeout: 50 * time.Millisecond},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			select {
			case <-ctx.Done():
				cause <- ctx.Err()
				return "", ctx.Err()
			case <-time.After(10 * time.Second):
				cause <- nil
				return "too late", nil
			}
		})
	mcp.AddTool(s, mcp.Tool{Name: "quick", Timeout: time.Second},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "done", nil })

	start := time.Now()
	res := callTool(t, s, "slow", `{}`)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), `"slow"`)
	assert.Contains(t, res.Text(), "50ms")
	select {
	case err := <-cause:
		assert.ErrorIs(t, err, context.DeadlineExceeded, "the tool's context is cancelled at the limit")
	case <-time.After(5 * time.Second):
		t.Fatal("the tool never saw its context end")
	}

	res = callTool(t, s, "quick", `{}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "done", res.Text())
}

func TestToolTimeoutCallerCancelIsNotATimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	started := make(chan struct{})
	mcp.AddTool(s, mcp.Tool{Name: "slow", Timeout: 10 * time.Second},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := s.CallTool(ctx, newCtx(nil), "slow", nil)
	if err == nil {
		assert.NotContains(t, res.Text(), "timed out", "a caller's cancel is not the tool's timeout")
	}
}

func TestCanAccessHides(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	admin := func(_ context.Context, auth any) bool { u, _ := auth.(string); return u == "admin" }
	mcp.AddTool(s, mcp.Tool{Name: "public"}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "secret", CanAccess: admin}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "authed", CanAccess: access.Authenticated}, noopTool)
	s.AddResource(mcp.Resource{URI: "mem://secret", Name: "s", CanAccess: admin,
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "s"}}, nil
		}})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "secret://{x}", Name: "s", CanAccess: admin, Load: noopTemplateLoad})
	s.AddPrompt(mcp.Prompt{Name: "secret", CanAccess: admin, Load: noopPrompt})

	tests := []struct {
		auth      any
		wantTools []string
		visible   bool
	}{
		{nil, []string{"public"}, false},
		{"guest", []string{"public", "authed"}, false},
		{"admin", []string{"public", "secret", "authed"}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.auth), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var names []string
			for _, tl := range s.ListTools(ctx, tt.auth) {
				names = append(names, tl.Name)
			}
			assert.Equal(t, tt.wantTools, names)

			_, err := s.CallTool(ctx, newCtx(tt.auth), "secret", nil)
			_, rerr := s.ReadResource(ctx, newCtx(tt.auth), "mem://secret")
			_, terr := s.ReadResource(ctx, newCtx(tt.auth), "secret://x")
			_, perr := s.GetPrompt(ctx, newCtx(tt.auth), "secret", nil)
			if tt.visible {
				assert.NoError(t, err)
				assert.NoError(t, rerr)
				assert.NoError(t, terr)
				assert.NoError(t, perr)
				assert.Len(t, s.ListResources(ctx, tt.auth), 1)
				assert.Len(t, s.ListResourceTemplates(ctx, tt.auth), 1)
				assert.Len(t, s.ListPrompts(ctx, tt.auth), 1)
				return
			}
			for _, e := range []error{err, rerr, terr, perr} {
				assert.ErrorIs(t, e, &mcp.Error{Code: mcp.CodeInvalidParams}, "a hidden object reads as unknown")
			}
			assert.Empty(t, s.ListResources(ctx, tt.auth))
			assert.Empty(t, s.ListResourceTemplates(ctx, tt.auth))
			assert.Empty(t, s.ListPrompts(ctx, tt.auth))
		})
	}
}

func TestAccessPolicyHides(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "admin_reset"}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "admin_stats"}, noopTool)
	mcp.AddTool(s, mcp.Tool{Name: "echo"}, noopTool)
	s.AddResource(mcp.Resource{URI: "mem://admin", Name: "a", Load: noopLoad})
	s.AddPrompt(mcp.Prompt{Name: "admin_prompt", Load: noopPrompt})

	noAdmin := func(_ context.Context, q access.Query) bool {
		return q.Auth == "root" || !strings.Contains(q.Name, "admin")
	}
	noEcho := func(_ context.Context, q access.Query) bool { return !(q.Kind == access.KindTool && q.Name == "echo") }

	tests := []struct {
		name      string
		ctx       context.Context
		auth      any
		wantTools []string
	}{
		{"no policy", context.Background(), nil, []string{"admin_reset", "admin_stats", "echo"}},
		{"policy refuses", access.WithPolicy(context.Background(), noAdmin), "user", []string{"echo"}},
		{"policy allows root", access.WithPolicy(context.Background(), noAdmin), "root", []string{"admin_reset", "admin_stats", "echo"}},
		{"policies compose", access.WithPolicy(access.WithPolicy(context.Background(), noAdmin), noEcho), "user", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var names []string
			for _, tl := range s.ListTools(tt.ctx, tt.auth) {
				names = append(names, tl.Name)
			}
			assert.Equal(t, tt.wantTools, names)
			for _, n := range []string{"admin_reset", "echo"} {
				_, err := s.CallTool(tt.ctx, newCtx(tt.auth), n, nil)
				if slices.Contains(tt.wantTools, n) {
					assert.NoError(t, err, n)
				} else {
					assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams}, n)
				}
			}
			adminVisible := slices.Contains(tt.wantTools, "admin_reset")
			_, rerr := s.ReadResource(tt.ctx, newCtx(tt.auth), "mem://admin")
			_, perr := s.GetPrompt(tt.ctx, newCtx(tt.auth), "admin_prompt", nil)
			assert.Equal(t, adminVisible, rerr == nil, "resource: %v", rerr)
			assert.Equal(t, adminVisible, perr == nil, "prompt: %v", perr)
			assert.Equal(t, adminVisible, len(s.ListResources(tt.ctx, tt.auth)) == 1)
			assert.Equal(t, adminVisible, len(s.ListPrompts(tt.ctx, tt.auth)) == 1)
		})
	}
}

func TestToolContext(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	type user struct{ Name string }
	got := make(chan string, 1)
	mcp.AddTool(s, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		u, ok := c.Session.(user)
		if !ok {
			return "", errors.New("no user")
		}
		got <- c.RequestID
		return u.Name, nil
	})
	c := mcp.NewContext(context.Background(), mcp.RequestInfo{Session: user{"ada"}, RequestID: "7"})
	res, err := s.CallTool(context.Background(), c, "whoami", nil)
	require.NoError(t, err)
	assert.Equal(t, "ada", res.Text())
	assert.Equal(t, "7", <-got)

	assert.ErrorIs(t, c.ReportProgress(context.Background(), mcp.Progress{Progress: 1}), mcp.ErrNoProgressToken)
	assert.ErrorIs(t, c.StreamContent(context.Background(), mcp.Text("x")), mcp.ErrNoPeer)
	_, err = c.Roots(context.Background())
	assert.ErrorIs(t, err, mcp.ErrCapability)
}

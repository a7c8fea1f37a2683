package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

type findArgs struct {
	Query string `json:"query" jsonschema:"what to look for"`
	Limit int    `json:"limit,omitempty" default:"10"`
	User  string `json:"user"`
	Debug bool   `json:"debug,omitempty"`
}

// transformServer has a typed tool "search" and its transform "find":
// query renamed q, limit defaulting to 5, user hidden and fixed, debug
// hidden without a value.
func transformServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "search", Description: "Search everything", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.Context, in findArgs) (string, error) {
			return fmt.Sprintf("query=%s limit=%d user=%s debug=%v", in.Query, in.Limit, in.User, in.Debug), nil
		})
	s.AddTransformedTool("search", mcp.Transform{Name: "find", Description: "Find notes",
		Args: map[string]mcp.ArgTransform{
			"query": {Name: "q", Description: "the words to find"},
			"limit": {Default: 5},
			"user":  {Hide: true, Value: "ada"},
			"debug": {Hide: true},
		}})
	return s
}

func toolByName(t *testing.T, s *mcp.Server, name string) mcp.Tool {
	t.Helper()
	for _, tl := range s.ListTools(context.Background(), nil) {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return mcp.Tool{}
}

// TestTransformSchema: the derived tool's schema has the renamed, described
// and defaulted arguments and not the hidden ones, the required list and
// order follow, additionalProperties and the annotations are the
// source's; the source is unchanged.
func TestTransformSchema(t *testing.T) {
	t.Parallel()
	s := transformServer(t)
	find := toolByName(t, s, "find")
	b, err := json.Marshal(find)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"find","description":"Find notes","annotations":{"readOnlyHint":true},
		"inputSchema":{"type":"object","additionalProperties":false,"required":["q"],"properties":{
			"q":{"type":"string","description":"the words to find"},
			"limit":{"type":"integer","default":5}}}}`, string(b))
	assert.Less(t, strings.Index(string(b), `"q"`), strings.Index(string(b), `"limit"`), "the source's order, renamed")

	b, err = json.Marshal(toolByName(t, s, "search"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"search","description":"Search everything","annotations":{"readOnlyHint":true},
		"inputSchema":{"type":"object","additionalProperties":false,"required":["query","user"],"properties":{
			"query":{"type":"string","description":"what to look for"},
			"limit":{"type":"integer","default":10},
			"user":{"type":"string"},
			"debug":{"type":"boolean"}}}}`, string(b), "the source is unchanged")
}

// TestTransformCall: a call of the derived tool is validated against its
// schema (a hidden or old name is refused like any unknown argument, the
// renamed one is required), then mapped back to the source with the
// hidden values and the derived defaults.
func TestTransformCall(t *testing.T) {
	t.Parallel()
	s := transformServer(t)
	tests := []struct {
		args    string
		want    string
		isError bool
	}{
		{`{"q":"go"}`, "query=go limit=5 user=ada debug=false", false},
		{`{"q":"go","limit":3}`, "query=go limit=3 user=ada debug=false", false},
		{`{"query":"go"}`, `argument "query" is not accepted`, true},
		{`{"q":"go","user":"eve"}`, `argument "user" is not accepted`, true},
		{`{"q":"go","debug":true}`, `argument "debug" is not accepted`, true},
		{`{}`, `argument "q" is required but missing`, true},
		{`{"q":"go","limit":"many"}`, `argument "limit"`, true},
		{`{"Q":"go"}`, `"Q"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, err := s.CallTool(context.Background(), newCtx(nil), "find", json.RawMessage(tt.args))
			if err != nil {
				// A case variant is a JSON-RPC error, as for any tool.
				require.True(t, tt.isError)
				assert.Contains(t, err.Error(), tt.want)
				return
			}
			assert.Equal(t, tt.isError, res.IsError)
			assert.Contains(t, res.Content[0].(mcp.TextContent).Text, tt.want)
			if tt.isError {
				assert.Contains(t, res.Content[0].(mcp.TextContent).Text, `tool "find"`, "the error names the derived tool")
			}
		})
	}
}

// TestTransformOpenSchema: a raw source whose schema takes additional
// properties: unknown arguments pass through, but a hidden argument or a
// renamed one's old name never reaches the source from the client.
func TestTransformOpenSchema(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRawTool(mcp.Tool{Name: "echo", InputSchema: toolSchema(t, `{"type":"object","properties":{
		"a":{"type":"integer"},"b":{"type":"integer"},"token":{"type":"string"},"old":{"type":"string"}},"required":["token"]}`)},
		func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(string(args))}}, nil
		})
	s.AddTransformedTool("echo", mcp.Transform{Name: "echo2", Args: map[string]mcp.ArgTransform{
		"a":     {Name: "b"}, // a swap: the client's b is the source's a
		"b":     {Name: "a"},
		"old":   {Name: "new", Required: true},
		"token": {Hide: true, ValueFunc: func(_ context.Context, c *mcp.Context) (any, error) { return fmt.Sprint(c.Session), nil }},
	}})
	res, err := s.CallTool(context.Background(), newCtx("secret-of-ada"), "echo2",
		json.RawMessage(`{"a":1,"b":2,"new":"n","old":"smuggled","token":"forged","extra":true}`))
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res)
	assert.JSONEq(t, `{"a":2,"b":1,"old":"n","token":"secret-of-ada","extra":true}`, res.Content[0].(mcp.TextContent).Text)

	b, err := json.Marshal(toolByName(t, s, "echo2").InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","required":["new"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"},"new":{"type":"string"}}}`, string(b))

	// A default makes a required argument optional.
	s.AddTransformedTool("echo", mcp.Transform{Name: "echo3", Args: map[string]mcp.ArgTransform{"token": {Default: "public"}}})
	b, err = json.Marshal(toolByName(t, s, "echo3").InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"old":{"type":"string"},"token":{"type":"string","default":"public"}}}`, string(b))
	res = callTool(t, s, "echo3", `{"a":1}`)
	assert.JSONEq(t, `{"a":1,"token":"public"}`, res.Content[0].(mcp.TextContent).Text)
}

// TestTransformWrap: the wrapper sees the derived arguments (numbers
// exact), may change them and the result, or answer without the source;
// arguments it breaks fail the source's validation as an isError result.
func TestTransformWrap(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	s.AddTransformedTool("add", mcp.Transform{Name: "add_checked", Args: map[string]mcp.ArgTransform{"a": {Name: "x"}},
		Wrap: func(ctx context.Context, c *mcp.Context, args map[string]any, next mcp.ToolCall) (*mcp.ContentResult, error) {
			if args["b"] == json.Number("0") {
				return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("nothing to add")}}, nil
			}
			if args["b"] == json.Number("-1") {
				args["b"] = "not a number"
			}
			res, err := next(ctx, args)
			if err != nil {
				return nil, err
			}
			res.Content = append(res.Content, mcp.Text(fmt.Sprintf("x was %v (%T)", args["x"], args["x"])))
			return res, nil
		}})
	texts := func(r *mcp.ContentResult) []string {
		var out []string
		for _, c := range r.Content {
			out = append(out, c.(mcp.TextContent).Text)
		}
		return out
	}
	r := callTool(t, s, "add_checked", `{"x":9007199254740993,"b":1}`)
	assert.Equal(t, []string{"9007199254740994", "x was 9007199254740993 (json.Number)"}, texts(r))
	r = callTool(t, s, "add_checked", `{"x":1,"b":0}`)
	assert.Equal(t, []string{"nothing to add"}, texts(r))
	r = callTool(t, s, "add_checked", `{"x":1,"b":-1}`)
	assert.True(t, r.IsError)
	assert.Contains(t, texts(r)[0], `Invalid arguments for tool "add_checked"`)
	assert.Contains(t, texts(r)[0], `argument "b"`)
}

// TestTransformOutlivesSource: the derived tool keeps the source's
// CanAccess and works after the source is removed.
func TestTransformOutlivesSource(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "admin_op", CanAccess: access.Authenticated}, func(context.Context, *mcp.Context, struct {
		Mode string `json:"mode"`
	}) (string, error) {
		return "done", nil
	})
	s.AddTransformedTool("admin_op", mcp.Transform{Name: "safe_op", Args: map[string]mcp.ArgTransform{"mode": {Hide: true, Value: "dry-run"}}})
	s.Registry().Remove(access.KindTool, "admin_op")
	// A transform of a transform.
	s.AddTransformedTool("safe_op", mcp.Transform{Name: "safe_op2", Description: "again"})
	res, err := s.CallTool(context.Background(), newCtx("ada"), "safe_op2", nil)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Content[0].(mcp.TextContent).Text)
	s.Registry().Remove(access.KindTool, "safe_op2")
	res, err = s.CallTool(context.Background(), newCtx("ada"), "safe_op", nil)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Content[0].(mcp.TextContent).Text)
	_, err = s.CallTool(context.Background(), newCtx(nil), "safe_op", nil)
	assert.ErrorContains(t, err, "Unknown tool", "CanAccess is the source's")
	assert.Len(t, s.ListTools(context.Background(), "ada"), 1)
}

// TestTransformRegistrationErrors: a transform that cannot work is
// refused at registration, naming the problem.
func TestTransformRegistrationErrors(t *testing.T) {
	t.Parallel()
	s := transformServer(t)
	s.AddRawTool(mcp.Tool{Name: "combo", InputSchema: toolSchema(t, `{"type":"object","properties":{"a":{},"b":{}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`)},
		func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{}, nil
		})
	tests := []struct {
		name   string
		source string
		tr     mcp.Transform
		want   string
		is     error
	}{
		{"unknown source", "nope", mcp.Transform{Name: "x"}, `no tool named "nope"`, mcp.ErrInvalidDefinition},
		{"unknown argument", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"qeury": {Name: "q"}}},
			`argument "qeury": the source has no such argument (it has "debug", "limit", "query", "user")`, mcp.ErrInvalidDefinition},
		{"rename onto another", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"query": {Name: "limit"}}},
			`arguments "limit" and "query" would both be named "limit"`, mcp.ErrInvalidDefinition},
		{"two renames onto one", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"query": {Name: "q"}, "user": {Name: "q"}}},
			`arguments "query" and "user" would both be named "q"`, mcp.ErrInvalidDefinition},
		{"hidden required without value", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"user": {Hide: true}}},
			`argument "user": it is required, so hiding it needs a Value or ValueFunc`, mcp.ErrInvalidDefinition},
		{"value without hide", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"user": {Value: "ada"}}},
			`argument "user": a Value or ValueFunc is for a hidden argument`, mcp.ErrInvalidDefinition},
		{"hide and rename", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"user": {Hide: true, Value: "a", Name: "u"}}},
			`a hidden argument takes no Name`, mcp.ErrInvalidDefinition},
		{"value of the wrong type", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"limit": {Hide: true, Value: "ten"}}},
			`argument "limit": the Value "ten" is not valid for the argument`, mcp.ErrInvalidDefinition},
		{"default of the wrong type", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"limit": {Default: true}}},
			`argument "limit": the Default true is not valid for the argument`, mcp.ErrInvalidDefinition},
		{"bad argument name", "search", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"query": {Name: "a\nb"}}},
			`argument "query": the new name "a\nb" is not a usable argument name`, mcp.ErrInvalidDefinition},
		{"rename under anyOf", "combo", mcp.Transform{Name: "x", Args: map[string]mcp.ArgTransform{"a": {Name: "c"}}},
			`constrains its arguments with anyOf`, mcp.ErrInvalidDefinition},
		{"bad tool name", "search", mcp.Transform{Name: "a b"}, `tool "a b"`, mcp.ErrInvalidToolName},
		{"no name", "search", mcp.Transform{}, `Tool.Name is required`, mcp.ErrInvalidToolName},
		{"name taken", "search", mcp.Transform{Name: "find"}, `"find" is already registered`, mcp.ErrAlreadyRegistered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Registry().AddTransformedTool(tt.source, tt.tr)
			require.Error(t, err)
			assert.True(t, errors.Is(err, tt.is), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, panicMessage(func() { s.AddTransformedTool(tt.source, tt.tr) }), "mcp: AddTransformedTool: ")
		})
	}
	assert.Len(t, s.ListTools(context.Background(), nil), 3, "nothing was registered")
}

// transformedServer has a typed tool "book" and its transform "book_room":
// room renamed, floor hidden and fixed, nights defaulted, a wrapper that
// adds a line; the source is removed, so only the transform is listed.
func transformedServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "transform", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "book"}, func(_ context.Context, _ *mcp.Context, in struct {
		Room   string `json:"room"`
		Floor  int    `json:"floor"`
		Nights int    `json:"nights,omitempty"`
	}) (string, error) {
		return fmt.Sprintf("room %s on floor %d for %d nights", in.Room, in.Floor, in.Nights), nil
	})
	srv.AddTransformedTool("book", mcp.Transform{Name: "book_room", Description: "Book a room on the third floor",
		Args: map[string]mcp.ArgTransform{
			"room":   {Name: "number", Description: "the room number"},
			"floor":  {Hide: true, Value: 3},
			"nights": {Default: 1},
		},
		Wrap: func(ctx context.Context, c *mcp.Context, args map[string]any, next mcp.ToolCall) (*mcp.ContentResult, error) {
			res, err := next(ctx, args)
			if err == nil && !res.IsError {
				res.Content = append(res.Content, mcp.Text("booked"))
			}
			return res, err
		}})
	srv.Registry().Remove(access.KindTool, "book")
	return srv
}

const bookRoomSchema = `{"type":"object","additionalProperties":false,"required":["number"],"properties":{
	"number":{"type":"string","description":"the room number"},"nights":{"type":"integer","default":1}}}`

// TestTransformedToolOverHTTP: tools/list and tools/call of a derived tool
// at 2025-11-25 and 2026-07-28: the derived schema is listed, a call is
// mapped to the source, a hidden argument is refused.
func TestTransformedToolOverHTTP(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		c := wiretest.StartHTTP(t, transformedServer())
		wiretest.Initialize(t, c)
		call := func(id int, method, params string) wiretest.Msg {
			var m wiretest.Msg
			require.NoError(t, json.Unmarshal(c.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)), &m))
			return m
		}
		res := call(1, "tools/list", `{}`)
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(res.Result, &list))
		require.Len(t, list.Tools, 1)
		assert.JSONEq(t, `{"name":"book_room","description":"Book a room on the third floor","inputSchema":`+bookRoomSchema+`}`, string(list.Tools[0]))

		res = call(2, "tools/call", `{"name":"book_room","arguments":{"number":"12"}}`)
		r := wiretest.ToolResult(t, res)
		require.False(t, r.IsError, "%+v", r)
		assert.Equal(t, []mcp.Content{mcp.Text("room 12 on floor 3 for 1 nights"), mcp.Text("booked")}, r.Content)

		res = call(3, "tools/call", `{"name":"book_room","arguments":{"number":"12","floor":1}}`)
		r = wiretest.ToolResult(t, res)
		assert.True(t, r.IsError)
		assert.Contains(t, r.Content[0].(mcp.TextContent).Text, `argument "floor" is not accepted`)

		res = call(4, "tools/call", `{"name":"book","arguments":{"room":"12","floor":1}}`)
		require.NotNil(t, res.Error, "the removed source is unknown")
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(transformedServer(), nil)
		t.Cleanup(func() { _ = h.Close() })
		c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{ProtocolVersion: mcp.Version20260728, Logger: quietLogger()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		require.NoError(t, c.Call(t.Context(), "tools/list", nil, &list))
		require.Len(t, list.Tools, 1)
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(list.Tools[0], &tool))
		assert.JSONEq(t, bookRoomSchema, string(tool.InputSchema))

		r, err := c.CallTool(t.Context(), "book_room", map[string]any{"number": "7", "nights": 2}, nil)
		require.NoError(t, err)
		assert.Equal(t, []mcp.Content{mcp.Text("room 7 on floor 3 for 2 nights"), mcp.Text("booked")}, r.Content)
	})
}

// TestTransformedToolStdioAndEmbedded: the same derived tool over stdio
// and in an embedded session (mcptest).
func TestTransformedToolStdioAndEmbedded(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c := wiretest.StartStdio(t, transformedServer())
		wiretest.Initialize(t, c)
		var m wiretest.Msg
		require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_room","arguments":{"number":"5"}}}`), &m))
		assert.Equal(t, []mcp.Content{mcp.Text("room 5 on floor 3 for 1 nights"), mcp.Text("booked")}, wiretest.ToolResult(t, m).Content)
		require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book_room","arguments":{"room":"5"}}}`), &m))
		r := wiretest.ToolResult(t, m)
		assert.True(t, r.IsError)
		assert.Contains(t, r.Content[0].(mcp.TextContent).Text, `argument "room" is not accepted`)
	})
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		s := mcptest.NewSession(t, transformedServer(), nil)
		tools := s.ListTools()
		require.Len(t, tools, 1)
		b, err := json.Marshal(tools[0].InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, bookRoomSchema, string(b))
		assert.Equal(t, "room 9 on floor 3 for 4 nights", s.CallTool("book_room", map[string]any{"number": "9", "nights": 4}, nil).Content[0].(mcp.TextContent).Text)
	})
}

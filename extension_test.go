package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/wiretest"
)

func noopHandler(context.Context, *mcp.Call) (any, error) { return struct{}{}, nil }

func noopWrap(next mcp.CallHandler) mcp.CallHandler { return next }

// AddExtension refuses what it cannot serve as asked, saying why, and
// registers nothing then.
func TestAddExtensionRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ext  mcp.Extension
		want string
	}{
		{"no ID", mcp.Extension{}, "is not a vendor prefix"},
		{"no prefix", mcp.Extension{ID: "search"}, "is not a vendor prefix"},
		{"empty name", mcp.Extension{ID: "com.example/"}, "is not a vendor prefix"},
		{"label starts with a digit", mcp.Extension{ID: "1com.example/search"}, "is not a vendor prefix"},
		{"label ends with a hyphen", mcp.Extension{ID: "com-.example/search"}, "is not a vendor prefix"},
		{"empty label", mcp.Extension{ID: "com..example/search"}, "is not a vendor prefix"},
		{"name ends with a dot", mcp.Extension{ID: "com.example/search."}, "is not a vendor prefix"},
		{"two slashes", mcp.Extension{ID: "com.example/a/b"}, "is not a vendor prefix"},
		{"non-ASCII", mcp.Extension{ID: "com.exämple/search"}, "is not a vendor prefix"},
		{"the apps extension", mcp.Extension{ID: apps.Extension}, "is the server's own"},
		{"the skills extension", mcp.Extension{ID: "io.modelcontextprotocol/skills"}, "is the server's own"},
		{"the tasks extension", mcp.Extension{ID: "io.modelcontextprotocol/tasks"}, "is the server's own"},
		{"settings not an object", mcp.Extension{ID: "com.example/x", Settings: []int{1}}, "not a JSON object"},
		{"settings that do not encode", mcp.Extension{ID: "com.example/x", Settings: map[string]any{"f": func() {}}}, "do not encode"},
		{"a protocol method", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"tools/list": noopHandler}}, "served by the engine"},
		{"an engine extension's method", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"tasks/get": noopHandler}}, "served by the engine"},
		{"subscriptions/listen", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"subscriptions/listen": noopHandler}}, "served by the engine"},
		{"a notification", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"notifications/x": noopHandler}}, "names a notification"},
		{"a JSON-RPC name", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"rpc.discover": noopHandler}}, "reserved by JSON-RPC"},
		{"no method name", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"": noopHandler}}, "reserved by JSON-RPC"},
		{"a nil handler", mcp.Extension{ID: "com.example/x", Methods: map[string]mcp.CallHandler{"x/y": nil}}, "is nil"},
		{"a wrap of nothing served", mcp.Extension{ID: "com.example/x", Wrap: map[string]mcp.Interceptor{"x/y": noopWrap}}, "does not serve"},
		{"a nil wrap", mcp.Extension{ID: "com.example/x", Wrap: map[string]mcp.Interceptor{"tools/list": nil}}, "is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			msg := panicMessage(func() { srv.AddExtension(tt.ext) })
			assert.Contains(t, msg, tt.want)
			assert.Contains(t, msg, "mcp: AddExtension: ")
		})
	}
}

// A second extension cannot take the first's ID or methods; it may wrap
// them.
func TestAddExtensionAgainstAnother(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddExtension(mcp.Extension{ID: "com.example/a", Methods: map[string]mcp.CallHandler{"a/do": noopHandler}})
	assert.Contains(t, panicMessage(func() { srv.AddExtension(mcp.Extension{ID: "com.example/a"}) }), "already added")
	assert.Contains(t, panicMessage(func() {
		srv.AddExtension(mcp.Extension{ID: "com.example/b", Methods: map[string]mcp.CallHandler{"a/do": noopHandler}})
	}), "another extension's")
	assert.Empty(t, panicMessage(func() {
		srv.AddExtension(mcp.Extension{ID: "com.example/b", Wrap: map[string]mcp.Interceptor{"a/do": noopWrap}})
	}))
}

// Wrappers compose in the order the extensions were added, the first
// outermost, around the method; a wrapper that does not call next
// answers for it.
func TestExtensionWrapOrder(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	var order []string
	tag := func(name string) mcp.Interceptor {
		return func(next mcp.CallHandler) mcp.CallHandler {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				order = append(order, name+">")
				res, err := next(ctx, c)
				order = append(order, "<"+name)
				return res, err
			}
		}
	}
	srv.AddExtension(mcp.Extension{ID: "com.example/a", Methods: map[string]mcp.CallHandler{
		"a/do": func(context.Context, *mcp.Call) (any, error) {
			order = append(order, "a/do")
			return map[string]int{"n": 1}, nil
		},
	}, Wrap: map[string]mcp.Interceptor{"a/do": tag("a")}})
	srv.AddExtension(mcp.Extension{ID: "com.example/b", Wrap: map[string]mcp.Interceptor{"a/do": tag("b")}})
	srv.AddExtension(mcp.Extension{ID: "com.example/c", Wrap: map[string]mcp.Interceptor{
		"ping": func(mcp.CallHandler) mcp.CallHandler {
			return func(context.Context, *mcp.Call) (any, error) { return map[string]bool{"wrapped": true}, nil }
		},
	}})
	c := wiretest.StartStdio(t, srv)
	wiretest.Initialize(t, c)
	var m wiretest.Msg
	require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"a/do"}`), &m))
	require.Nil(t, m.Error)
	assert.JSONEq(t, `{"n":1}`, string(m.Result))
	assert.Equal(t, []string{"a>", "b>", "a/do", "<b", "<a"}, order)
	require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`), &m))
	assert.JSONEq(t, `{"wrapped":true}`, string(m.Result), "a wrapper of a protocol method answers for it")
}

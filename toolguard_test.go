package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

type guardIn struct {
	Repo  string `json:"repo"`
	Force bool   `json:"force,omitempty" default:"false"`
}

// guardServer has a typed tool, a raw tool and a mounted server's tool;
// ran counts the runs of each.
func guardServer(ran map[string]int, mu *sync.Mutex) (*mcp.Server, *mcp.Server) {
	count := func(n string) {
		mu.Lock()
		ran[n]++
		mu.Unlock()
	}
	srv := mcp.NewServer(mcp.Options{Name: "guarded", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "delete", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(ctx context.Context, c *mcp.Context, in guardIn) (string, error) {
			count("delete")
			return "deleted " + in.Repo, nil
		})
	srv.AddRawTool(mcp.Tool{Name: "raw"}, func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
		count("raw")
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "raw"}}}, nil
	})
	child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(child, mcp.Tool{Name: "drop"}, func(ctx context.Context, c *mcp.Context, in guardIn) (string, error) {
		count("drop")
		return "dropped", nil
	})
	srv.Mount("kid", child, nil)
	return srv, child
}

// TestToolGuards: a server's guards see every tool call (typed, raw, a
// mounted server's tool under its prefixed name) with the validated
// arguments, defaults applied, and the typed input's Go type; an error
// ends the call before the tool runs, a UserError as an isError result, a
// JSON-RPC error as itself; a context's guard runs first; a mounted
// server's own guard runs after its parent's.
func TestToolGuards(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ran := map[string]int{}
	srv, child := guardServer(ran, &mu)
	var seen []mcp.GuardedCall
	var order []string
	srv.AddToolGuard(func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
		mu.Lock()
		seen = append(seen, *call)
		order = append(order, "server")
		mu.Unlock()
		var in guardIn
		_ = json.Unmarshal(call.Arguments, &in)
		switch in.Repo {
		case "refuse":
			return &mcp.UserError{Message: "refused by the guard"}
		case "rpc":
			return &mcp.Error{Code: mcp.CodeInvalidParams, Message: "guard says no"}
		}
		return nil
	})
	child.AddToolGuard(func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
		mu.Lock()
		order = append(order, "child")
		mu.Unlock()
		return nil
	})
	withCtxGuard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithToolGuard(r.Context(), func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
				mu.Lock()
				order = append(order, "context")
				mu.Unlock()
				return nil
			})))
		})
	}
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(withCtxGuard(h), nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	res, err := c.CallTool(ctx, "delete", map[string]any{"repo": "a"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "deleted a", res.Text())
	mu.Lock()
	require.Len(t, seen, 1)
	assert.Equal(t, "delete", seen[0].Name)
	assert.JSONEq(t, `{"repo":"a","force":false}`, string(seen[0].Arguments), "validated, with the default")
	assert.Equal(t, reflect.TypeFor[guardIn](), seen[0].InputType)
	assert.True(t, *seen[0].Tool.Annotations.DestructiveHint)
	assert.Equal(t, []string{"context", "server"}, order)
	order = nil
	mu.Unlock()

	res, err = c.CallTool(ctx, "delete", map[string]any{"repo": "refuse"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "refused by the guard", res.Text())
	_, err = c.CallTool(ctx, "delete", map[string]any{"repo": "rpc"}, nil)
	var je *mcp.Error
	require.True(t, errors.As(err, &je), "%v", err)
	assert.Equal(t, mcp.CodeInvalidParams, int(je.Code))

	res, err = c.CallTool(ctx, "raw", map[string]any{"repo": "b"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "raw", res.Text())
	res, err = c.CallTool(ctx, "kid_drop", map[string]any{"repo": "refuse"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "the parent's guard covers a mounted tool")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, ran["delete"], "refused calls never ran")
	assert.Equal(t, 1, ran["raw"])
	assert.Zero(t, ran["drop"])
	last := seen[len(seen)-1]
	assert.Equal(t, "kid_drop", last.Name, "the name the client called")
	assert.Nil(t, seen[len(seen)-2].InputType, "a raw tool has no Go input type")
	order = nil
	mu.Unlock()
	_, err = c.CallTool(ctx, "kid_drop", map[string]any{"repo": "c"}, nil)
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, []string{"context", "server", "child"}, order)
}

// TestToolGuardURLElicitation: a guard's URLElicitationRequired asks the
// user, and once the page is done the call, guard included, runs again:
// at 2025-11-25 the client calls again after the -32042 error; at
// 2026-07-28 the server asks in an input-required round and runs the
// call again itself.
func TestToolGuardURLElicitation(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			ran := map[string]int{}
			srv, _ := guardServer(ran, &mu)
			approved, guarded := false, 0
			srv.AddToolGuard(func(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
				mu.Lock()
				defer mu.Unlock()
				guarded++
				if approved {
					return nil
				}
				return elicit.URLRequired(elicit.URLRequest{ID: "g1", URL: "https://example.com/approve/g1", Message: "Approve it"})
			})
			h := mcphttp.New(srv, nil)
			t.Cleanup(func() { _ = h.Close() })
			ctx := context.Background()
			c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{ProtocolVersion: version,
				ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
					mu.Lock()
					approved = true // the user approved on the page
					mu.Unlock()
					return &elicit.Result{Action: elicit.ActionAccept}, nil
				}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			res, err := c.CallTool(ctx, "delete", map[string]any{"repo": "a"}, nil)
			if version == "2025-11-25" {
				var je *mcp.Error
				require.True(t, errors.As(err, &je), "%v", err)
				assert.Equal(t, mcp.CodeURLElicitationRequired, int(je.Code))
				mu.Lock()
				approved = true
				mu.Unlock()
				res, err = c.CallTool(ctx, "delete", map[string]any{"repo": "a"}, nil)
			}
			require.NoError(t, err)
			assert.Equal(t, "deleted a", res.Text())
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, 1, ran["delete"])
			assert.Equal(t, 2, guarded, "the guard ran again before the tool")
		})
	}
}

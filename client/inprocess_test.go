package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
)

// askingServer has a tool for each question a tool can put to its client.
func askingServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "asking", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "summarize"}, func(ctx context.Context, c *mcp.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 50,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: in.Text}}}})
		if err != nil {
			return "", err
		}
		return "summary: " + res.Content.(mcp.TextContent).Text, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "confirm"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Proceed?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})

		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %v", res.Action, res.Content["ok"]), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "roots"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, ","), nil
	})
	return srv
}

// TestInProcessClientHandlers: an in-process client answers the server's
// sampling, elicitation and roots requests with Options.Sample, Elicit
// and Roots, at 2025 revisions (a server-to-client request during the
// call) and at 2026-07-28 (an input-required result the client answers
// and sends again).
func TestInProcessClientHandlers(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			var asked atomic.Int32
			e := mcptest.NewSession(t, askingServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: func(ctx context.Context, p *sampling.Request) (*sampling.Result, error) {
				asked.Add(1)
				text := p.Messages[0].Content.(mcp.TextContent).Text
				return &sampling.Result{Role: mcp.RoleAssistant, Model: "test",
					Content: mcp.TextContent{Text: strings.ToUpper(text)}}, nil
			},
				Elicit: func(ctx context.Context, p *elicit.Params) (*elicit.Result, error) {
					asked.Add(1)
					require.Equal(t, "Proceed?", p.Message)
					return &elicit.Result{Action: "accept", Content: map[string]any{"ok": true}}, nil
				},
				Roots: func(ctx context.Context) ([]mcp.Root, error) {
					asked.Add(1)
					return []mcp.Root{{URI: "file:///a"}, {URI: "file:///b"}}, nil
				}}}).Client()
			for _, tc := range []struct {
				tool string
				args any
				want string
			}{
				{"summarize", map[string]string{"text": "hello"}, "summary: HELLO"},
				{"confirm", map[string]any{}, "accept true"},
				{"roots", map[string]any{}, "file:///a,file:///b"},
			} {
				res, err := e.CallTool(ctx, tc.tool, tc.args, nil)
				require.NoError(t, err, tc.tool)
				require.False(t, res.IsError, "%s: %s", tc.tool, res.Text())
				assert.Equal(t, tc.want, res.Text(), tc.tool)
			}
			assert.GreaterOrEqual(t, asked.Load(), int32(3), "every handler ran")
		})
	}
}

// TestInProcessClientWithoutHandlers: without a handler the client
// declares no capability, and the tool meets mcp.ErrCapability.
func TestInProcessClientWithoutHandlers(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			e := mcptest.NewSession(t, askingServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version}}).Client()
			for tool, args := range map[string]any{"summarize": map[string]string{"text": "x"}, "confirm": struct{}{}, "roots": struct{}{}} {
				res, err := e.CallTool(ctx, tool, args, nil)
				require.NoError(t, err, tool)
				assert.True(t, res.IsError, "%s without a handler: %s", tool, res.Text())
				assert.Contains(t, res.Text(), "did not declare that capability", tool)
			}
		})
	}
}

// TestInProcessClientHandlerError: a handler's error reaches the caller:
// at 2025 revisions the tool gets it as the client's JSON-RPC error (and
// returns it, which makes it the call's error); at 2026-07-28 the client
// cannot answer the question, so the call fails.
func TestInProcessClientHandlerError(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			e := mcptest.NewSession(t, askingServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
				return nil, errors.New("no model configured")
			}}}).Client()
			_, err := e.CallTool(ctx, "summarize", map[string]string{"text": "x"}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "no model configured")
		})
	}
}

// TestInProcessRev20260728RefusesNonObjectParams: at 2026-07-28 the
// client adds _meta to every request's params, so params that are not a
// JSON object are an error, not sent.
func TestInProcessRev20260728RefusesNonObjectParams(t *testing.T) {
	t.Parallel()
	e := mcptest.NewSession(t, askingServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728}}).Client()
	err := e.Call(context.Background(), "tools/list", []int{1}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "params must be a JSON object")
}

// TestInProcessRev20260728CloseIsQuick: a client without a session
// closes at once.
func TestInProcessRev20260728CloseIsQuick(t *testing.T) {
	t.Parallel()
	e := mcptest.NewSession(t, askingServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728}}).Client()
	done := make(chan error, 1)
	go func() { done <- e.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close of a 2026-07-28 in-process client did not return within 5 s")
	}
}

// TestInProcessChangeRightAfterConnect: notifications/initialized has
// reached the server when Connect returns, as over HTTP, so a change the
// server announces at once reaches the client (it was dropped while the
// session was not yet initialized).
func TestInProcessChangeRightAfterConnect(t *testing.T) {
	t.Parallel()
	for range 20 {
		srv := mcp.NewServer(mcp.Options{Name: "late", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
		h := mcphttp.New(srv, nil)
		changed := make(chan struct{}, 1)
		c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{OnToolsChanged: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
		require.NoError(t, err)
		mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("notifications/tools/list_changed never reached the client")
		}
		require.NoError(t, c.Close())
		require.NoError(t, h.Close())
	}
}

// TestInProcessWithoutHandler: a nil handler (mcphttp.Local's error
// ignored) is an error of Connect, not a panic on the first request.
func TestInProcessWithoutHandler(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "guarded", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(*http.Request) (any, error) { return nil, mcp.ErrUnauthorized }})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	local, _ := mcphttp.Local(h, "root") // refused: the server authenticates
	_, err := client.Connect(t.Context(), client.InProcess(local, nil), nil)
	require.ErrorContains(t, err, "InProcess has no handler")
}

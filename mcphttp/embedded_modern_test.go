package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// newModernEmbedServer is a server whose tools show what a request saw:
// its session, version and client; one reports progress and logs, one has
// an x-mcp-header argument (a routing header only HTTP has), one waits
// until cancelled.
func newModernEmbedServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "embedded-modern", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "seen"}, func(_ context.Context, c *mcp.Context, _ struct{}) (any, error) {
		return map[string]any{"sessionId": c.SessionID, "version": c.ProtocolVersion, "client": c.Client.Name}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "progress"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("working")
		for i := 1; i <= 2; i++ {
			_ = c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2})
		}
		return "done", nil
	})
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"region": {Type: "string", Extra: map[string]any{"x-mcp-header": "Region"}},
	}}
	srv.AddRawTool(mcp.Tool{Name: "where", InputSchema: schema},
		func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(string(args))}}, nil
		})
	return srv
}

func TestEmbedModernRevision(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var notes []string
	ctx := context.Background()
	e, err := mcphttp.Embed(ctx, newModernEmbedServer(t), &mcphttp.EmbedOptions{
		ProtocolVersion: mcp.Version20260728,
		ClientInfo:      mcp.Implementation{Name: "agent", Version: "2.0.0"},
		OnNotification: func(method string, params json.RawMessage) {
			mu.Lock()
			notes = append(notes, method+" "+string(params))
			mu.Unlock()
		},
	})
	require.NoError(t, err)
	defer e.Close()

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"no session, the revision and client from _meta", func(t *testing.T) {
			got, res, err := mcphttp.CallToolAs[map[string]string](ctx, e, "seen", map[string]any{})
			require.NoError(t, err, "%+v", res)
			assert.Equal(t, map[string]string{"sessionId": "", "version": string(mcp.Version20260728), "client": "agent"}, got)
		}},
		{"lists carry the revision's fields", func(t *testing.T) {
			var raw map[string]json.RawMessage
			require.NoError(t, e.Request(ctx, "tools/list", nil, &raw))
			assert.JSONEq(t, `"complete"`, string(raw["resultType"]))
			assert.JSONEq(t, `0`, string(raw["ttlMs"]))
			assert.Contains(t, string(raw["_meta"]), "io.modelcontextprotocol/serverInfo")
		}},
		{"no routing headers needed in process", func(t *testing.T) {
			res, err := e.CallTool(ctx, "where", map[string]any{"region": "eu"})
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.JSONEq(t, `{"region":"eu"}`, res.Text())
		}},
		{"removed methods are unknown", func(t *testing.T) {
			for _, m := range []string{"ping", "initialize", "logging/setLevel"} {
				err := e.Request(ctx, m, map[string]any{}, nil)
				var me *mcp.Error
				require.True(t, errors.As(err, &me), "%s: %v", m, err)
				assert.Equal(t, int64(mcp.CodeMethodNotFound), int64(me.Code), "%s: %v", m, err)
			}
		}},
		{"an unsupported version in _meta is -32022", func(t *testing.T) {
			err := e.Request(ctx, "tools/list", map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion": "v999.0.0"}}, nil)
			var me *mcp.Error
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Equal(t, int64(mcp.CodeUnsupportedProtocolVersion), int64(me.Code), "%v", err)
		}},
		{"progress on the request, logs only with _meta's logLevel", func(t *testing.T) {
			var res mcp.ContentResult
			require.NoError(t, e.Request(ctx, "tools/call", map[string]any{"name": "progress", "arguments": map[string]any{},
				"_meta": map[string]any{"progressToken": "tok"}}, &res))
			assert.Equal(t, "done", res.Text())
			require.NoError(t, e.Request(ctx, "tools/call", map[string]any{"name": "progress", "arguments": map[string]any{},
				"_meta": map[string]any{"progressToken": "tok2", "io.modelcontextprotocol/logLevel": "info"}}, &res))
			mu.Lock()
			defer mu.Unlock()
			var progress, logs int
			for _, n := range notes {
				switch {
				case len(n) > 22 && n[:22] == "notifications/progress":
					progress++
				case len(n) > 21 && n[:21] == "notifications/message":
					logs++
				}
			}
			assert.Equal(t, 4, progress, "%q", notes)
			assert.Equal(t, 1, logs, "one log, from the call with a logLevel: %q", notes)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func TestEmbedModernRefusesNonObjectParams(t *testing.T) {
	t.Parallel()
	e, err := mcphttp.Embed(context.Background(), newModernEmbedServer(t), &mcphttp.EmbedOptions{ProtocolVersion: mcp.Version20260728})
	require.NoError(t, err)
	defer e.Close()
	err = e.Request(context.Background(), "tools/list", []int{1}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "params must be a JSON object")
}

func TestEmbedModernCloseIsQuick(t *testing.T) {
	t.Parallel()
	e, err := mcphttp.Embed(context.Background(), newModernEmbedServer(t), &mcphttp.EmbedOptions{ProtocolVersion: mcp.Version20260728})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- e.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close of a 2026-07-28 embedded session did not return within 5 s")
	}
}

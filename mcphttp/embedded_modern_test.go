package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
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
	e := mcptest.NewSession(t, newModernEmbedServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728, Info: mcp.Implementation{Name: "agent", Version: "2.0.0"}, OnNotification: func(method string, params json.RawMessage) {
		mu.Lock()
		notes = append(notes, method+" "+string(params))
		mu.Unlock()
	}}}).Client()

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"no session, the revision and client from _meta", func(t *testing.T) {
			got, err := client.CallToolAs[map[string]string](ctx, e, "seen", map[string]any{})
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"sessionId": "", "version": string(mcp.Version20260728), "client": "agent"}, got)
		}},
		{"lists carry the revision's fields", func(t *testing.T) {
			var raw map[string]json.RawMessage
			require.NoError(t, e.Call(ctx, "tools/list", nil, &raw))
			assert.JSONEq(t, `"complete"`, string(raw["resultType"]))
			assert.JSONEq(t, `0`, string(raw["ttlMs"]))
			assert.Contains(t, string(raw["_meta"]), "io.modelcontextprotocol/serverInfo")
		}},
		{"no routing headers needed in process", func(t *testing.T) {
			res, err := e.CallTool(ctx, "where", map[string]any{"region": "eu"}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.JSONEq(t, `{"region":"eu"}`, res.Text())
		}},
		{"removed methods are unknown", func(t *testing.T) {
			for _, m := range []string{"ping", "initialize", "logging/setLevel"} {
				err := e.Call(ctx, m, map[string]any{}, nil)
				var me *mcp.Error
				require.True(t, errors.As(err, &me), "%s: %v", m, err)
				assert.Equal(t, int64(mcp.CodeMethodNotFound), int64(me.Code), "%s: %v", m, err)
			}
		}},
		{"an unsupported version in _meta is -32022", func(t *testing.T) {
			err := e.Call(ctx, "tools/list", map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion": "v999.0.0"}}, nil)
			var me *mcp.Error
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Equal(t, int64(mcp.CodeUnsupportedProtocolVersion), int64(me.Code), "%v", err)
		}},
		{"progress on the request, logs only with _meta's logLevel", func(t *testing.T) {
			// Progress asks for reports (a token in _meta); AfterNotifications
			// returns once OnNotification has seen what came before the answer.
			var reports atomic.Int32
			opts := &client.CallOptions{Progress: func(mcp.Progress) { reports.Add(1) }, AfterNotifications: true}
			res, err := e.CallTool(ctx, "progress", map[string]any{}, opts)
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			opts.Meta = map[string]any{"io.modelcontextprotocol/logLevel": "info"}
			res, err = e.CallTool(ctx, "progress", map[string]any{}, opts)
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			assert.EqualValues(t, 4, reports.Load(), "two reports a call reach CallOptions.Progress")
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

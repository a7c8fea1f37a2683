package telemetry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware/telemetry"
	"github.com/mcpchain/mcp/sampling"
)

// TestOutgoingTraceContext: with the Recorder in the chain, what the
// server sends the client while serving a request carries the context of
// the request's SERVER span (a child of the client's trace), not the
// client's own span; with no SDK installed, the client's trace context
// passes through unchanged.
func TestOutgoingTraceContext(t *testing.T) {
	t.Parallel()
	const (
		traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
		clientSpan  = "00f067aa0ba902b7"
		traceparent = "00-" + traceID + "-" + clientSpan + "-01"
	)
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("asking")
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 1, Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	run := func(t *testing.T, tel *telemetry.Recorder) (sampled, logged map[string]any) {
		var mu sync.Mutex
		e := mcptest.NewSession(t, srv, &mcptest.Options{Middleware: []func(http.Handler) http.Handler{tel.Middleware}, Client: client.Options{OnNotification: func(method string, params json.RawMessage) {
			if method != "notifications/message" {
				return
			}
			var p struct {
				Meta map[string]any `json:"_meta"`
			}
			_ = json.Unmarshal(params, &p)
			mu.Lock()
			logged = p.Meta
			mu.Unlock()
		}, Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
			mu.Lock()
			sampled = p.Meta
			mu.Unlock()
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", Content: mcp.Text("ok")}, nil
		}}}).Client()
		// AfterNotifications: the log message reached OnNotification when
		// the call returns.
		res, err := e.CallTool(t.Context(), "ask", map[string]any{}, &client.CallOptions{AfterNotifications: true,
			Meta: map[string]any{"traceparent": traceparent, "tracestate": "vendor=x"}})
		require.NoError(t, err)
		require.Equal(t, "ok", res.Text())
		mu.Lock()
		defer mu.Unlock()
		return sampled, logged
	}

	t.Run("sdk: the server span", func(t *testing.T) {
		t.Parallel()
		f := newOtelFixture(t)
		sampled, logged := run(t, f.tel)
		span := f.span(t, "tools/call ask")
		want := "00-" + traceID + "-" + span.SpanContext.SpanID().String() + "-01"
		require.NotEqual(t, clientSpan, span.SpanContext.SpanID().String())
		assert.Equal(t, clientSpan, span.Parent.SpanID().String(), "the server span is the client span's child")
		assert.Equal(t, want, sampled["traceparent"])
		assert.Equal(t, "vendor=x", sampled["tracestate"])
		assert.Equal(t, want, logged["traceparent"])
	})
	t.Run("no sdk: the client's context", func(t *testing.T) {
		t.Parallel()
		tel, err := telemetry.New(nil)
		require.NoError(t, err)
		sampled, logged := run(t, tel)
		assert.Equal(t, traceparent, sampled["traceparent"])
		assert.Equal(t, "vendor=x", sampled["tracestate"])
		assert.True(t, strings.HasPrefix(logged["traceparent"].(string), "00-"+traceID))
	})
}

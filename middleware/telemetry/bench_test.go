package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware/telemetry"
)

// BenchmarkToolsCallTelemetry measures a tools/call through the embedded
// session's chain without the middleware and with it on the otel globals'
// no-op providers (no SDK installed): the overhead a server pays for
// leaving telemetry on with nothing to export.
func BenchmarkToolsCallTelemetry(b *testing.B) {
	tel, err := telemetry.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		mw   []func(http.Handler) http.Handler
	}{
		{"off", nil},
		{"noop-provider", []func(http.Handler) http.Handler{tel.Middleware}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := telemetryServer(noop.NewTracerProvider())
			s := mcptest.NewSession(b, srv, &mcptest.Options{Middleware: bc.mw}).Client()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := map[string]float64{"a": 1, "b": 2}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CallTool(context.Background(), "add", args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToolsCallTelemetryHTTP is BenchmarkToolsCallTelemetry over
// Streamable HTTP on a loopback socket, one stateful session, the way the
// peer harness measures: the middleware's share of a network call.
func BenchmarkToolsCallTelemetryHTTP(b *testing.B) {
	tel, err := telemetry.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"off", func(h http.Handler) http.Handler { return h }},
		{"noop-provider", tel.Middleware},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := mcphttp.New(telemetryServer(noop.NewTracerProvider()), nil)
			ts := httptest.NewServer(bc.mw(h))
			defer ts.Close()
			defer h.Close()
			post := func(body, sid string) (*http.Response, error) {
				req := wiretest.NewRequest(context.Background(), http.MethodPost, ts.URL, body, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
				resp, err := ts.Client().Do(req)
				if err != nil {
					return nil, err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				return resp, resp.Body.Close()
			}
			resp, err := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, "")
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err, resp)
			}
			sid := resp.Header.Get("Mcp-Session-Id")
			const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
			b.ReportAllocs()
			for b.Loop() {
				if resp, err := post(call, sid); err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(err, resp)
				}
			}
		})
	}
}

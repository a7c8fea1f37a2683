package middleware_test

import (
	"context"
	"testing"

	"github.com/justinas/alice"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// BenchmarkToolsCallTelemetry measures a tools/call through the embedded
// session's chain without the middleware and with it on the otel globals'
// no-op providers (no SDK installed): the overhead a server pays for
// leaving telemetry on with nothing to export.
func BenchmarkToolsCallTelemetry(b *testing.B) {
	tel, err := middleware.NewTelemetry(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		mw   []alice.Constructor
	}{
		{"off", nil},
		{"noop-provider", []alice.Constructor{tel.Middleware}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := telemetryServer(trace.NewNoopTracerProvider())
			s, err := mcphttp.Embed(context.Background(), srv, &mcphttp.EmbedOptions{Middleware: bc.mw})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			args := map[string]float64{"a": 1, "b": 2}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CallTool(context.Background(), "add", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

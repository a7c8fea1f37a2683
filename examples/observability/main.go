// Command observability is examples/everything's tools with OpenTelemetry
// traces and metrics exported over OTLP and per-caller rate limits, all
// as plain middleware of the chain (telemetry.Recorder,
// ratelimit.New), on stdio and Streamable HTTP alike.
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 observability -transport httpStream
//
// The exporters are OTLP over HTTP and read the standard OTEL_EXPORTER_OTLP_*
// variables; without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported (the
// middleware then costs next to nothing). Each caller (its address over
// HTTP; the one local caller over stdio) may call 10 tools a second,
// bursts of 20, and send 50 other requests a second.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/examples/everything/tools"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/ratelimit"
	"github.com/mcpchain/mcp/middleware/telemetry"
)

// newServer is examples/everything's set plus "report", a tool whose work
// shows as child spans of its tools/call span.
func newServer(tp trace.TracerProvider) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "observability", Version: "1.0.0"})
	tools.Register(srv, nil)
	tracer := tp.Tracer("github.com/mcpchain/mcp/examples/observability")
	type reportArgs struct {
		Topic string `json:"topic" jsonschema:"what to report on"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "Gather data on a topic and summarise it (traced in steps)"},
		func(ctx context.Context, c *mcp.Context, in reportArgs) (string, error) {
			gctx, span := tracer.Start(ctx, "gather")
			for _, source := range []string{"archive", "news"} {
				_, s := tracer.Start(gctx, "fetch "+source)
				time.Sleep(3 * time.Millisecond)
				s.End()
			}
			span.End()
			_, span = tracer.Start(ctx, "summarise")
			time.Sleep(2 * time.Millisecond)
			span.End()
			return "report on " + in.Topic + ": all quiet", nil
		})
	return srv
}

// middlewareFor is the chain of both transports: telemetry outermost, so
// that refused requests are traced too, then the rate limits.
func middlewareFor(tel *telemetry.Recorder) []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		tel.Middleware,
		ratelimit.New(ratelimit.Options{
			ToolCalls: ratelimit.Limit{Rate: 10, Burst: 20},
			Other:     ratelimit.Limit{Rate: 50, Burst: 100},
		}),
	}
}

// setupOTLP installs the OTLP exporters when OTEL_EXPORTER_OTLP_ENDPOINT
// is set and returns their shutdown.
func setupOTLP(ctx context.Context) (func(context.Context) error, error) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		slog.Info("OTEL_EXPORTER_OTLP_ENDPOINT is not set: telemetry is not exported")
		return func(context.Context) error { return nil }, nil
	}
	te, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	me, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP metric exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(te))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me)))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return func(ctx context.Context) error {
		return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
	}, nil
}

func main() {
	transport := flag.String("transport", "stdio", "stdio or httpStream")
	port := flag.Int("port", 8000, "port of httpStream")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(*transport, *port); err != nil {
		slog.Error("observability", "error", err)
		os.Exit(1)
	}
}

func run(transport string, port int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	shutdown, err := setupOTLP(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = shutdown(context.Background()) }()
	tel, err := telemetry.New(nil) // the otel globals set above
	if err != nil {
		return err
	}
	hooks := &mcphttp.SessionHooks{OnEnd: func(s mcphttp.SessionInfo, why mcphttp.EndReason) {
		errType := ""
		if why == mcphttp.EndLost {
			errType = string(why)
		}
		tel.SessionEnded(context.Background(), s.Created, string(s.ProtocolVersion), errType)
	}}
	inst, err := mcphttp.Start(ctx, newServer(otel.GetTracerProvider()), &mcphttp.StartOptions{
		TransportType: mcphttp.TransportType(transport),
		Port:          port,
		Handler:       &mcphttp.Options{Hooks: hooks},
		Middleware:    middlewareFor(tel),
	})
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = inst.Close()
	}()
	return inst.Wait()
}

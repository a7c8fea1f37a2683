package telemetry

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpchain/mcp/audit"
)

// AuditLog returns a sink of package audit that emits each event as an
// OpenTelemetry log record: event name and body "mcp.audit", severity
// INFO, the event's time, and the attributes of the trail's slog record
// (docs/audit.md: caller, method, kind, name, outcome, duration_ms,
// request_id, and when present arguments (a map), error_code,
// protocol_version). The record's trace context is the call's: the
// telemetry span of the request, or, without one, the trace context the
// client sent. lp nil is the global provider (otel.GetLoggerProvider).
//
//	trail := audit.New(&audit.Options{Sinks: []audit.Sink{telemetry.AuditLog(nil)}})
func AuditLog(lp log.LoggerProvider) audit.Sink {
	if lp == nil {
		lp = otel.GetLoggerProvider()
	}
	logger := lp.Logger(instrumentationName)
	return func(ctx context.Context, e *audit.Event) {
		if !trace.SpanContextFromContext(ctx).IsValid() && e.TraceID != "" {
			tid, err1 := trace.TraceIDFromHex(e.TraceID)
			sid, err2 := trace.SpanIDFromHex(e.SpanID)
			if err1 == nil && err2 == nil {
				ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
					TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true}))
			}
		}
		var r log.Record
		r.SetEventName("mcp.audit")
		r.SetBody(attribute.StringValue("mcp.audit"))
		r.SetTimestamp(e.Time)
		r.SetObservedTimestamp(time.Now())
		r.SetSeverity(log.SeverityInfo)
		r.SetSeverityText("INFO")
		for _, a := range e.Attrs() {
			if a.Key == "event" || a.Key == "trace_id" || a.Key == "span_id" {
				continue // the event name, and the record's own trace context
			}
			r.AddAttributes(attribute.KeyValue{Key: attribute.Key(a.Key), Value: otelValue(a.Value, 0)})
		}
		logger.Emit(ctx, r)
	}
}

// otelValue converts a slog value of an audit event (strings, numbers,
// and the arguments: JSON values) to an OpenTelemetry attribute value.
func otelValue(v slog.Value, depth int) attribute.Value {
	switch v.Kind() {
	case slog.KindString:
		return attribute.StringValue(v.String())
	case slog.KindInt64:
		return attribute.Int64Value(v.Int64())
	case slog.KindFloat64:
		return attribute.Float64Value(v.Float64())
	case slog.KindBool:
		return attribute.BoolValue(v.Bool())
	}
	return anyValue(v.Any(), depth)
}

func anyValue(v any, depth int) attribute.Value {
	if depth > 16 {
		return attribute.StringValue(audit.Redacted)
	}
	switch x := v.(type) {
	case nil:
		return attribute.Value{}
	case string:
		return attribute.StringValue(x)
	case bool:
		return attribute.BoolValue(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return attribute.Int64Value(i)
		}
		if f, err := x.Float64(); err == nil {
			return attribute.Float64Value(f)
		}
		return attribute.StringValue(x.String())
	case float64:
		return attribute.Float64Value(x)
	case []any:
		vals := make([]attribute.Value, len(x))
		for i, e := range x {
			vals[i] = anyValue(e, depth+1)
		}
		return attribute.SliceValue(vals...)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kvs := make([]attribute.KeyValue, len(keys))
		for i, k := range keys {
			kvs[i] = attribute.KeyValue{Key: attribute.Key(k), Value: anyValue(x[k], depth+1)}
		}
		return attribute.MapValue(kvs...)
	}
	b, _ := json.Marshal(v)
	return attribute.StringValue(string(b))
}

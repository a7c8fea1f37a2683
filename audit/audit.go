package audit

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/tracemeta"
)

// Event is one call of a tool, a read of a resource or a get of a prompt,
// as the trail records it. docs/audit.md has the schema.
type Event struct {
	// Time is when the call arrived.
	Time time.Time
	// Caller is who called: "sub:" and the subject for auth data that
	// names one (package internal/identity's key), "anonymous" without
	// auth data, "opaque" for auth data without a subject.
	Caller string
	// Method is the JSON-RPC method: tools/call, resources/read or
	// prompts/get.
	Method string
	// Kind is "tool", "resource" or "prompt"; Name the tool's or prompt's
	// name (the tool that ran, for a call made through tool search's
	// call_tool), or the resource's URI (its password and the values of
	// query parameters named like secrets redacted).
	Kind string
	Name string
	// Arguments are the call's arguments under the redaction policy: a
	// tool's after validation, by its typed input's audit struct tags;
	// a prompt's by name. Values of calls that were never validated are
	// [Withheld].
	Arguments map[string]any
	// Outcome is "ok", "tool_error" (a tool result with isError),
	// "elicitation_required" (-32042: the user must open a page first,
	// an approval or a connection), "input_required" (a 2026-07-28 round
	// ends to ask the client) or "error" (a JSON-RPC error).
	Outcome string
	// ErrorCode is the JSON-RPC error's code when Outcome is "error" or
	// "elicitation_required" (never its message, which may quote what the
	// caller sent).
	ErrorCode int64
	// Duration is how long the call took, as the server handled it.
	Duration time.Duration
	// TraceID and SpanID are the W3C trace context of the call (the
	// telemetry middleware's span, else the one the client sent in
	// params._meta); empty without one.
	TraceID string
	SpanID  string
	// RequestID is the JSON-RPC id, as JSON text.
	RequestID string
	// ProtocolVersion is the call's MCP revision.
	ProtocolVersion string
}

// Sink receives the events, after the trail's own slog record: package
// middleware/telemetry's AuditLog sends them as OpenTelemetry log
// records. It runs on the request's goroutine: hand slow work off.
type Sink func(ctx context.Context, e *Event)

// Options configure [New]. The zero value logs to slog.Default().
type Options struct {
	// Logger receives one record per event, at Info, message "mcp.audit"
	// (the attributes are docs/audit.md's schema). Default:
	// slog.Default(); slog.New(slog.DiscardHandler) turns it off.
	Logger *slog.Logger
	// Sinks receive every event as well.
	Sinks []Sink
	// Redact names more secrets than [SecretName]: a field, map key or
	// query parameter whose name it reports is redacted.
	Redact func(name string) bool
	// MaxValue cuts longer strings (in bytes). Default: 256; -1: no cut.
	MaxValue int
}

// Trail records one structured event per call; see the package doc.
type Trail struct {
	log   *slog.Logger
	sinks []Sink
	pol   policy
	ic    mcp.Interceptor
}

// New returns a trail. Put its Middleware in the server's chain.
func New(opts *Options) *Trail {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	switch {
	case o.MaxValue == 0:
		o.MaxValue = 256
	case o.MaxValue < 0:
		o.MaxValue = 0
	}
	t := &Trail{log: o.Logger, sinks: o.Sinks, pol: policy{maxValue: o.MaxValue, extra: o.Redact}}
	t.ic = t.intercept
	return t
}

// Middleware records the calls of the requests it serves (any transport:
// mcphttp.MuxOptions.Middleware, StartOptions.Middleware,
// EmbedOptions.Middleware). Put it after the telemetry middleware, so
// that its events carry the telemetry span's IDs.
func (t *Trail) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := mcp.WithToolGuard(mcp.WithInterceptor(r.Context(), t.ic), capture)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// slot receives the validated call of a tools/call, from the guard.
type slot struct {
	call atomic.Pointer[mcp.GuardedCall]
}

type slotKey struct{}

// capture is the trail's tool guard: it records the validated call for
// the event and lets every call through.
func capture(ctx context.Context, _ *mcp.Context, call *mcp.GuardedCall) error {
	if s, ok := ctx.Value(slotKey{}).(*slot); ok {
		s.call.CompareAndSwap(nil, call)
	}
	return nil
}

// maxName bounds an event's Name (a caller may send any name).
const maxName = 512

var kinds = map[string]string{"tools/call": "tool", "resources/read": "resource", "prompts/get": "prompt"}

func (t *Trail) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		kind, ok := kinds[c.Method]
		if !ok || c.ID == nil {
			return next(ctx, c)
		}
		start := time.Now()
		s := &slot{}
		res, err := next(context.WithValue(ctx, slotKey{}, s), c)
		t.record(ctx, c, kind, s.call.Load(), res, err, start)
		return res, err
	}
}

// params are the members of the three methods' params the trail reads.
type params struct {
	Name      string                     `json:"name"`
	URI       string                     `json:"uri"`
	Arguments json.RawMessage            `json:"arguments"`
	Meta      map[string]json.RawMessage `json:"_meta"`
}

func (t *Trail) record(ctx context.Context, c *mcp.Call, kind string, call *mcp.GuardedCall, res any, err error, start time.Time) {
	e := &Event{Time: start, Method: c.Method, Kind: kind, Duration: time.Since(start),
		RequestID: string(c.ID), ProtocolVersion: string(c.ProtocolVersion)}
	e.Caller = callerOf(c.Auth)
	var p params
	_ = json.Unmarshal(c.Params, &p)
	switch kind {
	case "tool":
		e.Name = p.Name
		if call != nil {
			// The tool that ran: another than the one named when a
			// middleware inside the trail calls it for another (tool
			// search's call_tool).
			e.Name = call.Name
			e.Arguments = t.pol.arguments(call.Arguments, call.InputType, call.InputNames, false)
		} else {
			e.Arguments = t.pol.arguments(p.Arguments, nil, nil, true)
		}
	case "prompt":
		e.Name = p.Name
		e.Arguments = t.pol.arguments(p.Arguments, nil, nil, false)
	case "resource":
		e.Name = t.pol.uri(p.URI)
	}
	if len(e.Name) > maxName {
		e.Name = strings.ToValidUTF8(e.Name[:maxName], "")
	}
	if f := tracemeta.Of(ctx, p.Meta); f.Traceparent != "" {
		e.TraceID, e.SpanID = f.Traceparent[3:35], f.Traceparent[36:52]
	}
	e.Outcome, e.ErrorCode = outcome(res, err)
	t.log.LogAttrs(ctx, slog.LevelInfo, "mcp.audit", e.Attrs()...)
	for _, s := range t.sinks {
		s(ctx, e)
	}
}

// inputRequired reports whether res is a 2026-07-28 input-required result.
func inputRequired(res any) bool {
	raw, ok := res.(json.RawMessage)
	if !ok || len(raw) > 1<<20 {
		return false
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(raw, &r) == nil && r.ResultType == "input_required"
}

// Attrs are the event's attributes as the slog record carries them
// (docs/audit.md's schema): a sink for another logging system may use
// them too.
func (e *Event) Attrs() []slog.Attr {
	a := []slog.Attr{
		slog.String("event", "mcp.audit"),
		slog.String("caller", e.Caller),
		slog.String("method", e.Method),
		slog.String("kind", e.Kind),
		slog.String("name", e.Name),
		slog.String("outcome", e.Outcome),
		slog.Float64("duration_ms", float64(e.Duration.Microseconds())/1000),
		slog.String("request_id", e.RequestID),
	}
	if e.Arguments != nil {
		a = append(a, slog.Any("arguments", e.Arguments))
	}
	if e.ErrorCode != 0 {
		a = append(a, slog.Int64("error_code", e.ErrorCode))
	}
	if e.TraceID != "" {
		a = append(a, slog.String("trace_id", e.TraceID), slog.String("span_id", e.SpanID))
	}
	if e.ProtocolVersion != "" {
		a = append(a, slog.String("protocol_version", e.ProtocolVersion))
	}
	return a
}

// callerOf is who an event names as the caller: the identity's key for a
// subject, else "anonymous" or "opaque" (auth data that names no one).
func callerOf(auth any) string {
	switch identity.Of(auth) {
	case identity.Anonymous:
		return "anonymous"
	case identity.Subject:
		key, _ := identity.Key(auth)
		return key
	}
	return "opaque"
}

// outcome is an event's outcome and JSON-RPC error code for a call that
// returned res and err.
func outcome(res any, err error) (string, int64) {
	var je *mcp.Error
	switch {
	case errors.Is(err, mcp.ErrInputRequired):
		return "input_required", 0
	case errors.As(err, &je) && je.Code == mcp.CodeURLElicitationRequired:
		return "elicitation_required", je.Code
	case errors.As(err, &je):
		return "error", je.Code
	case err != nil:
		return "error", mcp.CodeInternalError
	}
	if r, ok := res.(*mcp.ContentResult); ok && r != nil && r.IsError {
		return "tool_error", 0
	} else if inputRequired(res) {
		return "input_required", 0
	}
	return "ok", 0
}

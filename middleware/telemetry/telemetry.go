// Package telemetry traces and measures the JSON-RPC requests of an MCP
// server with OpenTelemetry, after the OpenTelemetry semantic conventions
// for MCP. It is a package of its own so that a server without telemetry
// does not link OpenTelemetry: importing it is the choice.
package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/tracemeta"
)

// The attribute keys of the OpenTelemetry semantic conventions for MCP
// (open-telemetry/semantic-conventions, docs/gen-ai/mcp.md) that
// [Recorder] records.
const (
	AttrMCPMethodName         = attribute.Key("mcp.method.name")
	AttrMCPSessionID          = attribute.Key("mcp.session.id")
	AttrMCPProtocolVersion    = attribute.Key("mcp.protocol.version")
	AttrMCPResourceURI        = attribute.Key("mcp.resource.uri")
	AttrJSONRPCRequestID      = attribute.Key("jsonrpc.request.id")
	AttrGenAIToolName         = attribute.Key("gen_ai.tool.name")
	AttrGenAIPromptName       = attribute.Key("gen_ai.prompt.name")
	AttrGenAIOperationName    = attribute.Key("gen_ai.operation.name")
	AttrErrorType             = attribute.Key("error.type")
	AttrRPCResponseStatusCode = attribute.Key("rpc.response.status_code")
	AttrNetworkTransport      = attribute.Key("network.transport")
	AttrNetworkProtocolName   = attribute.Key("network.protocol.name")
	AttrNetworkProtocolVer    = attribute.Key("network.protocol.version")
	AttrClientAddress         = attribute.Key("client.address")
	AttrClientPort            = attribute.Key("client.port")
)

// The metric names of the conventions; both histograms use
// [DefaultDurationBuckets].
const (
	MetricServerOperationDuration = "mcp.server.operation.duration"
	MetricServerSessionDuration   = "mcp.server.session.duration"
)

// DefaultDurationBuckets returns the explicit bucket boundaries, in
// seconds, the conventions give for both MCP duration histograms: a new
// slice on each call, so a caller may change it.
func DefaultDurationBuckets() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// ToolErrorType is the error.type of a tools/call whose result has
// isError set (the conventions' "tool_error").
const ToolErrorType = "tool_error"

const instrumentationName = "github.com/mcpchain/mcp/middleware/telemetry"

// Options configure [New]. The zero value (or nil) uses the global
// providers of package otel, which record nothing until an SDK is
// installed with otel.SetTracerProvider and otel.SetMeterProvider.
type Options struct {
	// TracerProvider makes the spans. Default otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the histograms. Default otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator reads the client's trace context from params._meta and
	// from the HTTP headers. Default W3C Trace Context and Baggage.
	Propagator propagation.TextMapPropagator
}

// Recorder traces and measures every JSON-RPC request after the
// OpenTelemetry semantic conventions for MCP. Make one with [New], put
// [Recorder.Middleware] in the chain (any transport:
// mcphttp.MuxOptions.Middleware, StartOptions.Middleware for HTTP and
// stdio, mcphttp.Local for in-process clients), and, for the session metric, call
// [Recorder.SessionEnded] from mcphttp.SessionHooks.OnEnd.
//
// Each request (also each request of a batch) and each client
// notification gets a SERVER span named
// "{mcp.method.name} {target}" (the tool or prompt name; the method alone
// otherwise) with mcp.method.name, jsonrpc.request.id, mcp.session.id,
// mcp.protocol.version, gen_ai.tool.name and gen_ai.operation.name
// ("execute_tool") for tools/call, gen_ai.prompt.name for prompts/get,
// mcp.resource.uri for resources/read and (un)subscribe, and
// network.transport ("tcp" over the network, "pipe" for stdio and
// embedded sessions) with network.protocol.name and version, client.address
// and client.port (the peer of the connection) over HTTP. A
// JSON-RPC error sets error.type and rpc.response.status_code to its code
// and the span status to Error with its message; a tool result with
// isError sets error.type "tool_error". The parent is the trace context
// the client sent in params._meta (traceparent, tracestate, baggage);
// without one, the context of the HTTP request (its traceparent header,
// or the span of an HTTP instrumentation further out); when both exist,
// the span links the HTTP one. The context a tool, resource or prompt
// function receives carries the span, so spans it starts nest under it.
// What the server sends the client while serving the request (sampling,
// elicitation and roots requests, progress, log messages, streamed
// content, the questions of a 2026-07-28 input-required result) carries
// the current span's context in params._meta (traceparent, tracestate,
// baggage, by the Propagator), so the client can tie it to its trace.
//
// The histogram mcp.server.operation.duration (seconds, the conventions'
// buckets) records every request with the span's attributes but the
// high-cardinality ones (request and session IDs, resource URIs, the
// client's address and port).
//
// With no SDK installed (the otel globals' default) nothing is recorded
// and the cost is a context value and a non-recording span per request:
// params are decoded only when the span records, a metric is enabled, or
// they carry a traceparent.
type Recorder struct {
	tracer  trace.Tracer
	opDur   metric.Float64Histogram
	sessDur metric.Float64Histogram
	prop    propagation.TextMapPropagator
	ic      mcp.Interceptor
	// source gives the trace context of the messages sent to the client
	// while a request is served (tracemeta): the current span's.
	source tracemeta.Source
}

// New makes the telemetry middleware. It returns an error only
// when the meter provider refuses to make the histograms.
func New(opts *Options) (*Recorder, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	meter := o.MeterProvider.Meter(instrumentationName)
	opDur, err := meter.Float64Histogram(MetricServerOperationDuration,
		metric.WithUnit("s"),
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(DefaultDurationBuckets()...))
	if err != nil {
		return nil, err
	}
	sessDur, err := meter.Float64Histogram(MetricServerSessionDuration,
		metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP server."),
		metric.WithExplicitBucketBoundaries(DefaultDurationBuckets()...))
	if err != nil {
		return nil, err
	}
	t := &Recorder{
		tracer:  o.TracerProvider.Tracer(instrumentationName),
		opDur:   opDur,
		sessDur: sessDur,
		prop:    o.Propagator,
	}
	t.ic = t.intercept
	t.source = t.outgoing
	return t, nil
}

// Middleware installs the interceptor that traces the JSON-RPC requests
// of r (mcp.WithInterceptor). Over HTTP, the trace context of the
// request's headers is the parent of spans whose request carries none in
// params._meta.
func (t *Recorder) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), t.ic)))
	})
}

// SessionEnded records a session's duration in mcp.server.session.duration,
// with mcp.protocol.version and, when errorType is not "", error.type
// (say "lost" for a client that stopped answering). Call it from
// mcphttp.SessionHooks.OnEnd:
//
//	OnEnd: func(s mcphttp.SessionInfo, why mcphttp.EndReason) {
//		errType := ""
//		if why == mcphttp.EndLost {
//			errType = string(why)
//		}
//		tel.SessionEnded(context.Background(), s.Created, string(s.ProtocolVersion), errType)
//	}
func (t *Recorder) SessionEnded(ctx context.Context, created time.Time, protocolVersion, errorType string) {
	if !t.sessDur.Enabled(ctx) {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 2)
	if protocolVersion != "" {
		attrs = append(attrs, AttrMCPProtocolVersion.String(protocolVersion))
	}
	if errorType != "" {
		attrs = append(attrs, AttrErrorType.String(errorType))
	}
	t.sessDur.Record(ctx, time.Since(created).Seconds(), metric.WithAttributes(attrs...))
}

// network reports whether r came over the network (net/http sets the
// local address in its context) rather than from a stdio or embedded
// adapter, and its protocol version.
func network(r *http.Request) (version string, ok bool) {
	if r == nil || r.Context().Value(http.LocalAddrContextKey) == nil {
		return "", false
	}
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1", true
	case r.ProtoMajor == 2:
		return "2", true
	case r.ProtoMajor == 3:
		return "3", true
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor), true
}

// callParams is the part of a request's params telemetry reads.
type callParams struct {
	Name string `json:"name"`
	URI  string `json:"uri"`
	Meta struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
		Baggage     string `json:"baggage"`
	} `json:"_meta"`
}

func (p *callParams) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

func (p *callParams) Get(key string) string {
	switch key {
	case "traceparent":
		return p.Meta.Traceparent
	case "tracestate":
		return p.Meta.Tracestate
	case "baggage":
		return p.Meta.Baggage
	}
	return ""
}

func (p *callParams) Set(string, string) {}

// serverKind is the start option of every span, allocated once.
var serverKind = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// traceparentKey is the canonical form of the W3C header, looked up
// directly so that the lookup does not canonicalize (and allocate) per
// request.
const traceparentKey = "Traceparent"

var traceparentMember = []byte(`"traceparent"`)

func (t *Recorder) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Request != nil && len(c.Request.Header[traceparentKey]) > 0 {
			ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(c.Request.Header))
		}
		if bytes.Contains(c.Params, traceparentMember) {
			return t.traced(ctx, next, c, time.Now(), true)
		}
		if !t.opDur.Enabled(ctx) {
			// The common case with no SDK: one span start, which a
			// delegating or auto-instrumented tracer may still record.
			spanCtx, span := t.tracer.Start(ctx, c.Method, serverKind...)
			spanCtx = t.carry(spanCtx, span)
			if !span.IsRecording() {
				defer span.End()
				return next(spanCtx, c)
			}
			// A recording span: decode the params for its name and
			// attributes.
			return t.record(ctx, spanCtx, span, next, c, time.Now())
		}
		return t.traced(ctx, next, c, time.Now(), false)
	}
}

// traced runs a request whose span records or whose metric is enabled, or
// whose params carry a trace context: it decodes the params for the
// target name, the resource URI and the client's _meta trace context.
func (t *Recorder) traced(ctx context.Context, next mcp.CallHandler, c *mcp.Call, start time.Time, meta bool) (any, error) {
	var p callParams
	if len(c.Params) > 0 {
		_ = json.Unmarshal(c.Params, &p)
	}
	parent := ctx
	startOpts := serverKind
	if meta && p.Meta.Traceparent != "" {
		parent = t.prop.Extract(ctx, &p)
		if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() {
			startOpts = []trace.SpanStartOption{serverKind[0], trace.WithLinks(trace.Link{SpanContext: ambient})}
		}
	}
	spanCtx, span := t.tracer.Start(parent, c.Method, startOpts...)
	return t.run(ctx, t.carry(spanCtx, span), span, next, c, &p, start)
}

// carry returns spanCtx set up so that what the server sends the client
// while serving the request carries the trace context of the current
// span (outgoing); spanCtx itself when span has no valid context (no
// trace at all), which costs nothing.
func (t *Recorder) carry(spanCtx context.Context, span trace.Span) context.Context {
	if !span.SpanContext().IsValid() {
		return spanCtx
	}
	return tracemeta.With(spanCtx, t.source)
}

// outgoing is the trace context of the span current in ctx, as the
// Propagator writes it.
func (t *Recorder) outgoing(ctx context.Context) tracemeta.Fields {
	var f metaCarrier
	t.prop.Inject(ctx, &f)
	return tracemeta.Fields(f)
}

// metaCarrier takes what a propagator writes for _meta.
type metaCarrier tracemeta.Fields

func (f *metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return f.Traceparent
	case "tracestate":
		return f.Tracestate
	case "baggage":
		return f.Baggage
	}
	return ""
}

func (f *metaCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		f.Traceparent = value
	case "tracestate":
		f.Tracestate = value
	case "baggage":
		f.Baggage = value
	}
}

func (f *metaCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

// record is traced for a span already started on the request's own
// context (no _meta trace context).
func (t *Recorder) record(ctx, spanCtx context.Context, span trace.Span, next mcp.CallHandler, c *mcp.Call, start time.Time) (any, error) {
	var p callParams
	if len(c.Params) > 0 {
		_ = json.Unmarshal(c.Params, &p)
	}
	return t.run(ctx, spanCtx, span, next, c, &p, start)
}

func (t *Recorder) run(ctx, spanCtx context.Context, span trace.Span, next mcp.CallHandler, c *mcp.Call, p *callParams, start time.Time) (res any, err error) {
	recording := span.IsRecording()
	metered := t.opDur.Enabled(ctx)
	if !recording && !metered {
		defer span.End()
		return next(spanCtx, c)
	}
	target := ""
	switch c.Method {
	case "tools/call", "prompts/get":
		target = p.Name
	}
	if recording && target != "" {
		span.SetName(c.Method + " " + target)
	}
	finished := false
	defer func() {
		if !finished { // a panic on its way to the engine's recovery
			t.finish(ctx, span, c, p, start, recording, metered, "-32603", "-32603", "Internal error")
		}
	}()
	res, err = next(spanCtx, c)
	errType, status, msg := outcome(res, err)
	finished = true
	t.finish(ctx, span, c, p, start, recording, metered, errType, status, msg)
	return res, err
}

// outcome classifies a request's result after the conventions: a JSON-RPC
// error's code as error.type and rpc.response.status_code, "tool_error"
// for a tool result with isError.
func outcome(res any, err error) (errType, status, msg string) {
	if err != nil {
		var je *mcp.Error
		if errors.As(err, &je) {
			code := strconv.FormatInt(je.Code, 10)
			return code, code, je.Message
		}
		return strconv.Itoa(mcp.CodeInternalError), strconv.Itoa(mcp.CodeInternalError), err.Error()
	}
	if cr, ok := res.(*mcp.ContentResult); ok && cr.IsError {
		return ToolErrorType, "", cr.Text()
	}
	return "", "", ""
}

func (t *Recorder) finish(ctx context.Context, span trace.Span, c *mcp.Call, p *callParams, start time.Time, recording, metered bool, errType, status, msg string) {
	attrs := operationAttrs(c, p, errType, status)
	if metered {
		t.opDur.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	}
	if !recording {
		span.End()
		return
	}
	span.SetAttributes(appendSpanAttrs(attrs, c, p)...)
	if errType != "" {
		span.SetStatus(codes.Error, msg)
	}
	span.End()
}

// requestID is the id's string form for jsonrpc.request.id: a string's
// value, a number's digits, "" for null.
func requestID(id json.RawMessage) string {
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return s
		}
	}
	return string(id)
}

// operationAttrs are the attributes of a call's operation duration
// metric (and its span): the method, the tool or prompt, the protocol
// version, the transport, and the error type and status when it failed.
func operationAttrs(c *mcp.Call, p *callParams, errType, status string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, AttrMCPMethodName.String(c.Method))
	switch c.Method {
	case "tools/call":
		if p.Name != "" {
			attrs = append(attrs, AttrGenAIToolName.String(p.Name))
		}
		attrs = append(attrs, AttrGenAIOperationName.String("execute_tool"))
	case "prompts/get":
		if p.Name != "" {
			attrs = append(attrs, AttrGenAIPromptName.String(p.Name))
		}
	}
	if c.ProtocolVersion != "" {
		attrs = append(attrs, AttrMCPProtocolVersion.String(string(c.ProtocolVersion)))
	}
	if v, ok := network(c.Request); ok {
		attrs = append(attrs, AttrNetworkTransport.String("tcp"), AttrNetworkProtocolName.String("http"), AttrNetworkProtocolVer.String(v))
	} else {
		attrs = append(attrs, AttrNetworkTransport.String("pipe"))
	}
	if errType != "" {
		attrs = append(attrs, AttrErrorType.String(errType))
	}
	if status != "" {
		attrs = append(attrs, AttrRPCResponseStatusCode.String(status))
	}
	return attrs
}

// appendSpanAttrs appends the attributes only the span carries: the
// request id, the session, the client's address and port over HTTP, and
// the resource's URI.
func appendSpanAttrs(attrs []attribute.KeyValue, c *mcp.Call, p *callParams) []attribute.KeyValue {
	if id := requestID(c.ID); id != "" {
		attrs = append(attrs, AttrJSONRPCRequestID.String(id))
	}
	if c.SessionID != "" {
		attrs = append(attrs, AttrMCPSessionID.String(c.SessionID))
	}
	if _, ok := network(c.Request); ok {
		if host, port, err := net.SplitHostPort(c.Request.RemoteAddr); err == nil {
			attrs = append(attrs, AttrClientAddress.String(host))
			if n, err := strconv.Atoi(port); err == nil {
				attrs = append(attrs, AttrClientPort.Int(n))
			}
		}
	}
	switch c.Method {
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if p.URI != "" {
			attrs = append(attrs, AttrMCPResourceURI.String(p.URI))
		}
	}
	return attrs
}

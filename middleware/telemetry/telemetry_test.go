package telemetry_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/middleware/telemetry"
)

// otelFixture is an SDK tracer and meter provider recording into memory.
type otelFixture struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	tel    *telemetry.Recorder
}

func newOtelFixture(t *testing.T) *otelFixture {
	t.Helper()
	f := &otelFixture{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	t.Cleanup(func() {
		_ = f.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := telemetry.New(&telemetry.Options{TracerProvider: f.tp, MeterProvider: mp})
	require.NoError(t, err)
	f.tel = tel
	return f
}

// span returns the one ended span named name.
func (f *otelFixture) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range f.spans.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans named %q", name)
	return found[0]
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// telemetryServer is the fixture (registerFixture) plus a tool that starts a
// span of its own, on the tracer provider tp.
func telemetryServer(tp trace.TracerProvider) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "otel", Version: "1.0.0"})
	registerFixture(srv)
	mcp.AddTool(srv, mcp.Tool{Name: "traced"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		_, span := tp.Tracer("user").Start(ctx, "user work")
		span.End()
		return "done", nil
	})
	return srv
}

const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
)

func TestTelemetrySpansAndMetrics(t *testing.T) {
	for _, tr := range []struct {
		name      string
		start     func(testing.TB, *mcp.Server, ...func(http.Handler) http.Handler) wiretest.RPCClient
		transport map[string]string
	}{
		{"http", wiretest.StartHTTP, map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1", "client.address": "127.0.0.1"}},
		{"stdio", wiretest.StartStdio, map[string]string{"network.transport": "pipe"}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			f := newOtelFixture(t)
			c := tr.start(t, telemetryServer(f.tp), f.tel.Middleware)
			wiretest.Initialize(t, c)
			sid := c.SessionID()
			if tr.name == "stdio" {
				sid = attrs(f.span(t, "initialize").Attributes)["mcp.session.id"]
			}
			require.NotEmpty(t, sid)
			c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"traceparent":"00-`+clientTraceID+`-`+clientSpanID+`-01","tracestate":"rojo=1"}}}`)
			c.Send(t, `{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"fail_user"}}`)
			c.Send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool"}}`)
			c.Send(t, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///hello.txt"}}`)
			c.Send(t, `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
			c.Send(t, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"traced"}}`)

			base := func(method, id string, more map[string]string) map[string]string {
				m := map[string]string{"mcp.method.name": method, "jsonrpc.request.id": id, "mcp.session.id": sid, "mcp.protocol.version": "2025-11-25"}
				for k, v := range tr.transport {
					m[k] = v
				}
				for k, v := range more {
					m[k] = v
				}
				return m
			}
			tests := []struct {
				span   string
				attrs  map[string]string
				status codes.Code
				desc   string
			}{
				{"initialize", base("initialize", "0", nil), codes.Unset, ""},
				{"notifications/initialized", noID(base("notifications/initialized", "", nil)), codes.Unset, ""},
				{"tools/call add", base("tools/call", "1", map[string]string{"gen_ai.tool.name": "add", "gen_ai.operation.name": "execute_tool"}), codes.Unset, ""},
				{"tools/call fail_user", base("tools/call", "two", map[string]string{"gen_ai.tool.name": "fail_user", "gen_ai.operation.name": "execute_tool", "error.type": "tool_error"}), codes.Error, "this is a user error"},
				{"tools/call no_such_tool", base("tools/call", "3", map[string]string{"gen_ai.tool.name": "no_such_tool", "gen_ai.operation.name": "execute_tool", "error.type": "-32602", "rpc.response.status_code": "-32602"}), codes.Error, ""},
				{"resources/read", base("resources/read", "4", map[string]string{"mcp.resource.uri": "file:///hello.txt"}), codes.Unset, ""},
				{"prompts/get greet", base("prompts/get", "5", map[string]string{"gen_ai.prompt.name": "greet"}), codes.Unset, ""},
			}
			for _, tt := range tests {
				s := f.span(t, tt.span)
				assert.Equal(t, trace.SpanKindServer, s.SpanKind, tt.span)
				got := attrs(s.Attributes)
				if tr.name == "http" {
					assert.Regexp(t, `^[1-9][0-9]*$`, got["client.port"], tt.span)
					delete(got, "client.port")
				}
				assert.Equal(t, tt.attrs, got, tt.span)
				assert.Equal(t, tt.status, s.Status.Code, tt.span)
				if tt.desc != "" {
					assert.Equal(t, tt.desc, s.Status.Description, tt.span)
				} else if tt.status == codes.Error {
					assert.Contains(t, s.Status.Description, "no_such_tool", tt.span)
				}
			}

			// The client's traceparent in _meta is the parent.
			add := f.span(t, "tools/call add")
			assert.Equal(t, clientTraceID, add.SpanContext.TraceID().String())
			assert.Equal(t, clientSpanID, add.Parent.SpanID().String())
			assert.True(t, add.Parent.IsRemote())
			assert.Equal(t, "rojo=1", add.SpanContext.TraceState().String())
			// A request without one starts a trace of its own.
			assert.False(t, f.span(t, "resources/read").Parent.IsValid())

			// A span the tool starts is a child of the request's.
			call, user := f.span(t, "tools/call traced"), f.span(t, "user work")
			assert.Equal(t, call.SpanContext.SpanID(), user.Parent.SpanID())
			assert.Equal(t, call.SpanContext.TraceID(), user.SpanContext.TraceID())

			var rm metricdata.ResourceMetrics
			require.NoError(t, f.reader.Collect(t.Context(), &rm))
			h := findHistogram(t, rm, telemetry.MetricServerOperationDuration)
			assert.Equal(t, "s", h.unit)
			points := map[string]metricdata.HistogramDataPoint[float64]{}
			for _, p := range h.data.DataPoints {
				assert.Equal(t, telemetry.DefaultDurationBuckets(), p.Bounds)
				a := attrs(p.Attributes.ToSlice())
				assert.NotContains(t, a, "jsonrpc.request.id", "high-cardinality attributes stay off the metric")
				assert.NotContains(t, a, "mcp.session.id")
				assert.NotContains(t, a, "client.port")
				points[a["mcp.method.name"]+" "+a["gen_ai.tool.name"]+a["gen_ai.prompt.name"]+" "+a["error.type"]] = p
			}
			for _, k := range []string{"initialize  ", "notifications/initialized  ", "tools/call add ", "tools/call fail_user tool_error", "tools/call no_such_tool -32602", "resources/read  ", "prompts/get greet ", "tools/call traced "} {
				require.Contains(t, points, k)
				assert.Equal(t, uint64(1), points[k].Count, k)
			}
		})
	}
}

// noID is m without jsonrpc.request.id: a notification's attributes.
func noID(m map[string]string) map[string]string {
	delete(m, "jsonrpc.request.id")
	return m
}

type histogram struct {
	unit string
	data metricdata.Histogram[float64]
}

func findHistogram(t *testing.T, rm metricdata.ResourceMetrics, name string) histogram {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				d, ok := m.Data.(metricdata.Histogram[float64])
				require.True(t, ok, "%s is a %T", name, m.Data)
				return histogram{unit: m.Unit, data: d}
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return histogram{}
}

// Over HTTP, the traceparent header is the parent of a request without
// one in _meta; one in _meta wins, and the span links the header's.
func TestTelemetryHTTPHeaderParent(t *testing.T) {
	f := newOtelFixture(t)
	c := wiretest.StartHTTP(t, telemetryServer(f.tp), f.tel.Middleware)
	url := c.(interface{ URL() string }).URL()
	wiretest.Initialize(t, c)
	const headerTrace, headerSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	post := func(body string) {
		r := wiretest.NewRequest(t.Context(), http.MethodPost, url, body, "Mcp-Session-Id", c.SessionID(), "MCP-Protocol-Version", "2025-11-25",
			"traceparent", "00-"+headerTrace+"-"+headerSpan+"-01")
		resp, _, err := wiretest.Do(http.DefaultClient, r)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"traceparent":"00-` + clientTraceID + `-` + clientSpanID + `-01"}}}`)

	echo := f.span(t, "tools/call echo")
	assert.Equal(t, headerTrace, echo.SpanContext.TraceID().String())
	assert.Equal(t, headerSpan, echo.Parent.SpanID().String())
	assert.Empty(t, echo.Links)

	add := f.span(t, "tools/call add")
	assert.Equal(t, clientSpanID, add.Parent.SpanID().String())
	require.Len(t, add.Links, 1)
	assert.Equal(t, headerSpan, add.Links[0].SpanContext.SpanID().String())
}

// SessionEnded records the session histogram with the version and, for a
// failed session, error.type.
func TestTelemetrySessionDuration(t *testing.T) {
	f := newOtelFixture(t)
	f.tel.SessionEnded(t.Context(), time.Now().Add(-2*time.Second), "2025-11-25", "")
	f.tel.SessionEnded(t.Context(), time.Now().Add(-time.Second), "2025-06-18", "lost")
	var rm metricdata.ResourceMetrics
	require.NoError(t, f.reader.Collect(t.Context(), &rm))
	h := findHistogram(t, rm, telemetry.MetricServerSessionDuration)
	assert.Equal(t, "s", h.unit)
	require.Len(t, h.data.DataPoints, 2)
	got := map[string]float64{}
	for _, p := range h.data.DataPoints {
		assert.Equal(t, telemetry.DefaultDurationBuckets(), p.Bounds)
		a := attrs(p.Attributes.ToSlice())
		got[a["mcp.protocol.version"]+"/"+a["error.type"]] = p.Sum
	}
	assert.InDelta(t, 2, got["2025-11-25/"], 0.5)
	assert.InDelta(t, 1, got["2025-06-18/lost"], 0.5)
}

// Without an SDK the middleware records nothing and the request still
// works: the default providers are the otel globals' no-ops.
func TestTelemetryNoProvider(t *testing.T) {
	tel, err := telemetry.New(nil)
	require.NoError(t, err)
	c := wiretest.StartHTTP(t, telemetryServer(noop.NewTracerProvider()), tel.Middleware)
	wiretest.Initialize(t, c)
	body := c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	msgs := wiretest.ParseMessages(t, "application/json", body)
	require.Len(t, msgs, 1)
	assert.Equal(t, "3", wiretest.ToolResult(t, msgs[0]).Text())
}

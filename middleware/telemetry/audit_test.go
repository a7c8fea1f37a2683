package telemetry_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/log/embedded"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/audit"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/middleware/telemetry"
)

// recordedLog is a log record and the span context it was emitted in.
type recordedLog struct {
	r  log.Record
	sc trace.SpanContext
}

// memLogs is a log.LoggerProvider that keeps what is emitted.
type memLogs struct {
	embedded.LoggerProvider
	mu   sync.Mutex
	recs []recordedLog
}

func (p *memLogs) Logger(string, ...log.LoggerOption) log.Logger { return &memLogger{p: p} }

func (p *memLogs) all() []recordedLog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]recordedLog(nil), p.recs...)
}

type memLogger struct {
	embedded.Logger
	p *memLogs
}

func (l *memLogger) Emit(ctx context.Context, r log.Record) {
	l.p.mu.Lock()
	l.p.recs = append(l.p.recs, recordedLog{r: r.Clone(), sc: trace.SpanContextFromContext(ctx)})
	l.p.mu.Unlock()
}

func (l *memLogger) Enabled(context.Context, log.EnabledParameters) bool { return true }

type secretIn struct {
	Repo     string `json:"repo"`
	Password string `json:"password"`
}

// TestAuditLog: with the telemetry middleware outside the audit trail,
// every audit event is an OpenTelemetry log record named mcp.audit, in
// the trace of the request's span, with the trail's attributes (the
// arguments as a map, redacted); without telemetry, the record is in the
// trace the client sent.
func TestAuditLog(t *testing.T) {
	f := newOtelFixture(t)
	logs := &memLogs{}
	trail := audit.New(&audit.Options{Logger: slog.New(slog.DiscardHandler), Sinks: []audit.Sink{telemetry.AuditLog(logs)}})
	srv := mcp.NewServer(mcp.Options{Name: "audited", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "deploy"}, func(ctx context.Context, _ *mcp.Context, in secretIn) (string, error) {
		return "deployed " + in.Repo, nil
	})
	c := wiretest.StartHTTP(t, srv, f.tel.Middleware, trail.Middleware)
	wiretest.Initialize(t, c)
	c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"repo":"acme","password":"planted-otel-password"}}}`)

	recs := logs.all()
	require.Len(t, recs, 1)
	r := recs[0].r
	assert.Equal(t, "mcp.audit", r.EventName())
	assert.Equal(t, "mcp.audit", r.Body().AsString())
	assert.Equal(t, log.SeverityInfo, r.Severity())
	got := map[string]attribute.Value{}
	r.WalkAttributes(func(kv attribute.KeyValue) bool { got[string(kv.Key)] = kv.Value; return true })
	assert.Equal(t, "anonymous", got["caller"].AsString())
	assert.Equal(t, "tools/call", got["method"].AsString())
	assert.Equal(t, "deploy", got["name"].AsString())
	assert.Equal(t, "ok", got["outcome"].AsString())
	assert.Equal(t, "1", got["request_id"].AsString())
	args := map[string]string{}
	for _, kv := range got["arguments"].AsMap() {
		args[string(kv.Key)] = kv.Value.AsString()
	}
	assert.Equal(t, map[string]string{"repo": "acme", "password": audit.Redacted}, args)
	span := f.span(t, "tools/call deploy")
	assert.Equal(t, span.SpanContext.TraceID(), recs[0].sc.TraceID(), "the record is in the request's trace")
	assert.Equal(t, span.SpanContext.SpanID(), recs[0].sc.SpanID())

	// Without telemetry: the client's trace context.
	logs2 := &memLogs{}
	trail2 := audit.New(&audit.Options{Logger: slog.New(slog.DiscardHandler), Sinks: []audit.Sink{telemetry.AuditLog(logs2)}})
	c2 := wiretest.StartHTTP(t, srv, trail2.Middleware)
	wiretest.Initialize(t, c2)
	c2.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"repo":"acme","password":"x"},"_meta":{"traceparent":"00-`+clientTraceID+`-`+clientSpanID+`-01"}}}`)
	recs = logs2.all()
	require.Len(t, recs, 1)
	assert.Equal(t, clientTraceID, recs[0].sc.TraceID().String())
	assert.Equal(t, clientSpanID, recs[0].sc.SpanID().String())
}

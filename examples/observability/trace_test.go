package main

import (
	"context"
	"flag"
	"fmt"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware/telemetry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// update regenerates docs/observability-trace.svg from a fresh trace:
//
//	go test ./examples/observability -run TestTracePicture -update
var update = flag.Bool("update", false, "rewrite docs/observability-trace.svg")

const picture = "../../docs/observability-trace.svg"

// TestTracePicture records one tools/call of "report" through the
// example's chain with the SDK's in-memory exporter and renders its spans
// as an SVG waterfall. With -update it writes the picture the README
// shows; without, it checks that the committed picture shows the same
// spans in the same tree (timings differ from run to run, so they are not
// compared).
func TestTracePicture(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	mp := sdkmetric.NewMeterProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	tel, err := telemetry.New(&telemetry.Options{TracerProvider: tp, MeterProvider: mp})
	require.NoError(t, err)

	s := mcptest.NewSession(t, newServer(tp), &mcptest.Options{Middleware: middlewareFor(tel)})
	exp.Reset() // keep the tools/call only
	res := s.CallTool("report", map[string]string{"topic": "weather"}, nil)
	require.False(t, res.IsError, res.Text())

	spans := exp.GetSpans()
	require.Len(t, spans, 5)
	svg := renderTrace(spans)
	if *update {
		require.NoError(t, os.WriteFile(picture, []byte(svg), 0o644))
		return
	}
	committed, err := os.ReadFile(picture)
	require.NoError(t, err, "regenerate with: go test ./examples/observability -run TestTracePicture -update")
	assert.Equal(t, labels(svg), labels(string(committed)), "the committed picture shows other spans; regenerate with -update")
}

var labelRE = regexp.MustCompile(`<text class="name" x="(\d+)"[^>]*>([^<]*)</text>`)

// labels are the span rows of a picture, in order, without timings.
func labels(svg string) []string {
	var out []string
	for _, m := range labelRE.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1]+" "+m[2]) // indentation and name
	}
	return out
}

// renderTrace draws spans as a waterfall: one row per span, children
// indented under their parent, bars on a shared time axis, the server
// span's MCP attributes under the picture.
func renderTrace(spans tracetest.SpanStubs) string {
	children := map[string][]tracetest.SpanStub{}
	var roots []tracetest.SpanStub
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext.SpanID().String()] = true
	}
	for _, s := range spans {
		p := s.Parent.SpanID().String()
		if s.Parent.IsValid() && ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	for _, c := range children {
		slices.SortFunc(c, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	}
	type row struct {
		s     tracetest.SpanStub
		depth int
	}
	var rows []row
	var walk func(s tracetest.SpanStub, d int)
	walk = func(s tracetest.SpanStub, d int) {
		rows = append(rows, row{s, d})
		for _, c := range children[s.SpanContext.SpanID().String()] {
			walk(c, d+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	start, end := rows[0].s.StartTime, rows[0].s.EndTime
	for _, r := range rows {
		if r.s.StartTime.Before(start) {
			start = r.s.StartTime
		}
		if r.s.EndTime.After(end) {
			end = r.s.EndTime
		}
	}
	total := end.Sub(start)
	const (
		width, labelW, rowH, top = 760, 260, 28, 44
	)
	barW := float64(width - labelW - 20)
	root := rows[0].s
	var attrs []string
	for _, kv := range root.Attributes {
		attrs = append(attrs, string(kv.Key)+" = "+kv.Value.String())
	}
	slices.Sort(attrs)
	height := top + len(rows)*rowH + 24 + len(attrs)*18 + 16
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="13">`+"\n", width, height, width, height)
	b.WriteString(`<style>.name{fill:#222}.dur{fill:#555;font-size:11px}.attr{fill:#333;font-size:12px}</style>` + "\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="24" font-weight="bold">Trace of one tools/call (%s total)</text>`+"\n", round(total))
	colors := []string{"#4e79a7", "#59a14f", "#f28e2b", "#e15759"}
	for i, r := range rows {
		y := top + i*rowH
		x0 := float64(labelW) + barW*float64(r.s.StartTime.Sub(start))/float64(total)
		w := max(barW*float64(r.s.EndTime.Sub(r.s.StartTime))/float64(total), 1)
		fmt.Fprintf(&b, `<text class="name" x="%d" y="%d">%s</text>`+"\n", 10+r.depth*16, y+17, html.EscapeString(r.s.Name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="20" rx="3" fill="%s"/>`+"\n", x0, y+3, w, colors[min(r.depth, len(colors)-1)])
		fmt.Fprintf(&b, `<text class="dur" x="%.1f" y="%d">%s</text>`+"\n", min(x0+w+4, float64(width-60)), y+17, round(r.s.EndTime.Sub(r.s.StartTime)))
	}
	y := top + len(rows)*rowH + 20
	fmt.Fprintf(&b, `<text x="10" y="%d" font-weight="bold">%s (%s)</text>`+"\n", y, html.EscapeString(root.Name), strings.ToUpper(root.SpanKind.String()))
	for i, a := range attrs {
		fmt.Fprintf(&b, `<text class="attr" x="22" y="%d">%s</text>`+"\n", y+18*(i+1), html.EscapeString(a))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func round(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(10 * time.Microsecond).String()
}

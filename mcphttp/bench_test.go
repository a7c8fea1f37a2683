package mcphttp_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/mcphttp"
)

// memWriter is an http.ResponseWriter that keeps everything in memory and
// can be reset between requests, so the benchmark measures the engine, not
// the recorder.
type memWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

func (w *memWriter) Flush() {}

func (w *memWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body.Reset()
}

// rewindBody is a request body that can be read again.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

func newBenchServer(b *testing.B) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "bench", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
			return strconv.Itoa(in.A + in.B), nil
		})
	return srv
}

const benchInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`
const benchCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`

func BenchmarkToolsCallAdd(b *testing.B) {
	b.Run("handler", func(b *testing.B) {
		h := mcphttp.New(newBenchServer(b), nil)
		defer h.Close()
		w := &memWriter{header: http.Header{}}
		newReq := func(body string, sid string) (*http.Request, *rewindBody) {
			rb := &rewindBody{}
			rb.Reset([]byte(body))
			r, err := http.NewRequest(http.MethodPost, "/mcp", rb)
			if err != nil {
				b.Fatal(err)
			}
			r.ContentLength = int64(len(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				r.Header.Set("Mcp-Session-Id", sid)
				r.Header.Set("MCP-Protocol-Version", "2025-06-18")
			}
			return r, rb
		}
		r, _ := newReq(benchInit, "")
		h.ServeHTTP(w, r)
		sid := w.Header().Get("Mcp-Session-Id")
		if w.status != http.StatusOK || sid == "" {
			b.Fatalf("initialize: %d %s", w.status, w.body.String())
		}
		r, rb := newReq(benchCall, sid)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			w.reset()
			rb.Reset([]byte(benchCall))
			h.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Fatalf("tools/call: %d %s", w.status, w.body.String())
			}
		}
		b.StopTimer()
		if !strings.Contains(w.body.String(), `"text":"3"`) {
			b.Fatalf("unexpected answer %s", w.body.String())
		}
	})

	b.Run("stdio", func(b *testing.B) {
		h := mcphttp.New(newBenchServer(b), nil)
		defer h.Close()
		s := inproc.New(h, nil)
		ctx := context.Background()
		var last []byte
		emit := func(msg []byte) { last = msg }
		s.Send(ctx, []byte(benchInit), emit)
		if s.ID() == "" {
			b.Fatalf("initialize: %s", last)
		}
		msg := []byte(benchCall)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s.Send(ctx, msg, emit)
		}
		b.StopTimer()
		if !bytes.Contains(last, []byte(`"text":"3"`)) {
			b.Fatalf("unexpected answer %s", last)
		}
	})

	b.Run("embedded", func(b *testing.B) {
		ctx := context.Background()
		e, err := mcphttp.Embed(ctx, newBenchServer(b), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		args := addArgs{A: 1, B: 2}
		var res *mcp.ContentResult
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, err = e.CallTool(ctx, "add", args)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if res.Text() != "3" {
			b.Fatalf("unexpected answer %+v", res)
		}
	})
}

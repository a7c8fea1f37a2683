package client

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// FuzzReadSSE: any byte stream parses without a panic, every event's
// data stays within the limit, and a stream of well-formed events gives
// back their data.
func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("id: 1\nretry: 10\ndata: {\"a\":1}\n\n"))
	f.Add([]byte(": keep-alive\r\ndata: x\r\ndata: y\r\n\r\nevent: other\ndata: z\n\n"))
	f.Add([]byte("\uFEFFdata:{}\r\r"))
	f.Add([]byte("data: " + strings.Repeat("a", 100) + "\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 64
		err := readSSE(bytes.NewReader(in), limit, func(ev sseEvent) error {
			if len(ev.data) > limit {
				t.Fatalf("an event of %d bytes passed the limit %d", len(ev.data), limit)
			}
			return nil
		})
		if err != nil && err != errEventTooLong {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzServerMessages: whatever a server sends over stdio, the client
// neither panics nor hangs: a call in flight ends (with an answer or an
// error) once the server's output ends, and Close returns.
func FuzzServerMessages(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"x"}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"method":"roots/list"}` + "\n" + `[1,2]` + "\n" + `{"id":1,"error":{"code":"x"}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\nnot json\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		sr, sw := io.Pipe()
		cr, cw := io.Pipe()
		go func() {
			_, _ = io.Copy(io.Discard, cr) // what the client sends
		}()
		go func() {
			_, _ = sw.Write(in)
			_ = sw.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cl, err := Connect(ctx, Stdio(rw{sr, cw}), &Options{OnToolsChanged: func() {}, Logger: slog.New(slog.DiscardHandler)})
		if err == nil {
			_, _ = cl.CallTool(ctx, "x", nil, nil)
			if ctx.Err() != nil {
				t.Fatal("a call hung after the server's output ended")
			}
			_ = cl.Close()
		}
		_ = cr.Close()
	})
}

type rw struct {
	io.Reader
	io.WriteCloser
}

// FuzzDecodeAck: any params of notifications/subscriptions/acknowledged
// decode without a panic into an error, or a subscription ID the client
// could have sent and a filter of at most maxAckURIs URIs.
func FuzzDecodeAck(f *testing.F) {
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://1"]}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"12"},"notifications":null}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":-1}}`))
	f.Add([]byte(`{"_meta":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		id, filter, err := decodeAck(in)
		if err != nil {
			return
		}
		if id < 0 {
			t.Fatalf("a negative subscription ID %d was taken", id)
		}
		if len(filter.URIs) > maxAckURIs {
			t.Fatalf("%d URIs kept, more than %d", len(filter.URIs), maxAckURIs)
		}
	})
}

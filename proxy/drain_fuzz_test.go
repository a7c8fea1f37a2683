package proxy

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// FuzzDrain feeds any bytes through drain as the client's input and the
// server's output: it passes them on unchanged and never panics.
func FuzzDrain(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n"), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"))
	f.Add([]byte(`{"method":"notifications/cancelled","params":{"requestId":"a"}}`), []byte(`[1,2]`+"\n\n"))
	f.Add([]byte("{\"id\":null,\"method\":\"x\"}\n{"), []byte(`{"id":{"a":1}}`))
	f.Fuzz(func(t *testing.T, in, out []byte) {
		var sink bytes.Buffer
		d := newDrain(bytes.NewReader(in), &sink, time.Millisecond)
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("read %q, %v; want %q", got, err, in)
		}
		if _, err := d.Write(out); err != nil || !bytes.Equal(sink.Bytes(), out) {
			t.Fatalf("wrote %q, %v; want %q", sink.Bytes(), err, out)
		}
	})
}

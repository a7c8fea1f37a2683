package mcphttp

import (
	"io"
	"net/http"
	"sync"
)

// body buffers are pooled: the hot path reads one per POST.
type bodyBuf struct{ b []byte }

var bodyPool = sync.Pool{New: func() any { return &bodyBuf{b: make([]byte, 0, 4096)} }}

// readBody reads a body of at most limit bytes into a pooled buffer. On
// an error the buffer holds what was read, for jsonrpc.PrefixID; the
// caller puts it back in both cases.
func readBody(r *http.Request, limit int64) (*bodyBuf, error) {
	buf := bodyPool.Get().(*bodyBuf)
	buf.b = buf.b[:0]
	rd := http.MaxBytesReader(nil, r.Body, limit)
	for {
		if len(buf.b) == cap(buf.b) {
			buf.b = append(buf.b, 0)[:len(buf.b)]
		}
		n, err := rd.Read(buf.b[len(buf.b):cap(buf.b)])
		buf.b = buf.b[:len(buf.b)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func putBody(b *bodyBuf) {
	if cap(b.b) <= 64<<10 {
		bodyPool.Put(b)
	}
}

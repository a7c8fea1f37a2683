package mcphttp

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
)

// relayWriter is the http.ResponseWriter of a synthesized request. An SSE
// answer is relayed event by event as the engine writes it; any other
// answer is kept for the caller.
type relayWriter struct {
	header   http.Header
	status   int
	sse      bool
	buf      []byte
	emit     func([]byte) error
	onHeader func() // called once, when the status is written
}

func (w *relayWriter) Header() http.Header { return w.header }

func (w *relayWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	w.sse = strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream")
	if w.onHeader != nil {
		w.onHeader()
	}
}

func (w *relayWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.buf = append(w.buf, p...)
	if w.sse {
		if err := w.relayEvents(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush implements http.Flusher: events are relayed as they are written.
func (w *relayWriter) Flush() {}

// relayEvents emits the data of every complete event in buf (comments,
// and events without data such as priming events, carry no message).
func (w *relayWriter) relayEvents() error {
	for {
		i := bytes.Index(w.buf, []byte("\n\n"))
		if i < 0 {
			return nil
		}
		var data []byte
		for line := range bytes.Lines(w.buf[:i]) {
			line = bytes.TrimRight(line, "\r\n")
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			}
		}
		w.buf = w.buf[:copy(w.buf, w.buf[i+2:])]
		if len(bytes.TrimSpace(data)) > 0 {
			if err := w.emit(data); err != nil {
				return err
			}
		}
	}
}

// copyTo writes the kept answer (a refusal by the chain) to w, without
// the engine's session header.
func (w *relayWriter) copyTo(dst http.ResponseWriter) {
	for k, v := range w.header {
		if http.CanonicalHeaderKey(k) == "Mcp-Session-Id" {
			continue
		}
		dst.Header()[k] = slices.Clone(v)
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	dst.WriteHeader(status)
	_, _ = dst.Write(w.buf)
}

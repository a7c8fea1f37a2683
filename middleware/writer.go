package middleware

import "net/http"

// statusWriter records the status and the number of body bytes written.
// It never buffers, and it implements Unwrap, Flush and FlushError so that
// http.ResponseController (and handlers asserting http.Flusher) reach the
// writer underneath: SSE streams keep flushing through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// WriteHeader records the first final status (1xx informational headers
// are passed on but not recorded).
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher.
func (w *statusWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController.Flush calls: it flushes the
// writer underneath, walking its Unwrap chain, and reports failure.
func (w *statusWriter) FlushError() error {
	if w.status == 0 {
		w.status = http.StatusOK // flushing commits the headers
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

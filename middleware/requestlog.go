package middleware

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// RequestLog logs one line per request to logger (slog.Default() when
// nil), once the handlers it wraps have returned: method, path, status,
// bytes (of the response body), duration, and, when present, the
// Mcp-Session-Id (the request's, or the one a response to initialize
// issues), Mcp-Method and Mcp-Name headers. Values the client sent are
// logged as strictjson.ForLog makes them: as they are when short printable
// ASCII, else quoted, escaped and cut at 128 bytes. Bodies are never read. The
// line is at Info level, Error for a 5xx status or a panic (which is
// logged with panicked=true and passed on, for Recover to handle: place
// RequestLog inside Recover).
//
// The response is not buffered and flushing passes through (the wrapper
// implements Unwrap and http.Flusher), so SSE streams work behind it; a
// GET stream is logged when it closes, with its whole duration.
func RequestLog(logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			// Deferred without recovering, so that a panic keeps its stack
			// for the Recover middleware (or net/http) further out.
			returned := false
			defer func() { logRequest(logger, w, r, sw, start, !returned) }()
			next.ServeHTTP(sw, r)
			returned = true
		})
	}
}

func logRequest(logger *slog.Logger, w http.ResponseWriter, r *http.Request, sw *statusWriter, start time.Time, panicked bool) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK // what net/http sends for a handler that wrote nothing
		if panicked {
			status = http.StatusInternalServerError // what Recover sends
		}
	}
	level := slog.LevelInfo
	if status >= 500 || panicked {
		level = slog.LevelError
	}
	ctx := r.Context()
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs,
		slog.String("method", strictjson.ForLog(r.Method)),
		slog.String("path", strictjson.ForLog(r.URL.Path)),
		slog.Int("status", status),
		slog.Int64("bytes", sw.bytes),
		slog.Duration("duration", time.Since(start)),
	)
	sid := r.Header.Get(sessionIDHeader)
	if sid == "" {
		sid = w.Header().Get(sessionIDHeader)
	}
	if sid != "" {
		attrs = append(attrs, slog.String("session", strictjson.ForLog(sid)))
	}
	if m := r.Header.Get("Mcp-Method"); m != "" {
		attrs = append(attrs, slog.String("mcp_method", strictjson.ForLog(m)))
	}
	if n := r.Header.Get("Mcp-Name"); n != "" {
		attrs = append(attrs, slog.String("mcp_name", strictjson.ForLog(n)))
	}
	if panicked {
		attrs = append(attrs, slog.Bool("panicked", true))
	}
	logger.LogAttrs(ctx, level, "mcp http request", attrs...)
}

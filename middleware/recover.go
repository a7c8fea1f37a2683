package middleware

import (
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// Recover turns a panic in the handlers it wraps into a 500 response with
// a JSON-RPC -32603 body (when nothing was written yet), logs the panic
// with its stack, and keeps the process alive. http.ErrAbortHandler is
// re-panicked, as net/http expects. logger nil means one logger
// for the program in the format a server logs in by default (that of a
// nil mcp.Options.Logger).
func Recover(logger *slog.Logger) func(http.Handler) http.Handler {
	if logger == nil {
		logger = defaultLogger()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := &statusWriter{ResponseWriter: w}
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger.Error("panic serving MCP request", "method", strictjson.ForLog(r.Method), "path", strictjson.ForLog(r.URL.Path),
					"panic", v, "stack", string(debug.Stack()))
				if rw.status == 0 {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusInternalServerError)
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server failed while handling the request (see the server log)"}}` + "\n"))
				}
			}()
			next.ServeHTTP(rw, r)
		})
	}
}

package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// RequestLog logs one line per request, "mcp request", once the handlers it
// wraps have returned. The line names what was asked: rpc (the JSON-RPC
// method, "tools/call"; a batch's methods, comma-separated), and tool,
// prompt or resource (the name or URI the request is about), as the engine decoded them (for a request the engine
// did not reach, such as a 401, the Mcp-Method and Mcp-Name headers stand
// in); rpc_error (the JSON-RPC error code of a refused request) or
// tool_error=true (a tool that reported a failure); calls (the number of
// requests in a batch); session (the request's Mcp-Session-Id, or the one a
// response to initialize issues); and duration.
//
// Over HTTP the line also has method, path, status and bytes (of the
// response body). Over stdio and embedded sessions, which speak no HTTP,
// it has transport ("stdio" or "embedded") instead, and only messages
// that reached the engine or were refused are logged (not the session's
// stream of server messages, nor the client's answers to the server's
// requests).
//
// The line is at Info level; Error for a 5xx status, an internal error
// (-32603) or a panic (logged with panicked=true and passed on, for
// Recover to handle: place RequestLog inside Recover). logger nil means the
// logger of the server whose engine decoded the request (its
// mcp.Options.Logger), and one logger in the default format for a request refused
// before that (a 401, a malformed body): the format a server logs in by
// default. Pass the server's logger to have those lines in it too. Values the client sent are logged as strictjson
// makes them: as they are when short printable ASCII, else quoted, escaped
// and cut at 128 bytes. Bodies are never read here.
//
// The response is not buffered and flushing passes through (the wrapper
// implements Unwrap and http.Flusher), so SSE streams work behind it; a
// GET stream is logged when it closes, with its whole duration.
func RequestLog(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			rec := &rpcRecord{}
			r = r.WithContext(mcp.WithInterceptor(r.Context(), rec.intercept))
			// Deferred without recovering, so that a panic keeps its stack
			// for the Recover middleware (or net/http) further out.
			returned := false
			defer func() { logRequest(logger, w, r, sw, rec, start, !returned) }()
			next.ServeHTTP(sw, r)
			returned = true
		})
	}
}

// rpcRecord is what the engine decoded of one HTTP request's JSON-RPC
// messages (several for a batch, whose calls may run concurrently).
type rpcRecord struct {
	mu       sync.Mutex
	calls    int
	method   string // the request's; a batch's, comma-separated
	kind     string // "tool", "prompt" or "resource"
	name     string
	code     int64 // the first JSON-RPC error code
	toolErr  bool  // a tool reported a failure
	internal bool  // an error was -32603
	logger   *slog.Logger
}

func (rec *rpcRecord) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		res, err := next(ctx, c)
		rec.add(c, res, err)
		return res, err
	}
}

func (rec *rpcRecord) add(c *mcp.Call, res any, err error) {
	var code int64
	if err != nil {
		code = mcp.CodeInternalError
		var e *mcp.Error
		if errors.As(err, &e) {
			code = e.Code
		}
	}
	cr, _ := res.(*mcp.ContentResult)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.calls++
	if rec.calls == 1 {
		rec.method = c.Method
		rec.kind, rec.name = subject(c.Method, c.Params)
		rec.logger = c.Logger
	} else {
		rec.method += "," + c.Method
		rec.kind, rec.name = "", "" // a batch names its methods only
	}
	if code != 0 && rec.code == 0 {
		rec.code = code
	}
	rec.internal = rec.internal || code == mcp.CodeInternalError
	rec.toolErr = rec.toolErr || (cr != nil && cr.IsError)
}

// subject names what a request is about: the tool, prompt or resource.
func subject(method string, params json.RawMessage) (kind, name string) {
	switch method {
	case "tools/call":
		kind = "tool"
	case "prompts/get":
		kind = "prompt"
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		kind = "resource"
	default:
		return "", ""
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return kind, ""
	}
	if kind == "resource" {
		return kind, p.URI
	}
	return kind, p.Name
}

// requestSession is the session a request belongs to: the one it named,
// else the one its answer created ("" for none).
func requestSession(w http.ResponseWriter, r *http.Request) string {
	if sid := r.Header.Get(sessionIDHeader); sid != "" {
		return sid
	}
	return w.Header().Get(sessionIDHeader)
}

// loggedStatus is the status a request was answered with: the one
// written, else what net/http sends for a handler that wrote nothing (200),
// or what Recover sends after a panic (500).
func loggedStatus(written int, panicked bool) int {
	switch {
	case written != 0:
		return written
	case panicked:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}

// appendRPC appends what the log line says of the JSON-RPC traffic: the
// method and its subject (read from the Mcp-Method and Mcp-Name headers
// when no call was seen), the number of calls when more than one, the
// error code and a tool's error.
func (rec *rpcRecord) appendRPC(attrs []slog.Attr, r *http.Request) []slog.Attr {
	method, kind, name := rec.method, rec.kind, rec.name
	if rec.calls == 0 {
		method = r.Header.Get("Mcp-Method")
		kind, _ = subject(method, nil)
		if kind == "" {
			kind = "name"
		}
		name = r.Header.Get("Mcp-Name")
	}
	if method != "" {
		attrs = append(attrs, slog.String("rpc", strictjson.ForLog(method)))
	}
	if kind != "" && name != "" {
		attrs = append(attrs, slog.String(kind, strictjson.ForLog(name)))
	}
	if rec.calls > 1 {
		attrs = append(attrs, slog.Int("calls", rec.calls))
	}
	if rec.code != 0 {
		attrs = append(attrs, slog.Int64("rpc_error", rec.code))
	}
	if rec.toolErr {
		attrs = append(attrs, slog.Bool("tool_error", true))
	}
	return attrs
}

func logRequest(logger *slog.Logger, w http.ResponseWriter, r *http.Request, sw *statusWriter, rec *rpcRecord, start time.Time, panicked bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	transport := inproc.Transport(r)
	if transport != "" && rec.calls == 0 && !panicked && (r.Method != http.MethodPost || sw.status < 400) {
		return // the session's own stream, its end, or a client's answer
	}
	if logger == nil {
		logger = rec.logger
	}
	if logger == nil {
		logger = defaultLogger()
	}
	status := loggedStatus(sw.status, panicked)
	level := slog.LevelInfo
	if status >= 500 || panicked || rec.internal {
		level = slog.LevelError
	}
	ctx := r.Context()
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 12)
	if transport != "" {
		attrs = append(attrs, slog.String("transport", transport))
	} else {
		attrs = append(attrs,
			slog.String("method", strictjson.ForLog(r.Method)),
			slog.String("path", strictjson.ForLog(r.URL.Path)),
			slog.Int("status", status),
			slog.Int64("bytes", sw.bytes),
		)
	}
	attrs = rec.appendRPC(attrs, r)
	if sid := requestSession(w, r); sid != "" {
		attrs = append(attrs, slog.String("session", strictjson.ForLog(sid)))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(start)))
	if panicked {
		attrs = append(attrs, slog.Bool("panicked", true))
	}
	logger.LogAttrs(ctx, level, "mcp request", attrs...)
}

package devserver

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// envelope is the part of a JSON-RPC message the log and the proxy read.
type envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"params"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// parse reads one message; ok is false for what is not a JSON object.
func parse(b []byte) (envelope, bool) {
	var e envelope
	if json.Unmarshal(b, &e) != nil {
		return envelope{}, false
	}
	return e, true
}

func (e envelope) isRequest() bool  { return e.Method != "" && hasID(e.ID) }
func (e envelope) isResponse() bool { return e.Method == "" && hasID(e.ID) }

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// idKey is an id as a map key (the raw JSON, so 1 and "1" differ).
func idKey(id json.RawMessage) string { return string(id) }

// name is the tool, prompt or resource a request names ("" for none).
func (e envelope) name() string {
	if e.Params.Name != "" {
		return e.Params.Name
	}
	return e.Params.URI
}

// status is "ok" or "error CODE message" for a response.
func (e envelope) status() string {
	if e.Error != nil {
		return fmt.Sprintf("error %d %s", e.Error.Code, oneLine(e.Error.Message, 80))
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(e.Result, &r) == nil && r.IsError {
		return "ok isError"
	}
	return "ok"
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// logger writes dev's lines to stderr, one at a time.
type logger struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// event logs what dev does (builds, restarts).
func (l *logger) event(format string, a ...any) {
	l.line("dev  " + fmt.Sprintf(format, a...))
}

// request logs one request: method, name, status, duration. The method
// and name are the client's, the status may hold the server's error
// message: each is shown on one line, escaped (termtext.Line).
func (l *logger) request(method, name, status string, d time.Duration) {
	if name != "" {
		method += " " + name
	}
	l.line(fmt.Sprintf("rpc  %-36s %9s  %s", termtext.Line(method), round(d), termtext.Line(status)))
}

// line writes one entry; what a terminal would act on is shown escaped.
func (l *logger) line(s string) {
	s = termtext.Clean(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s %s\n", l.now().Format("15:04:05.000"), s)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// pending is a request waiting for its response.
type pending struct {
	method, name string
	start        time.Time
	owner        any // the child (stdio) the request went to
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/stdio"
)

// The measured operations. Each one goes through the public API the way a
// client's request would: Handler.ServeHTTP with an in-memory
// ResponseWriter and one reusable request (the engine, not net/http or the
// kernel, which the gate could not count repeatably), or stdio.Serve over
// in-process pipes (the whole stdio transport). Nothing in the loop waits
// on a timer or the network, so with GOMAXPROCS=1 the goroutines take
// turns in the same order in every run.

const (
	protocolVersion = "2025-06-18"
	initBody        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"perfgate","version":"1.0.0"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callBody        = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	callAnswer      = `"text":"3"`
)

// scenario runs one kind of operation: setup once, then op as many times
// as asked. op returns an error when the answer is not the expected one,
// so a broken build fails the gate instead of getting faster.
type scenario struct {
	name string
	// what names the operation in the gate's report.
	what  string
	setup func() (op func() error, teardown func() error, err error)
}

// scenarios are the gate's rows, in the order it reports them.
var scenarios = []scenario{
	{"stateful", "tools/call in a session (Streamable HTTP, JSON answer)", setupStateful},
	{"stateless", "tools/call, stateless handler", setupStateless},
	{"stdio", "tools/call over stdio.Serve", setupStdio},
	{"churn", "initialize, notifications/initialized, tools/call, DELETE", setupChurn},
	{"stateful-http", "tools/call in a session over loopback HTTP/1.1 (net/http's server)",
		func() (func() error, func() error, error) { return setupLoopback(false) }},
	{"stateless-http", "tools/call, stateless handler, over loopback HTTP/1.1",
		func() (func() error, func() error, error) { return setupLoopback(true) }},
	{"caller-state", "stateful's call of a tool that reads and writes the caller's own state (an Authenticate hook's subject, memory store)",
		setupCallerState},
	{"full", "stateful's call on a server with every feature registered (full.go)", setupFull},
	{"full-stdio", "stdio's call on a server with every feature registered",
		func() (func() error, func() error, error) { return setupStdioWith(newFullServer(), perSession) }},
	{"full-http", "stateful-http's call on a server with every feature registered",
		func() (func() error, func() error, error) {
			return setupLoopbackWith(newFullServer(), false, perSession)
		}},
}

func findScenario(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// newServer has the harness's tool, add.
func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "perfgate", Version: "1.0.0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
			return strconv.Itoa(in.A + in.B), nil
		})
	return srv
}

// memWriter is an http.ResponseWriter that keeps the answer in memory and
// is reset between requests.
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

// engine posts to a Handler with one reusable request and writer.
type engine struct {
	h   *mcphttp.Handler
	w   *memWriter
	r   *http.Request
	del *http.Request
	rb  *rewindBody
	sid string
}

func newEngine(opts *mcphttp.Options) (*engine, error) {
	return newEngineWith(newServer(), opts)
}

func newEngineWith(srv *mcp.Server, opts *mcphttp.Options) (*engine, error) {
	h := mcphttp.New(srv, opts)
	e := &engine{h: h, w: &memWriter{header: http.Header{}}, rb: &rewindBody{}}
	r, err := http.NewRequest(http.MethodPost, "/mcp", e.rb)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	e.r = r
	if e.del, err = http.NewRequest(http.MethodDelete, "/mcp", nil); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *engine) post(body string) {
	e.w.reset()
	e.rb.Reset([]byte(body))
	e.r.ContentLength = int64(len(body))
	e.h.ServeHTTP(e.w, e.r)
}

// call posts the add call and checks its answer.
func (e *engine) call() error {
	e.post(callBody)
	if e.w.status != http.StatusOK || !bytes.Contains(e.w.body.Bytes(), []byte(callAnswer)) {
		return fmt.Errorf("tools/call: %d %s", e.w.status, e.w.body.String())
	}
	return nil
}

// initialize opens a session.
func (e *engine) initialize() error {
	e.r.Header.Del("Mcp-Session-Id")
	e.r.Header.Del("Mcp-Protocol-Version")
	e.post(initBody)
	e.sid = e.w.Header().Get("Mcp-Session-Id")
	if e.w.status != http.StatusOK || e.sid == "" {
		return fmt.Errorf("initialize: %d %s", e.w.status, e.w.body.String())
	}
	e.r.Header.Set("Mcp-Session-Id", e.sid)
	e.r.Header.Set("Mcp-Protocol-Version", protocolVersion)
	e.post(initializedBody)
	if e.w.status != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: %d %s", e.w.status, e.w.body.String())
	}
	return nil
}

// end deletes the session.
func (e *engine) end() error {
	e.del.Header = http.Header{"Mcp-Session-Id": {e.sid}, "Mcp-Protocol-Version": {protocolVersion}}
	e.w.reset()
	e.h.ServeHTTP(e.w, e.del)
	if e.w.status != http.StatusNoContent {
		return fmt.Errorf("DELETE: %d %s", e.w.status, e.w.body.String())
	}
	return nil
}

func (e *engine) close() error { return e.h.Close() }

func setupStateful() (func() error, func() error, error) {
	e, err := newEngine(nil)
	if err != nil {
		return nil, nil, err
	}
	if err := e.initialize(); err != nil {
		return nil, nil, err
	}
	return e.call, e.close, nil
}

func setupFull() (func() error, func() error, error) {
	e, err := newEngineWith(newFullServer(), nil)
	if err != nil {
		return nil, nil, err
	}
	if err := e.initialize(); err != nil {
		return nil, nil, err
	}
	if err := perSession(e.h.Server(), e.sid); err != nil {
		return nil, nil, err
	}
	return e.call, e.close, nil
}

func setupStateless() (func() error, func() error, error) {
	e, err := newEngine(&mcphttp.Options{Stateless: true})
	if err != nil {
		return nil, nil, err
	}
	return e.call, e.close, nil
}

func setupChurn() (func() error, func() error, error) {
	e, err := newEngine(nil)
	if err != nil {
		return nil, nil, err
	}
	op := func() error {
		if err := e.initialize(); err != nil {
			return err
		}
		if err := e.call(); err != nil {
			return err
		}
		return e.end()
	}
	teardown := func() error {
		if n := e.h.SessionCount(); n != 0 {
			return fmt.Errorf("churn: %d sessions left", n)
		}
		return e.close()
	}
	return op, teardown, nil
}

func setupStdio() (func() error, func() error, error) {
	return setupStdioWith(newServer(), nil)
}

// setupStdioWith serves srv over stdio.Serve; session, when set, is given
// the session's ID once it is initialized.
func setupStdioWith(srv *mcp.Server, session func(*mcp.Server, string) error) (func() error, func() error, error) {
	h := mcphttp.New(srv, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := stdio.Serve(context.Background(), h, inR, outW, nil)
		_ = outW.Close()
		done <- err
	}()
	out := bufio.NewReaderSize(outR, 64<<10)
	send := func(line string) error {
		_, err := io.WriteString(inW, line+"\n")
		return err
	}
	recv := func() (string, error) { return out.ReadString('\n') }
	teardown := func() error {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		err := <-done
		if cerr := h.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err := send(initBody); err != nil {
		return nil, nil, err
	}
	if line, err := recv(); err != nil || !strings.Contains(line, `"protocolVersion"`) {
		return nil, nil, fmt.Errorf("stdio initialize: %q %v", line, err)
	}
	if err := send(initializedBody); err != nil {
		return nil, nil, err
	}
	if session != nil {
		if err := stdioSession(h, session); err != nil {
			return nil, nil, err
		}
	}
	callLine := callBody + "\n"
	op := func() error {
		if _, err := io.WriteString(inW, callLine); err != nil {
			return err
		}
		line, err := recv()
		// The list_changed notifications of session's changes come on
		// the session's stream, in the warm-up.
		for err == nil && strings.HasPrefix(line, `{"jsonrpc":"2.0","method":"notifications/`) {
			line, err = recv()
		}
		if err != nil || !strings.Contains(line, callAnswer) {
			return fmt.Errorf("stdio tools/call: %q %v", line, err)
		}
		return nil
	}
	return op, teardown, nil
}

// stdioSession calls session with the ID of the handler's one session.
func stdioSession(h *mcphttp.Handler, session func(*mcp.Server, string) error) error {
	ss := h.Sessions()
	if len(ss) != 1 {
		return fmt.Errorf("stdio: %d sessions, want 1", len(ss))
	}
	return session(h.Server(), ss[0].ID)
}

// run sets s up, runs warmup operations and then n measured ones.
func run(s scenario, warmup, n int) error {
	op, teardown, err := s.setup()
	if err != nil {
		return err
	}
	for i := range warmup + n {
		if err := op(); err != nil {
			return fmt.Errorf("%s, operation %d: %w", s.name, i, err)
		}
	}
	return teardown()
}

// Package stdio runs an MCP http.Handler over standard input and output:
// newline-delimited JSON-RPC messages, each fed through the handler (and
// so through every middleware around it) as a synthesized HTTP request,
// the way a Streamable HTTP client would send it.
//
// Requests run concurrently on up to Options.MaxConcurrent workers; the
// rest wait in a queue of up to Options.MaxQueuedBytes (a pipelining
// client is served in turn), and beyond it a request is answered at once
// with a "server busy" error. A request that arrives while none runs and
// no other line is waiting (a client that sends one request at a time) is
// served by the reader itself; if it is not done within a millisecond (it
// waits for the client's answer, say) the reader becomes a worker and
// another goroutine reads on. So reading never waits long on a request,
// and the client's answers to sampling, elicitation and roots requests
// always get through. Notifications and responses are handled in order.
// Every message the server sends is written as one line, never
// interleaved with another. A line that is not JSON gets a -32700 error
// response; end of input cancels the work in flight and returns. Nothing
// but protocol messages is ever written to the output.
//
// A request the handler refuses with an HTTP error that is not a JSON-RPC
// message (an authentication failure's 401, say) is answered with a
// JSON-RPC error whose message is plain text ("Unauthorized: the request
// needs valid credentials") and whose data holds the HTTP status.
//
// The package needs only an http.Handler; it knows nothing of the MCP
// server behind it. It is only the line framing: the in-process client
// that feeds each message through the handler is internal/inproc, shared
// with embedded mode.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// inlineHandoff is how long a request the reader serves itself may run
// before reading passes to another goroutine (see the package doc and
// serveInline).
const inlineHandoff = time.Millisecond

// Defaults of [Options].
const (
	DefaultMaxConcurrent  = 64
	DefaultMaxLineBytes   = 4 << 20
	DefaultMaxQueuedBytes = 64 << 20
)

// Options configure [Serve]. The zero value is usable.
type Options struct {
	// Header is added to every synthesized request, for middleware that
	// reads headers (an API key, a tenant).
	Header http.Header
	// MaxConcurrent bounds the requests handled at once. Default 64.
	MaxConcurrent int
	// MaxLineBytes bounds one input line; a longer line gets an error
	// response and is skipped. Default 4 MiB.
	MaxLineBytes int
	// MaxQueuedBytes bounds the requests waiting for a free worker, in
	// bytes; beyond it a request is answered at once with a "server busy"
	// error. Default 64 MiB.
	MaxQueuedBytes int
	// MaxDepth bounds how deeply one message nests objects and arrays (the
	// message object is level 1); a deeper line gets a -32600 error that
	// names the limit, before anything recursive reads it. Default 64;
	// mcphttp.Start passes mcphttp.Options.MaxDepth.
	MaxDepth int
}

// ErrSessionEnded is returned by [Serve] when the server ended the
// session (it closed the session's stream for server-initiated messages):
// a client that stopped answering pings (middleware.PingOptions.Stdio), or
// mcphttp.Handler.EndSession or Close. A stdio transport carries one
// session, so nothing is left to serve.
var ErrSessionEnded = errors.New("stdio: the server ended the session; no longer serving")

// Serve reads messages from in and writes the server's messages to out
// until in ends (nil), ctx is done (its error), or the server ends the
// session ([ErrSessionEnded]). In-flight requests are cancelled and
// waited for before it returns.
func Serve(ctx context.Context, h http.Handler, in io.Reader, out io.Writer, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxQueuedBytes <= 0 {
		o.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := &transport{
		ctx:    ctx,
		o:      o,
		limits: jsonrpc.Limits{MaxDepth: o.MaxDepth, Setting: "stdio.Options"},
		sess:   inproc.New(h, o.Header),
		write:  newLineWriter(out).write,
		jobs:   newQueue(o.MaxQueuedBytes),
		// readErr carries what ends Serve: the reader's error, and
		// ErrSessionEnded from the session's stream when the server
		// closed it while Serve still ran. Room for both, so that
		// neither sender blocks.
		readErr: make(chan error, 2),
	}
	defer t.wg.Wait()
	defer t.jobs.close()
	defer t.stop()
	defer cancel()

	go t.read(NewLineReader(in, o.MaxLineBytes))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-t.readErr:
		return t.readEnd(err)
	}
}

// transport is one run of Serve: the session, the writer, and the
// workers that serve requests.
type transport struct {
	ctx     context.Context
	o       Options
	limits  jsonrpc.Limits
	sess    *inproc.Client
	write   func([]byte)
	jobs    *queue
	readErr chan error

	wg   sync.WaitGroup
	idle atomic.Int32 // workers waiting for a job

	// handling is held by the reader while it handles a line, by a
	// request's hand-off (serveInline), and by stop, which sets stopped:
	// once Serve returns no line is handled, and no worker, reader or
	// listener is started after its wait. It guards workers and
	// listening.
	handling  sync.Mutex
	stopped   bool
	workers   int  // workers started
	listening bool // the session's stream is open
}

// stop waits for the line being handled, if any, and makes the reader
// handle no other.
func (t *transport) stop() {
	t.handling.Lock()
	t.stopped = true
	t.handling.Unlock()
}

// read handles the lines of lines in order until the input ends or
// Serve returns. A request is handed to a worker, so reading goes on
// while it runs; initialize and notifications are handled here, in
// order (see handle).
func (t *transport) read(lines *LineReader) {
	for {
		line, err := lines.Next()
		if err != nil {
			t.readErr <- err
			return
		}
		overLong := line == nil
		if overLong {
			line = lines.cut
		}
		t.handling.Lock()
		if t.stopped {
			t.handling.Unlock()
			return
		}
		j, inline := t.handle(line, overLong, lines.r.Buffered() == 0)
		t.handling.Unlock()
		if inline {
			if !t.serveInline(j, lines) {
				return // another goroutine reads now
			}
			continue
		}
		if lines.r.Buffered() == 0 {
			// The next read is a system call that blocks until the
			// client writes again, and the worker this line just woke
			// would wait for the runtime to take the processor back
			// from it (up to milliseconds with one CPU): let it run
			// first.
			runtime.Gosched()
		}
	}
}

// readEnd is what Serve returns when reading ended with err.
func (t *transport) readEnd(err error) error {
	switch {
	case errors.Is(err, ErrSessionEnded):
		return err
	case errors.Is(err, io.EOF):
		return nil
	case errors.Is(err, context.Canceled):
		return t.ctx.Err()
	}
	return err
}

// handle answers a line that is not a message, and dispatches one that
// is, or returns a request for the reader to serve itself (inline): one
// that arrived with no other line waiting (quiet) while no request runs
// and there is room for one more worker. For a line over the size limit,
// line is its start (for its id).
func (t *transport) handle(line []byte, overLong, quiet bool) (j job, inline bool) {
	if overLong {
		// The error names the request when the line's start has its
		// id: the official Go SDK ends its connection on a response
		// whose id is null.
		t.write(jsonrpc.AppendError(nil, jsonrpc.PrefixID(line), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: the line exceeds the maximum message size of %d bytes (stdio.Options.MaxLineBytes)", t.o.MaxLineBytes), nil))
		return job{}, false
	}
	msg, err := t.limits.Decode(line)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		t.write(jsonrpc.AppendError(nil, de.ID, int64(de.Code), de.Message, nil))
		return job{}, false
	}
	if msg.Method == "initialize" || !msg.IsRequest() {
		// In order: the session ID of initialize is needed by what
		// follows, and notifications must not overtake each other.
		t.sess.Post(t.ctx, line, msg.ID, msg.Method, t.write)
		if msg.Method == "initialize" && !t.listening && t.sess.ID() != "" {
			t.listening = true
			t.wg.Add(1)
			go t.listen()
		}
		return job{}, false
	}
	j = job{line, msg.ID, msg.Method}
	if quiet && t.idle.Load() == int32(t.workers) && t.workers < t.o.MaxConcurrent {
		t.wg.Add(1) // the request; serveInline marks it done
		return j, true
	}
	t.dispatch(j)
	return job{}, false
}

// serveInline serves j on the reader's goroutine and reports whether this
// goroutine still reads. When j runs past inlineHandoff, reading passes to
// a new goroutine and this one, once j is done, serves as a worker
// (counted in workers, so MaxConcurrent still holds): a request that waits
// for the client's answer, which only reading brings, is never left
// waiting on itself. A request served here costs no hand-off between
// goroutines, which on a machine with idle CPUs wakes a thread on another
// for every request (a sequential call took 99 µs a round trip handed to
// a worker, 64 µs served here, on two CPUs; see BENCHMARKS.md).
func (t *transport) serveInline(j job, lines *LineReader) bool {
	// decided carries the hand-off's outcome: whether this goroutine is
	// now a worker (false when Serve was returning and nothing more is
	// read).
	decided := make(chan bool, 1)
	timer := time.AfterFunc(inlineHandoff, func() {
		t.handling.Lock()
		defer t.handling.Unlock()
		if t.stopped {
			decided <- false
			return
		}
		t.workers++
		t.wg.Add(1) // the worker this goroutine becomes
		go t.read(lines)
		decided <- true
	})
	t.sess.Post(t.ctx, j.line, j.id, j.method, t.write)
	if timer.Stop() {
		t.wg.Done()
		return true
	}
	worker := <-decided
	t.wg.Done()
	if worker {
		t.work()
	}
	return false
}

// listen holds the session's stream for server-initiated messages; when
// the server ends the session, reading ends with ErrSessionEnded.
func (t *transport) listen() {
	defer t.wg.Done()
	if t.sess.Listen(t.ctx, t.write) && t.ctx.Err() == nil {
		t.readErr <- ErrSessionEnded
	}
}

// dispatch hands a request to an idle worker, or starts one while under
// the bound (workers are reused, so their grown stacks are too), or
// queues it. The reader never blocks here: it must keep reading the
// client's answers to requests that busy workers are waiting on
// (sampling, elicitation, roots).
func (t *transport) dispatch(j job) {
	if t.idle.Load() == 0 && t.workers < t.o.MaxConcurrent {
		t.workers++
		t.wg.Add(1)
		go func() {
			t.sess.Post(t.ctx, j.line, j.id, j.method, t.write)
			t.work()
		}()
		return
	}
	if !t.jobs.push(j) {
		t.write(jsonrpc.AppendError(nil, j.id, mcp.CodeInternalError, fmt.Sprintf(
			"Server busy: %d requests are running and %d bytes of requests are waiting; retry when some have finished",
			t.o.MaxConcurrent, t.o.MaxQueuedBytes), nil))
	}
}

// work serves queued requests until the queue closes; the worker's
// goroutine was counted in wg when it was started.
func (t *transport) work() {
	defer t.wg.Done()
	for {
		t.idle.Add(1)
		j, ok := t.jobs.pop()
		t.idle.Add(-1)
		if !ok {
			return
		}
		t.sess.Post(t.ctx, j.line, j.id, j.method, t.write)
	}
}

// LineReader reads newline-delimited messages, skipping blank lines.
type LineReader struct {
	r   *bufio.Reader
	max int
	// cut holds the start of the last over-long line, for the id of the
	// error that answers it (jsonrpc.PrefixID).
	cut []byte
}

// cutBytes is how much of an over-long line is kept.
const cutBytes = 1024

// NewLineReader returns a reader of lines of at most max bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next non-blank line without its line ending (a copy
// the caller owns). A line longer than max is consumed and reported as a
// nil slice with a nil error. At the end of input it returns io.EOF (after
// a final unterminated line, if any).
func (l *LineReader) Next() ([]byte, error) {
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > l.max+2 {
					l.cut = append(l.cut[:0], line[:min(len(line), cutBytes)]...)
					if n := cutBytes - len(l.cut); n > 0 {
						l.cut = append(l.cut, chunk[:min(len(chunk), n)]...)
					}
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && !(err == io.EOF && (len(line) > 0 || tooLong)) {
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line, nil
		}
	}
}

// lineWriter writes messages to the output, one line each, never
// interleaved. A message is one buffered write of the line and its
// newline; the buffer is flushed when no other message is waiting to be
// written, so a burst of answers (a pipelining client) leaves in few
// write calls while a lone answer leaves at once.
type lineWriter struct {
	waiting atomic.Int32
	mu      sync.Mutex
	bw      *bufio.Writer
}

func newLineWriter(out io.Writer) *lineWriter {
	return &lineWriter{bw: bufio.NewWriterSize(out, 64<<10)}
}

func (w *lineWriter) write(msg []byte) {
	msg = bytes.TrimSpace(msg)
	w.waiting.Add(1)
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.bw.Write(msg)
	_ = w.bw.WriteByte('\n')
	if w.waiting.Add(-1) == 0 {
		_ = w.bw.Flush()
	}
}

// job is a request waiting for a worker: its line, and the id and method
// the reader decoded, handed on so that the line is not decoded again
// before the engine decodes it.
type job struct {
	line   []byte
	id     []byte
	method string
}

// queue holds requests waiting for a worker, bounded in bytes.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []job
	bytes  int
	max    int
	closed bool
}

func newQueue(max int) *queue {
	q := &queue{max: max}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push adds a request, or reports false when the queue is full.
func (q *queue) push(j job) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bytes+len(j.line) > q.max {
		return false
	}
	q.items = append(q.items, j)
	q.bytes += len(j.line)
	q.cond.Signal()
	return true
}

// pop waits for a request; it reports false once the queue is closed.
func (q *queue) pop() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return job{}, false
	}
	j := q.items[0]
	q.items[0] = job{}
	q.items = q.items[1:]
	q.bytes -= len(j.line)
	return j, true
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

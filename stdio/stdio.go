// Package stdio runs an MCP http.Handler over standard input and output:
// newline-delimited JSON-RPC messages, each fed through the handler (and
// so through every middleware around it) as a synthesized HTTP request,
// the way a Streamable HTTP client would send it.
//
// Requests run concurrently (bounded by Options.MaxConcurrent, with up to
// Options.MaxQueued waiting; beyond that a request is answered at once
// with a "server busy" error, so the reader never stalls); notifications
// and responses are handled in order. Every message the
// server sends is written as one line, never interleaved with another. A
// line that is not JSON gets a -32700 error response; end of input cancels
// the work in flight and returns. Nothing but protocol messages is ever
// written to the output.
//
// The package needs only an http.Handler; it knows nothing of the MCP
// server behind it.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// Defaults of [Options].
const (
	DefaultMaxConcurrent = 64
	DefaultMaxLineBytes  = 4 << 20
	DefaultMaxQueued     = 1024
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
	// MaxQueued bounds the requests waiting for a free worker; beyond it a
	// request is answered at once with a "server busy" error. Default 1024.
	MaxQueued int
}

// Serve reads messages from in and writes the server's messages to out
// until in ends (nil) or ctx is done (its error). In-flight requests are
// cancelled and waited for before it returns.
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
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sess := NewSession(h, o.Header)
	var wmu sync.Mutex
	bw := bufio.NewWriter(out)
	write := func(msg []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		msg = bytes.TrimSpace(msg)
		_, _ = bw.Write(msg)
		_ = bw.WriteByte('\n')
		_ = bw.Flush()
	}
	var (
		wg        sync.WaitGroup
		jobs      = make(chan []byte, o.MaxQueued)
		idle      atomic.Int32
		workers   int
		listening bool
	)
	defer wg.Wait()
	defer cancel()

	lines := NewLineReader(in, o.MaxLineBytes)
	readErr := make(chan error, 1)
	next := make(chan []byte)
	go func() {
		for {
			line, err := lines.Next()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case next <- line:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
	}()
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, context.Canceled) {
				return ctx.Err()
			}
			return err
		case line = <-next:
		}
		if line == nil { // an over-long line
			write(jsonrpc.AppendError(nil, nil, jsonrpc.CodeInvalidRequest,
				"Invalid Request: the line exceeds the maximum message size", nil))
			continue
		}
		msg, err := jsonrpc.Decode(line)
		if err != nil {
			de := err.(*jsonrpc.DecodeError)
			write(jsonrpc.AppendError(nil, de.ID, int64(de.Code), de.Message, nil))
			continue
		}
		switch {
		case msg.Method == "initialize" || !msg.IsRequest():
			// In order: the session ID of initialize is needed by what
			// follows, and notifications must not overtake each other.
			sess.Send(ctx, line, write)
			if msg.Method == "initialize" && !listening && sess.ID() != "" {
				listening = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					sess.Listen(ctx, write)
				}()
			}
		default:
			// Hand the request to an idle worker, or start one while under
			// the bound (workers are reused, so their grown stacks are
			// too), or queue it. The read loop never blocks here: it must
			// keep reading the client's answers to requests that busy
			// workers are waiting on (sampling, elicitation, roots).
			if idle.Load() == 0 && workers < o.MaxConcurrent {
				workers++
				wg.Add(1)
				go func(first []byte) {
					defer wg.Done()
					sess.Send(ctx, first, write)
					for {
						idle.Add(1)
						select {
						case l := <-jobs:
							idle.Add(-1)
							sess.Send(ctx, l, write)
						case <-ctx.Done():
							idle.Add(-1)
							return
						}
					}
				}(line)
				continue
			}
			select {
			case jobs <- line:
			default:
				write(jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, fmt.Sprintf(
					"Server busy: %d requests are running and %d waiting; retry when some have finished", o.MaxConcurrent, cap(jobs)), nil))
			}
		}
	}
}

// LineReader reads newline-delimited messages, skipping blank lines.
type LineReader struct {
	r   *bufio.Reader
	max int
}

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

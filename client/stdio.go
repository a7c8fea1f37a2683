package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Command returns a Transport that starts cmd and speaks MCP's stdio
// transport to it: one JSON message per line on its stdin and stdout. The
// server's stderr goes to cmd.Stderr (os.Stderr when nil). Closing the
// connection closes the server's stdin, then waits up to 5 s for it to
// exit before killing it, as the stdio transport's shutdown describes.
// cmd must not have been started.
func Command(cmd *exec.Cmd) Transport { return &commandTransport{cmd: cmd} }

type commandTransport struct{ cmd *exec.Cmd }

func (t *commandTransport) Connect(ctx context.Context) (Conn, error) {
	cmd := t.cmd
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp client: %s: %w", cmd.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("mcp client: %s: %w", cmd.Path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcp client: starting %s: %w", cmd.Path, err)
	}
	c := newStreamConn(stdout, stdin)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	c.onClose = func() {
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	return c, nil
}

// Stdio returns a Transport over an open byte stream to a server (a pipe,
// a socket): one JSON message per line each way. Closing the connection
// closes rwc.
func Stdio(rwc io.ReadWriteCloser) Transport { return stdioTransport{rwc} }

type stdioTransport struct{ rwc io.ReadWriteCloser }

func (t stdioTransport) Connect(context.Context) (Conn, error) {
	return newStreamConn(t.rwc, t.rwc), nil
}

// streamConn is a Conn over newline-delimited JSON.
type streamConn struct {
	in      *bufio.Reader
	wmu     sync.Mutex
	out     io.WriteCloser
	rc      io.Closer // the read side, when it is not out
	onClose func()
	once    sync.Once
	closed  chan struct{}
}

func newStreamConn(r io.Reader, w io.WriteCloser) *streamConn {
	c := &streamConn{in: bufio.NewReaderSize(r, 64<<10), out: w, closed: make(chan struct{})}
	if rc, ok := r.(io.Closer); ok && any(rc) != any(w) {
		c.rc = rc
	}
	return c
}

func (c *streamConn) Send(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		// The transport is one message per line; encoding/json never
		// writes a raw newline inside a value, so this is a caller's bug.
		return errors.New("mcp client: a stdio message must not contain a newline")
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	if _, err := c.out.Write(append(msg[:len(msg):len(msg)], '\n')); err != nil {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return nil
}

func (c *streamConn) Recv(context.Context) ([]byte, error) {
	for {
		line, err := readLine(c.in, maxMessage)
		if err != nil {
			if errors.Is(err, errTooLong) {
				return nil, fmt.Errorf("%w: the server sent a message of more than %d bytes", ErrClosed, maxMessage)
			}
			return nil, fmt.Errorf("%w: %v", ErrClosed, err)
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

func (c *streamConn) Close() error {
	c.once.Do(func() {
		c.wmu.Lock()
		close(c.closed)
		_ = c.out.Close()
		c.wmu.Unlock()
		if c.rc != nil {
			_ = c.rc.Close()
		}
		if c.onClose != nil {
			c.onClose()
		}
	})
	return nil
}

var errTooLong = errors.New("line too long")

// readLine reads one line of at most limit bytes (without its newline).
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > limit+1 {
			return nil, errTooLong
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

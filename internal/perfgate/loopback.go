package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// The loopback rows: the handler behind net/http's server on 127.0.0.1,
// in the chain mcphttp.Start serves (NewMux: recovery, the DNS-rebinding
// check, the mux of the routes), called over one keep-alive connection by
// a minimal client (requests written from prepared bytes, answers read by
// Content-Length) in the same process. They count what the in-process
// rows leave out, that chain, net/http's server and the runtime's network
// poller, plus that client's small part.
// Without sysmon (see runtimePatches) and with one client waiting for each
// answer, the goroutines still take turns in one order: loopback delivers
// a write to the peer's socket before the write returns.

// rawClient speaks HTTP/1.1 over one connection.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	host string
	body []byte
}

// request returns the bytes of a POST of body to /mcp with the session
// headers when sid is set.
func (c *rawClient) request(method, body, sid string) []byte {
	var b bytes.Buffer
	b.WriteString(method + " /mcp HTTP/1.1\r\nHost: " + c.host + "\r\n")
	if method == http.MethodPost {
		b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	}
	if sid != "" {
		b.WriteString("Mcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: " + protocolVersion + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.Bytes()
}

// do sends req and reads the answer: its status, session ID header and
// body (kept in c.body until the next call).
func (c *rawClient) do(req []byte) (status int, sid string, err error) {
	if _, err := c.conn.Write(req); err != nil {
		return 0, "", err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, "", err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, "", fmt.Errorf("status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, "", fmt.Errorf("status line %q", line)
	}
	n := 0
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, "", err
		}
		if len(line) <= 2 {
			break
		}
		name, value, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(": "))
		if !ok {
			return 0, "", fmt.Errorf("header line %q", line)
		}
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if n, err = strconv.Atoi(string(value)); err != nil {
				return 0, "", fmt.Errorf("header line %q", line)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return 0, "", fmt.Errorf("a %s answer: the client reads Content-Length only", value)
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			sid = string(value)
		}
	}
	c.body = append(c.body[:0], make([]byte, n)...)
	if _, err := io.ReadFull(c.r, c.body); err != nil {
		return 0, "", err
	}
	return status, sid, nil
}

// initialize opens a session and returns its ID.
func (c *rawClient) initialize() (string, error) {
	status, sid, err := c.do(c.request(http.MethodPost, initBody, ""))
	if err == nil && (status != http.StatusOK || sid == "") {
		err = fmt.Errorf("initialize: %d %s", status, c.body)
	}
	if err != nil {
		return "", err
	}
	status, _, err = c.do(c.request(http.MethodPost, initializedBody, sid))
	if err == nil && status != http.StatusAccepted {
		err = fmt.Errorf("notifications/initialized: %d %s", status, c.body)
	}
	return sid, err
}

// setupLoopback serves the handler on 127.0.0.1 and returns the add call
// over one connection, in a session unless stateless.
func setupLoopback(stateless bool) (func() error, func() error, error) {
	return setupLoopbackWith(newServer(), stateless, nil)
}

// setupLoopbackWith serves srv; session, when set, is given the session's
// ID once it is initialized.
func setupLoopbackWith(ms *mcp.Server, stateless bool, session func(*mcp.Server, string) error) (func() error, func() error, error) {
	h := mcphttp.New(ms, &mcphttp.Options{Stateless: stateless})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: mcphttp.NewMux(h, nil)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	teardown := func() error {
		err := srv.Shutdown(context.Background())
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		if herr := h.Close(); err == nil {
			err = herr
		}
		return err
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		_ = teardown()
		return nil, nil, err
	}
	c := &rawClient{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), host: ln.Addr().String()}
	closeAll := func() error {
		_ = conn.Close()
		return teardown()
	}
	sid := ""
	if !stateless {
		if sid, err = c.initialize(); err == nil && session != nil {
			err = session(ms, sid)
		}
		if err != nil {
			_ = closeAll()
			return nil, nil, err
		}
	}
	call := c.request(http.MethodPost, callBody, sid)
	op := func() error {
		status, _, err := c.do(call)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !bytes.Contains(c.body, []byte(callAnswer)) {
			return fmt.Errorf("tools/call: %d %s", status, c.body)
		}
		return nil
	}
	return op, closeAll, nil
}

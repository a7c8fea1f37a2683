package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// defaultDrainTimeout is StdioOptions.DrainTimeout's default.
const defaultDrainTimeout = 5 * time.Second

// drain stands between the stdio transport and the client's streams: it
// notes the IDs of the client's requests as they are read and of the
// answers as they are written, and holds the end of the input back until
// every request read has been answered (or timeout passed), so that the
// end of stdin does not cancel the calls in flight.
type drain struct {
	in      io.Reader
	out     io.Writer
	timeout time.Duration

	mu      sync.Mutex
	pending map[string]bool // the requests read and not yet answered
	inBuf   []byte          // the start of a line not yet complete
	outBuf  []byte
	changed chan struct{}
}

func newDrain(in io.Reader, out io.Writer, timeout time.Duration) *drain {
	return &drain{in: in, out: out, timeout: timeout, pending: map[string]bool{}, changed: make(chan struct{}, 1)}
}

// Read reads the input; at its end, it waits for the answers first.
func (d *drain) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	d.mu.Lock()
	d.inBuf = scanLines(d.inBuf, p[:n], d.read)
	if err == io.EOF && n == 0 && len(d.inBuf) > 0 {
		d.read(d.inBuf) // a last line without its newline
		d.inBuf = nil
	}
	d.mu.Unlock()
	if err == io.EOF {
		if n > 0 {
			return n, nil // the end comes at the next Read, once these bytes are handled
		}
		d.wait()
	}
	return n, err
}

// Write writes an answer, then counts it.
func (d *drain) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	d.outBuf = scanLines(d.outBuf, p[:n], d.written)
	d.mu.Unlock()
	select {
	case d.changed <- struct{}{}:
	default:
	}
	return n, err
}

// wait blocks until no request is unanswered, or timeout passed.
func (d *drain) wait() {
	if d.timeout < 0 {
		return
	}
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	for {
		d.mu.Lock()
		n := len(d.pending)
		d.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-d.changed:
		case <-t.C:
			return
		}
	}
}

// scanLines calls fn with each complete line of buf+p and returns what
// is left of an incomplete one.
func scanLines(buf, p []byte, fn func(line []byte)) []byte {
	buf = append(buf, p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		fn(buf[:i])
		buf = buf[i+1:]
	}
	if len(buf) == 0 {
		return nil
	}
	return bytes.Clone(buf)
}

// message is what drain reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey is a request ID as drain keys it; "" for none.
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	return string(id)
}

// read notes a line of the client: a request is pending, a cancelled
// one no longer (it may get no answer). Lines that are not one JSON-RPC
// object (a batch, bad JSON) are not waited for.
func (d *drain) read(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.Method == "notifications/cancelled":
		delete(d.pending, idKey(m.Params.RequestID))
	case m.Method != "" && idKey(m.ID) != "":
		d.pending[idKey(m.ID)] = true
	}
}

// written notes a line of the server: an answer ends its request.
func (d *drain) written(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return
	}
	delete(d.pending, idKey(m.ID))
}

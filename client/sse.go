package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// sseEvent is one server-sent event, as the HTML standard's event stream
// format defines it: the fields an MCP server uses.
type sseEvent struct {
	id    string
	event string
	data  []byte
	// retry is the reconnection delay the event set (0: none).
	retry time.Duration
	// hasID: the event had an id field (an empty id resets the last one).
	hasID bool
}

var errEventTooLong = errors.New("an event of the stream is too long")

// readSSE reads events from r and calls fn with each one that has data
// or an id, until r ends (nil), fn fails (its error), or an event's data
// passes limit bytes. Lenient, as a browser is: unknown fields and
// comments are skipped, lines end in LF, CRLF or CR, a leading BOM is
// dropped, and "data:" without a space keeps the whole value.
func readSSE(r io.Reader, limit int, fn func(sseEvent) error) error {
	br := bufio.NewReaderSize(r, 16<<10)
	var ev sseEvent
	var data bytes.Buffer
	first := true
	dispatch := func() error {
		defer func() { ev, first = sseEvent{}, true; data.Reset() }()
		if data.Len() == 0 && !ev.hasID && ev.retry == 0 {
			return nil
		}
		ev.data = bytes.Clone(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
		return fn(ev)
	}
	bom := true
	for {
		line, err := readSSELine(br, limit)
		if err != nil {
			if errors.Is(err, io.EOF) {
				// An event not ended by a blank line is dropped, as the
				// standard says.
				return nil
			}
			return err
		}
		if bom {
			line, bom = bytes.TrimPrefix(line, []byte("\uFEFF")), false
		}
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				return err
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			if data.Len()+len(value)+1 > limit {
				return errEventTooLong
			}
			if !first {
				data.WriteByte('\n')
			}
			data.Write(value)
			first = false
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id, ev.hasID = string(value), true
			}
		case "event":
			ev.event = string(value)
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
				ev.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

// readSSELine reads one line ended by LF, CRLF or CR (a lone CR at the
// end of the buffer is taken as an end too), of at most limit bytes.
func readSSELine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
		switch b {
		case '\n':
			return line, nil
		case '\r':
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				_, _ = br.ReadByte()
			}
			return line, nil
		}
		if len(line) >= limit {
			return nil, errEventTooLong
		}
		line = append(line, b)
	}
}

package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newTestServer is a small server with the tools the stdio tests call.
func newTestServer(t testing.TB, slow *mcptest.Probe) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "stdio-test", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (string, error) {
		return strconv.Itoa(in.A + in.B), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "stream"}, func(ctx context.Context, c *mcp.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		for i := range in.N {
			if err := c.StreamContent(ctx, mcp.Text(fmt.Sprintf("chunk %d of request %s\n\"quoted\"", i, c.RequestID))); err != nil {
				return "", err
			}
			c.Log.Info("streamed", map[string]any{"i": i})
		}
		return "done " + c.RequestID, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "slow"}, slow.Tool)
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return fmt.Sprint(c.Session), nil
	})
	return srv
}

// pipeServer runs stdio.Serve over pipes and reads every output line.
type pipeServer struct {
	t     testing.TB
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	wmu   sync.Mutex

	mu  sync.Mutex
	all [][]byte // every line written to stdout
	bad []string // lines that are not one JSON-RPC message
}

// startServe serves h over pipes. The cleanup closes stdin, waits for Serve
// and checks that stdout carried nothing but JSON-RPC messages.
func startServe(t testing.TB, ctx context.Context, h http.Handler, opts *stdio.Options) *pipeServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeServer{t: t, in: inW, lines: make(chan []byte, 10000), done: make(chan error, 1)}
	go func() {
		err := stdio.Serve(ctx, h, inR, outW, opts)
		_ = outW.Close()
		_ = inR.Close()
		p.done <- err
	}()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(p.lines)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				p.record(line)
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after stdin closed")
		}
		<-readerDone
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.bad) > 0 {
			t.Errorf("stdout carried %d lines that are not JSON-RPC messages, first: %q", len(p.bad), p.bad[0])
		}
	})
	return p
}

func (p *pipeServer) record(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = append(p.all, line)
	body, ok := bytes.CutSuffix(line, []byte("\n"))
	if !ok || bytes.ContainsAny(body, "\r\n") {
		p.bad = append(p.bad, string(line))
	} else if _, err := jsonrpc.Decode(body); err != nil {
		p.bad = append(p.bad, string(line))
	}
	p.lines <- body
}

// send writes one line to stdin.
func (p *pipeServer) send(line string) {
	p.t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(p.t, err)
}

// msg is a decoded output line.
type msg = wiretest.Msg

// next returns the next output message.
func (p *pipeServer) next() msg {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		require.True(p.t, ok, "stdout closed")
		var m msg
		require.NoError(p.t, json.Unmarshal(line, &m), "%s", line)
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no output within 10s")
		return msg{}
	}
}

// response returns the response with the given id (its JSON text), and
// the messages that came before it.
func (p *pipeServer) response(id string) (msg, []msg) {
	p.t.Helper()
	var before []msg
	for {
		m := p.next()
		if m.IsResponse() && string(m.ID) == id {
			return m, before
		}
		before = append(before, m)
	}
}

// initialize runs the handshake.
func (p *pipeServer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m, _ := p.response(`"init"`)
	require.Nil(p.t, m.Error)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// newHandler returns an engine for srv, closed with the test.
func newHandler(t testing.TB, srv *mcp.Server) *mcphttp.Handler {
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

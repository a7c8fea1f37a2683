package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
)

func TestServeMalformedLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		line     string
		wantCode int64
		wantID   string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,`, -32700, "null"},
		{"garbage", `hello world`, -32700, "null"},
		{"not an object", `[1,2`, -32700, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
		{"duplicate method", `{"jsonrpc":"2.0","id":6,"method":"ping","method":"tools/list"}`, -32600, "6"},
		{"case-variant Method", `{"jsonrpc":"2.0","id":7,"method":"ping","Method":"tools/list"}`, -32600, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHandler(t, newTestServer(t, nil))
			p := startServe(t, context.Background(), h, nil)
			p.initialize()
			p.send(tt.line)
			m, _ := p.response(tt.wantID)
			require.NotNil(t, m.Error)
			assert.Equal(t, tt.wantCode, m.Error.Code)
			// The server keeps serving.
			p.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			after, _ := p.response(`"after"`)
			assert.Nil(t, after.Error)
			assert.JSONEq(t, `{}`, string(after.Result))
		})
	}
}

// TestServeOverlongLine: a line over MaxLineBytes gets an error that
// names the request when the line's start holds its id (the official Go
// SDK ends its connection on a response whose id is null), null when it
// does not; the lines after it are served.
func TestServeOverlongLine(t *testing.T) {
	t.Parallel()
	h := newHandler(t, newTestServer(t, nil))
	p := startServe(t, context.Background(), h, &stdio.Options{MaxLineBytes: 512})
	p.initialize()

	pad := strings.Repeat("x", 200<<10)
	for _, tt := range []struct{ name, line, wantID string }{
		{"id first", `{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"pad":"` + pad + `"}}`, `"long"`},
		{"id after the cut", `{"method":"tools/call","params":{"name":"add","pad":"` + pad + `"},"jsonrpc":"2.0","id":9}`, `null`},
	} {
		p.send(tt.line)
		m := p.next()
		require.NotNil(t, m.Error, "%s: an over-long line gets an error response", tt.name)
		assert.Equal(t, tt.wantID, string(m.ID), tt.name)
		assert.EqualValues(t, -32600, m.Error.Code, tt.name)
		assert.Contains(t, m.Error.Message, "exceeds the maximum message size of 512 bytes (stdio.Options.MaxLineBytes)", tt.name)
	}

	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2}}}`)
	res, _ := p.response("2")
	assert.Equal(t, "42", wiretest.ToolResult(t, res).Text(), "the next line still works")
}

// TestServeDepthLimit: a line nested past the limit is refused before it
// reaches the handler, with an error naming the limit and the setting; a
// configured limit (on stdio and on the engine behind it) is honoured.
func TestServeDepthLimit(t *testing.T) {
	t.Parallel()
	deep := func(id string, n int) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"ping","params":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		p := startServe(t, context.Background(), newHandler(t, newTestServer(t, nil)), nil)
		p.initialize()
		p.send(deep("deep", 65))
		m, _ := p.response(`"deep"`)
		require.NotNil(t, m.Error)
		assert.EqualValues(t, -32600, m.Error.Code)
		assert.Contains(t, m.Error.Message, "deeper than the limit of 64 levels (stdio.Options.MaxDepth)")
	})
	t.Run("configured", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(newTestServer(t, nil), &mcphttp.Options{MaxDepth: 100})
		t.Cleanup(func() { _ = h.Close() })
		p := startServe(t, context.Background(), h, &stdio.Options{MaxDepth: 100})
		p.initialize()
		p.send(deep("ok", 90))
		m, _ := p.response(`"ok"`)
		require.Nil(t, m.Error, "%+v", m.Error)
		p.send(deep("deep", 99)) // 101 levels with the envelope and params
		m, _ = p.response(`"deep"`)
		require.NotNil(t, m.Error)
		assert.Contains(t, m.Error.Message, "deeper than the limit of 100 levels")
	})
}

func TestServeConcurrentRequests(t *testing.T) {
	t.Parallel()
	const calls = 200
	const chunks = 3
	h := newHandler(t, newTestServer(t, nil))
	p := startServe(t, context.Background(), h, nil)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
	p.response(`"lvl"`)

	go func() {
		for i := range calls {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"stream","arguments":{"n":%d}}}`, i, chunks))
		}
	}()
	results := map[string]string{}
	streamed := map[string]int{}
	for len(results) < calls {
		m := p.next()
		switch {
		case m.IsResponse():
			require.NotContains(t, results, string(m.ID), "one response per request")
			results[string(m.ID)] = wiretest.ToolResult(t, m).Text()
		case m.Method == "notifications/tool/streamContent":
			var params struct {
				ToolName string            `json:"toolName"`
				Content  []mcp.TextContent `json:"content"`
			}
			require.NoError(t, json.Unmarshal(m.Params, &params))
			assert.Equal(t, "stream", params.ToolName)
			require.Len(t, params.Content, 1)
			var i int
			var id string
			_, err := fmt.Sscanf(strings.SplitN(params.Content[0].Text, "\n", 2)[0], "chunk %d of request %s", &i, &id)
			require.NoError(t, err, params.Content[0].Text)
			streamed[id]++
		}
	}
	for i := range calls {
		id := fmt.Sprint(i)
		assert.Equal(t, "done "+id, results[id])
		assert.Equal(t, chunks, streamed[id], "every chunk of request %s precedes its result", id)
	}
	p.mu.Lock()
	n := len(p.all)
	p.mu.Unlock()
	assert.GreaterOrEqual(t, n, calls*(1+2*chunks), "results, streamed content and log messages")
}

// startSlow serves the test server until ctx ends and calls its slow tool
// as request 1, returning once the tool runs.
func startSlow(t *testing.T, ctx context.Context, opts *stdio.Options) (*pipeServer, *mcptest.Probe) {
	t.Helper()
	slow := mcptest.NewProbe()
	p := startServe(t, ctx, newHandler(t, newTestServer(t, slow)), opts)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	select {
	case <-slow.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
	}
	return p, slow
}

func TestServeEOFCancelsInFlight(t *testing.T) {
	t.Parallel()
	p, slow := startSlow(t, context.Background(), nil)
	require.NoError(t, p.in.Close())
	select {
	case err := <-p.done:
		assert.NoError(t, err, "end of input is a clean stop")
		p.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return at EOF")
	}
	select {
	case err := <-slow.Stopped:
		assert.ErrorIs(t, err, context.Canceled, "the tool's context ends at EOF")
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never saw its context end")
	}
}

func TestServeContextCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p, slow := startSlow(t, ctx, nil)
	cancel()
	select {
	case err := <-p.done:
		assert.ErrorIs(t, err, context.Canceled)
		p.done <- err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when ctx ended")
	}
	assert.ErrorIs(t, <-slow.Stopped, context.Canceled)
}

// TestServeHandlesNoLineAfterReturn: once Serve has returned, a line the
// reader was still waiting for is neither answered nor handed to a
// worker, and the reader ends (goleak checks that in TestMain).
func TestServeHandlesNoLineAfterReturn(t *testing.T) {
	t.Parallel()
	h := newHandler(t, newTestServer(t, mcptest.NewProbe()))
	inR, inW := io.Pipe()
	defer inW.Close()
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(ctx, h, inR, &out, nil) }()
	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), `"id":"init"`) }, 10*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when ctx ended")
	}
	before := out.String()
	// The write returns once the reader, blocked in its read since
	// before Serve returned, has the line.
	_, err = io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`+"\n")
	require.NoError(t, err)
	assert.Never(t, func() bool { return out.String() != before }, 200*time.Millisecond, 5*time.Millisecond,
		"nothing is written after Serve returned")
}

func TestServeStdoutOnlyProtocol(t *testing.T) {
	t.Parallel()
	// A server whose own logger is the default one (stderr) and a tool
	// that logs both ways: none of it may reach stdout.
	noisy := mcp.NewServer(mcp.Options{Name: "noisy", Version: "1.0.0"})
	mcp.AddTool(noisy, mcp.Tool{Name: "log"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		noisy.Logger().Debug("server-side log line")
		c.Log.Warn("client-side log message", "detail")
		return "ok", nil
	})
	mcp.AddTool(noisy, mcp.Tool{Name: "panics"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		panic("kaboom")
	})
	h := newHandler(t, noisy)
	p := startServe(t, context.Background(), h, nil)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	p.response("1")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`)
	_, before := p.response("2")
	require.Len(t, before, 1, "the client-side log message, as a protocol message")
	assert.Equal(t, "notifications/message", before[0].Method)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"panics"}}`)
	p.response("3")
	p.send(`{"jsonrpc":"2.0","id":4,"method":"nope"}`)
	p.response("4")
	p.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
	p.send(`{"jsonrpc":"2.0","id":5,"result":{}}`) // a response nobody asked for
	p.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	p.response("6")
	require.NoError(t, p.in.Close())
	err := <-p.done
	require.NoError(t, err)
	p.done <- err
	p.mu.Lock()
	for _, line := range p.all {
		assert.True(t, bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0",`)), "%q", line)
		assert.True(t, json.Valid(line), "%q", line)
	}
	p.mu.Unlock()
	// startServe's cleanup checks every line decodes as JSON-RPC.
}

func TestServeHeaderReachesTheChain(t *testing.T) {
	t.Parallel()
	h := newHandler(t, newTestServer(t, nil))
	tenant := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithAuth(r.Context(), "tenant:"+r.Header.Get("X-Tenant"))))
		})
	}
	p := startServe(t, context.Background(), tenant(h), &stdio.Options{Header: http.Header{"X-Tenant": {"acme"}}})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`)
	m, _ := p.response("1")
	assert.Equal(t, "tenant:acme", wiretest.ToolResult(t, m).Text())
}

// TestServeHTTPErrorsBecomeResponses: an HTTP error without a JSON-RPC
// body (a middleware's 401, say) still answers the request.
func TestServeHTTPErrorsBecomeResponses(t *testing.T) {
	t.Parallel()
	deny := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no entry", http.StatusUnauthorized)
	})
	p := startServe(t, context.Background(), deny, nil)
	p.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	m, _ := p.response("9")
	require.NotNil(t, m.Error)
	assert.EqualValues(t, -32000, m.Error.Code)
	assert.Equal(t, "Unauthorized: no entry", m.Error.Message, "a plain message, not an HTTP body in a string")
	assert.JSONEq(t, `{"status":401}`, string(m.Error.Data))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	m, before := p.response("10")
	assert.Empty(t, before, "a notification gets no answer, even an error")
	assert.NotNil(t, m.Error)
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), 4)
	f.Add([]byte("\n\n  \r\n{\"x\":1}\r\n"), 8)
	f.Add([]byte("no newline at end"), 5)
	f.Add([]byte("toolong\nok\n"), 3)
	f.Add([]byte(strings.Repeat("x", 100)+"\nshort\n"), 16)
	f.Add([]byte{}, 1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<12 {
			max = 1 + (max&0x7fffffff)%64
		}
		r := stdio.NewLineReader(iotestHalf(data), max)
		total, lines := 0, 0
		for {
			line, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("error %v", err)
				}
				break
			}
			lines++
			if lines > len(data)+1 {
				t.Fatalf("more lines than input bytes")
			}
			if line == nil {
				continue // an over-long line, skipped
			}
			if len(line) == 0 {
				t.Fatalf("an empty line was returned")
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q holds a newline", line)
			}
			if len(line) > max+2 {
				t.Fatalf("line of %d bytes exceeds max %d", len(line), max)
			}
			if !bytes.Contains(data, line) {
				t.Fatalf("line %q is not in the input", line)
			}
			total += len(line)
		}
		if total > len(data) {
			t.Fatalf("read %d bytes of lines from %d bytes of input", total, len(data))
		}
	})
}

// iotestHalf returns a reader of data that reads at most 7 bytes per call,
// to exercise lines split across reads.
func iotestHalf(data []byte) io.Reader { return &smallReader{data: data} }

type smallReader struct{ data []byte }

func (r *smallReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want []string // "<nil>" stands for an over-long line
	}{
		{"lines", "a\nbb\n", 10, []string{"a", "bb"}},
		{"blank lines skipped and trimmed", "\n  \r\n x \r\n", 10, []string{"x"}},
		{"final line without newline", "a\nb", 10, []string{"a", "b"}},
		{"over-long line skipped", "0123456789abcdef\nok\n", 4, []string{"<nil>", "ok"}},
		{"over-long final line", "ok\n0123456789", 4, []string{"ok", "<nil>"}},
		{"over-long across the reader buffer", strings.Repeat("y", 200<<10) + "\nok\n", 1 << 10, []string{"<nil>", "ok"}},
		{"long line within max", strings.Repeat("z", 100<<10) + "\n", 200 << 10, []string{strings.Repeat("z", 100<<10)}},
		{"empty", "", 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := stdio.NewLineReader(strings.NewReader(tt.in), tt.max)
			var got []string
			for {
				line, err := r.Next()
				if err != nil {
					require.ErrorIs(t, err, io.EOF)
					break
				}
				if line == nil {
					got = append(got, "<nil>")
				} else {
					got = append(got, string(line))
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestServeReadsOnWhileTheReaderServes: a request sent alone is served by
// the reader itself; when it runs on, reading passes to another goroutine,
// so the next request is answered while the first still runs, and a
// notifications/cancelled for the first reaches it. With MaxConcurrent 1
// the reader that served the long request counts as the one worker: the
// next request waits for it, as it would for any worker.
func TestServeReadsOnWhileTheReaderServes(t *testing.T) {
	t.Parallel()
	add := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	// cancelFirst cancels request 1 and waits until the tool saw it.
	cancelFirst := func(t *testing.T, p *pipeServer, slow *mcptest.Probe) {
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		select {
		case err := <-slow.Stopped:
			assert.EqualError(t, err, "mcp: the client cancelled the request", "the cancellation's cause")
		case <-time.After(10 * time.Second):
			t.Fatal("the cancellation never reached request 1")
		}
	}
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		p, slow := startSlow(t, context.Background(), nil)
		p.send(add)
		m, _ := p.response("2")
		assert.Equal(t, "3", wiretest.ToolResult(t, m).Text(), "answered while request 1 runs")
		select {
		case err := <-slow.Stopped:
			t.Fatalf("request 1 ended before its cancellation: %v", err)
		default:
		}
		cancelFirst(t, p, slow)
	})
	t.Run("MaxConcurrent 1", func(t *testing.T) {
		t.Parallel()
		p, slow := startSlow(t, context.Background(), &stdio.Options{MaxConcurrent: 1})
		p.send(add)
		select {
		case line := <-p.lines:
			t.Fatalf("a second request ran beside the first with MaxConcurrent 1: %s", line)
		case <-time.After(200 * time.Millisecond):
		}
		cancelFirst(t, p, slow)
		m, _ := p.response("2")
		assert.Equal(t, "3", wiretest.ToolResult(t, m).Text(), "answered once request 1 ended")
	})
}

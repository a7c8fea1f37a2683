package inproc_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/mcphttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newHandler(t *testing.T) *mcphttp.Handler {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "inproc-test", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (string, error) {
		return strconv.Itoa(in.A + in.B), nil
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func TestSendWithoutInitialize(t *testing.T) {
	t.Parallel()
	c := inproc.New(newHandler(t), nil)
	var got [][]byte
	c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), func(b []byte) { got = append(got, b) })
	require.Len(t, got, 1)
	assert.Contains(t, string(got[0]), "Mcp-Session-Id")
	assert.Contains(t, string(got[0]), `"id":1`, "the engine's error answers the request")
	assert.Empty(t, c.ID())
	c.Close(context.Background()) // no session: a no-op
}

func TestInitializeCallAndClose(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	c := inproc.New(h, nil)
	var mu sync.Mutex
	var got []string
	emit := func(b []byte) { mu.Lock(); got = append(got, string(b)); mu.Unlock() }
	c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), emit)
	require.NotEmpty(t, c.ID())
	assert.Equal(t, 1, h.SessionCount())
	c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}`), emit)
	c.Close(context.Background())
	assert.Equal(t, 0, h.SessionCount(), "Close ends the session on the server")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2)
	assert.Contains(t, got[0], `"protocolVersion":"2025-03-26"`)
	assert.Contains(t, got[1], `"text":"2"`)
}

// TestHTTPErrorsBecomePlainErrors: an HTTP refusal that is not a JSON-RPC
// message answers the request with a plain message and the status in data.
func TestHTTPErrorsBecomePlainErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantMessage string
	}{
		{"OAuth-style 401", http.StatusUnauthorized, "application/json",
			`{"error":"unauthorized","error_description":"Unauthorized: the request needs valid credentials"}`,
			"Unauthorized: the request needs valid credentials"},
		{"OAuth-style without the status text", http.StatusForbidden, "application/json",
			`{"error":"insufficient_scope","error_description":"the scope is missing"}`, "Forbidden: the scope is missing"},
		{"plain text", http.StatusUnauthorized, "text/plain", "no entry\n", "Unauthorized: no entry"},
		{"empty body", http.StatusTooManyRequests, "", "", "Too Many Requests"},
		{"JSON that is not OAuth", http.StatusBadGateway, "application/json", `{"x":1}`, `Bad Gateway: {"x":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			var got []byte
			inproc.New(h, nil).Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":"a","method":"ping"}`), func(b []byte) { got = b })
			var m struct {
				ID    string `json:"id"`
				Error struct {
					Code    int             `json:"code"`
					Message string          `json:"message"`
					Data    json.RawMessage `json:"data"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(got, &m), "%s", got)
			assert.Equal(t, "a", m.ID)
			assert.Equal(t, mcp.CodeServerError, m.Error.Code)
			assert.Equal(t, tt.wantMessage, m.Error.Message)
			assert.JSONEq(t, `{"status":`+strconv.Itoa(tt.status)+`}`, string(m.Error.Data))
		})
	}
}

// TestHeaderReachesHandler: the client's header is on every request.
func TestHeaderReachesHandler(t *testing.T) {
	t.Parallel()
	var seen string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusAccepted)
	})
	inproc.New(h, http.Header{"Authorization": {"Bearer ada"}}).Send(context.Background(),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), func([]byte) {})
	assert.Equal(t, "Bearer ada", seen)
}

// unwrapper wraps a ResponseWriter and says so, as middleware's do.
type unwrapper struct{ http.ResponseWriter }

func (u unwrapper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// hider wraps a ResponseWriter without Unwrap.
type hider struct{ http.ResponseWriter }

// TestMessagesAndText: a handler that finds the MessageWriter (through
// wrappers that unwrap) hands messages over whole; one that cannot see it,
// or writes text anyway, is parsed back, SSE as it is written and JSON at
// the end; either way the caller gets the same messages, in order.
func TestMessagesAndText(t *testing.T) {
	t.Parallel()
	const note = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`
	const answer = `{"jsonrpc":"2.0","id":7,"result":{}}`
	tests := []struct {
		name  string
		wrap  func(http.ResponseWriter) http.ResponseWriter
		sse   bool
		found bool
	}{
		{"direct, messages", func(w http.ResponseWriter) http.ResponseWriter { return w }, true, true},
		{"through Unwrap, messages", func(w http.ResponseWriter) http.ResponseWriter { return unwrapper{w} }, true, true},
		{"hidden, SSE text", func(w http.ResponseWriter) http.ResponseWriter { return hider{w} }, true, false},
		{"hidden, JSON text", func(w http.ResponseWriter) http.ResponseWriter { return hider{w} }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w = tt.wrap(w)
				mw := inproc.FindMessageWriter(w)
				assert.Equal(t, tt.found, mw != nil)
				if tt.sse {
					w.Header().Set("Content-Type", "text/event-stream")
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(http.StatusOK)
				switch {
				case mw != nil:
					assert.NoError(t, mw.WriteMessage([]byte(note)))
					assert.NoError(t, mw.WriteMessage([]byte(answer)))
				case tt.sse:
					_, _ = w.Write([]byte("event: message\ndata: " + note + "\n\nevent: message\ndata: "))
					_, _ = w.Write([]byte(answer + "\n\n"))
				default:
					_, _ = w.Write([]byte(answer + "\n"))
				}
			})
			var got []string
			inproc.New(h, nil).Post(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`),
				json.RawMessage(`7`), "ping", func(b []byte) { got = append(got, string(b)) })
			if tt.sse {
				assert.Equal(t, []string{note, answer}, got)
			} else {
				assert.Equal(t, []string{answer}, got)
			}
		})
	}
	assert.Nil(t, inproc.FindMessageWriter(nil))
}

// TestVersionFromInitializeOnly: the protocol version later requests
// carry comes from the initialize answer, not from any other result that
// happens to have a protocolVersion member.
func TestVersionFromInitializeOnly(t *testing.T) {
	t.Parallel()
	var versions []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		versions = append(versions, r.Header.Get("MCP-Protocol-Version"))
		w.Header().Set("Mcp-Session-Id", "s1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`))
	})
	c := inproc.New(h, nil)
	ctx := context.Background()
	emit := func([]byte) {}
	c.Post(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), json.RawMessage(`1`), "tools/call", emit)
	c.Post(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), json.RawMessage(`1`), "ping", emit)
	assert.Empty(t, c.ID(), "only initialize's answer names the session")
	c.Post(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`), json.RawMessage(`1`), "initialize", emit)
	c.Post(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), json.RawMessage(`1`), "ping", emit)
	assert.Equal(t, []string{"", "", "", "2025-06-18"}, versions)
	assert.Equal(t, "s1", c.ID())
}

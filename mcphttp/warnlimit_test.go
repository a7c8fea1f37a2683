package mcphttp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

// TestWarnLimit: a warning goes out at once, the next ones within
// warnEvery are held back, and the first after it says how many were.
func TestWarnLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf lockedBuffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		var w warnLimit
		for i := range 100 {
			w.warn(log, "relay down", "i", i)
		}
		got := buf.lines("relay down")
		require.Len(t, got, 1)
		assert.Contains(t, got[0], "i=0")
		assert.NotContains(t, got[0], "left_out")

		time.Sleep(warnEvery - time.Millisecond)
		w.warn(log, "relay down", "i", 100)
		require.Len(t, buf.lines("relay down"), 1, "still within warnEvery")

		time.Sleep(time.Millisecond)
		w.warn(log, "relay down", "i", 101)
		got = buf.lines("relay down")
		require.Len(t, got, 2)
		assert.Contains(t, got[1], "i=101")
		assert.Contains(t, got[1], "left_out=100")

		time.Sleep(warnEvery)
		w.warn(log, "relay down", "i", 102)
		got = buf.lines("relay down")
		require.Len(t, got, 3)
		assert.NotContains(t, got[2], "left_out", "nothing held back since")
	})
}

// sharedStore is a session store the handler cannot tell from a shared
// one (anything but *session.MemoryStore): its server-to-client request
// IDs then carry its replica tag.
type sharedStore struct{ session.Store }

// TestForeignAnswerWarningIsLimited: a client that posts answers to
// requests of another replica, over and over, is answered 202 each time
// and fills the log with one warning, not one per POST.
func TestForeignAnswerWarningIsLimited(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	srv := mcp.NewServer(mcp.Options{Name: "w", Version: "1.0.0", Logger: log})
	h := New(srv, &Options{Sessions: sharedStore{session.NewMemoryStore()}})
	t.Cleanup(func() { _ = h.Close() })
	require.NotZero(t, h.replica)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	post := func(sid, body string) *http.Response {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	require.Equal(t, http.StatusAccepted, post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).StatusCode)

	other := (h.replica>>replicaShift + 2) << replicaShift
	for i := range 50 {
		id := strconv.FormatInt(other+int64(i)+1, 10)
		resp := post(sid, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
	}
	assert.Len(t, buf.lines("another replica sent"), 1, "one warning for 50 foreign answers")
}

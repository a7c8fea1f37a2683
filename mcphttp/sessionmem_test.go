package mcphttp_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// openIdleSessions opens n sessions on h in process (initialize, then
// notifications/initialized, as a client does), and returns their IDs.
func openIdleSessions(tb testing.TB, h *mcphttp.Handler, n int) []string {
	tb.Helper()
	ids := make([]string, 0, n)
	w := &memWriter{header: http.Header{}}
	for range n {
		w.reset()
		r, err := http.NewRequest(http.MethodPost, "/mcp", strings.NewReader(benchInit))
		require.NoError(tb, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		h.ServeHTTP(w, r)
		sid := w.Header().Get("Mcp-Session-Id")
		require.Equal(tb, http.StatusOK, w.status, w.body.String())
		w.reset()
		r, err = http.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		require.NoError(tb, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Session-Id", sid)
		h.ServeHTTP(w, r)
		require.Equal(tb, http.StatusAccepted, w.status, w.body.String())
		ids = append(ids, sid)
	}
	return ids
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// idleSessionBytes measures the heap an idle session holds: n sessions
// opened in process, the live heap before and after, divided by n.
func idleSessionBytes(tb testing.TB, n int) float64 {
	tb.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "mem", Version: "1.0.0", Logger: discardLogger()})
	h := mcphttp.New(srv, &mcphttp.Options{MaxSessions: -1})
	defer h.Close()
	before := heapInUse()
	ids := openIdleSessions(tb, h, n)
	after := heapInUse()
	require.Equal(tb, n, h.SessionCount())
	runtime.KeepAlive(ids)
	return float64(after-before) / float64(n)
}

// TestIdleSessionMemory bounds what an idle session costs: the
// per-session buffers and channels (the GET queue, the in-flight map, the
// done channel, the channel of request slots) are made only when used, so
// an idle session, with the in-memory store's entry, measured 868 bytes
// and stays under 1 KiB.
func TestIdleSessionMemory(t *testing.T) {
	per := idleSessionBytes(t, 5000)
	t.Logf("%.0f bytes per idle session", per)
	require.Less(t, per, 1024.0, "bytes per idle session")
}

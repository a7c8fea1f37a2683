package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestRequestStreamEndsWithoutResponse: a request whose response stream
// ends without the response and cannot be resumed fails at once with an
// internal error saying so, rather than waiting for its context: at
// 2026-07-28 (which resumes no stream) over HTTP and in process; at
// 2025-11-25 when no event had an id, and when the server refuses the GET
// that would resume the stream after one that had. A request answered on
// its stream is unaffected, and so is the connection: the next call
// succeeds.
func TestRequestStreamEndsWithoutResponse(t *testing.T) {
	t.Parallel()
	httpDial := func(t *testing.T, h http.Handler) Transport {
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return HTTP(ts.URL, &HTTPOptions{NoListen: true, MaxRetries: 1})
	}
	for _, tc := range []struct {
		name    string
		version mcp.Version
		eventID bool // the dropped stream carries a log message with an event id
		dial    func(t *testing.T, h http.Handler) Transport
	}{
		{"HTTP 2026-07-28", mcp.Version20260728, false, httpDial},
		{"InProcess 2026-07-28", mcp.Version20260728, false,
			func(_ *testing.T, h http.Handler) Transport { return InProcess(h, nil) }},
		{"HTTP 2025-11-25, no event id", mcp.Version20251125, false, httpDial},
		{"HTTP 2025-11-25, resumption refused", mcp.Version20251125, true, httpDial},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(notesServer(), nil)
			t.Cleanup(func() { _ = h.Close() })
			// tools/call of "drop" gets an event stream that ends without
			// its response; a GET (the resumption) is refused with 405.
			dropper := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
					return
				}
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var m struct {
					Method string `json:"method"`
					Params struct {
						Name string `json:"name"`
					} `json:"params"`
				}
				if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" && m.Params.Name == "drop" {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					if tc.eventID {
						_, _ = io.WriteString(w, "id: 1\nretry: 10\ndata: "+
							`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"dropping"}}`+"\n\n")
					}
					return
				}
				h.ServeHTTP(w, r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := Connect(ctx, tc.dial(t, dropper), &Options{ProtocolVersion: tc.version})
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			require.Equal(t, tc.version, c.ProtocolVersion())

			start := time.Now()
			_, err = c.CallTool(ctx, "drop", nil, nil)
			require.Error(t, err)
			assert.Less(t, time.Since(start), 10*time.Second, "the call ended with its stream, not its context")
			require.NoError(t, ctx.Err())
			var me *mcp.Error
			require.True(t, errors.As(err, &me), "%T: %v", err, err)
			assert.EqualValues(t, mcp.CodeInternalError, me.Code)
			assert.Contains(t, err.Error(), "ended without a response")

			res, err := c.CallTool(ctx, "a", nil, nil)
			require.NoError(t, err, "an answered call is unaffected")
			assert.Equal(t, "a", res.Text())
		})
	}
}

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

// TestRequestStreamEndsWithoutResponse: at 2026-07-28, a request whose
// response stream the server ends without the response fails at once
// with an internal error saying so, over HTTP and in process, rather than
// waiting for its context (that revision resumes no stream, so nothing
// would ever answer it). A request answered on its stream is unaffected,
// and so is the connection: the next call succeeds.
func TestRequestStreamEndsWithoutResponse(t *testing.T) {
	t.Parallel()
	for _, tr := range []struct {
		name string
		dial func(h http.Handler) Transport
	}{
		{"HTTP", func(h http.Handler) Transport {
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			return HTTP(ts.URL, &HTTPOptions{NoListen: true})
		}},
		{"InProcess", func(h http.Handler) Transport { return InProcess(h, nil) }},
	} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(notesServer(), nil)
			t.Cleanup(func() { _ = h.Close() })
			// tools/call of "drop" gets an event stream that ends at once.
			dropper := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
					return
				}
				h.ServeHTTP(w, r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := Connect(ctx, tr.dial(dropper), rev20260728Options(Options{}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			require.Equal(t, mcp.Version20260728, c.ProtocolVersion())

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

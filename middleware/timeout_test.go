package middleware_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/middleware"
)

func TestTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		method      string
		work        time.Duration // how long the handler works, unless cancelled
		wantBounded bool
		wantCause   bool // the context ended with ErrTimeout
	}{
		{name: "POST that finishes in time", method: http.MethodPost, work: time.Second, wantBounded: true},
		{name: "POST that overruns is cancelled", method: http.MethodPost, work: time.Hour, wantBounded: true, wantCause: true},
		{name: "GET stream is not bounded", method: http.MethodGet, work: time.Hour},
		{name: "DELETE is not bounded", method: http.MethodDelete, work: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				const limit = 30 * time.Second
				var (
					hasDeadline bool
					deadline    time.Time
					cause       error
					elapsed     time.Duration
				)
				start := time.Now()
				h := middleware.Timeout(limit)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					deadline, hasDeadline = r.Context().Deadline()
					select {
					case <-time.After(tt.work):
						_, _ = io.WriteString(w, "done")
					case <-r.Context().Done():
						cause = context.Cause(r.Context())
						// The handler reports the timeout itself (the MCP engine
						// writes a JSON-RPC answer); the middleware writes nothing.
					}
					elapsed = time.Since(start)
				}))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(tt.method, "/mcp", nil))

				assert.Equal(t, tt.wantBounded, hasDeadline)
				if tt.wantBounded {
					assert.Equal(t, start.Add(limit), deadline)
				}
				assert.Equal(t, http.StatusOK, rec.Code)
				if !tt.wantCause {
					assert.NoError(t, cause)
					assert.Equal(t, "done", rec.Body.String())
					assert.Equal(t, tt.work, elapsed)
					return
				}
				require.Error(t, cause)
				assert.ErrorIs(t, cause, middleware.ErrTimeout)
				assert.Contains(t, cause.Error(), "30s")
				assert.Equal(t, limit, elapsed)
				assert.Empty(t, rec.Body.String())
			})
		})
	}
}

func TestTimeoutKeepsEarlierCancellation(t *testing.T) {
	t.Parallel()
	parentErr := errors.New("client went away")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(parentErr)
	var cause error
	h := middleware.Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cause = context.Cause(r.Context())
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", nil))
	assert.ErrorIs(t, cause, parentErr)
	assert.NotErrorIs(t, cause, middleware.ErrTimeout)
}

func TestTimeoutInvalidPanics(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		assert.Panics(t, func() { middleware.Timeout(d) }, "Timeout(%v)", d)
	}
}

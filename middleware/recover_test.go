package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/middleware"
)

func TestRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
		wantBody   string // exact body when not a JSON-RPC error
		wantRPC    bool   // a JSON-RPC -32603 body
		wantLog    bool
	}{
		{
			name:       "no panic passes through",
			handler:    func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") },
			wantStatus: http.StatusOK,
			wantBody:   "ok",
		},
		{
			name:       "panic before writing becomes 500 with a JSON-RPC body",
			handler:    func(w http.ResponseWriter, r *http.Request) { panic("boom") },
			wantStatus: http.StatusInternalServerError,
			wantRPC:    true,
			wantLog:    true,
		},
		{
			name: "panic with an error value",
			handler: func(w http.ResponseWriter, r *http.Request) {
				panic(io.ErrUnexpectedEOF)
			},
			wantStatus: http.StatusInternalServerError,
			wantRPC:    true,
			wantLog:    true,
		},
		{
			name: "panic after the status was written keeps the response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusAccepted)
				panic("late boom")
			},
			wantStatus: http.StatusAccepted,
			wantBody:   "",
			wantLog:    true,
		},
		{
			name: "panic after body bytes keeps the response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "partial")
				panic("late boom")
			},
			wantStatus: http.StatusOK,
			wantBody:   "partial",
			wantLog:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logger, logs := newLogger()
			h := middleware.Recover(logger)(tt.handler)
			rec := httptest.NewRecorder()
			require.NotPanics(t, func() {
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			})
			assert.Equal(t, tt.wantStatus, rec.Code)
			if tt.wantRPC {
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				code, msg := rpcError(t, rec.Body.Bytes())
				assert.Equal(t, -32603, code)
				assert.Contains(t, msg, "Internal error")
			} else {
				assert.Equal(t, tt.wantBody, rec.Body.String())
			}
			lines := logs.lines(t)
			if !tt.wantLog {
				assert.Empty(t, lines)
				return
			}
			require.Len(t, lines, 1)
			assert.Equal(t, "ERROR", lines[0]["level"])
			assert.Equal(t, "POST", lines[0]["method"])
			assert.Equal(t, "/mcp", lines[0]["path"])
			assert.NotEmpty(t, lines[0]["panic"])
			assert.Contains(t, lines[0]["stack"], "recover_test.go")
		})
	}
}

func TestRecoverRepanicsErrAbortHandler(t *testing.T) {
	t.Parallel()
	logger, logs := newLogger()
	h := middleware.Recover(logger)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	rec := httptest.NewRecorder()
	require.PanicsWithValue(t, http.ErrAbortHandler, func() {
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	})
	assert.Empty(t, logs.lines(t), "an aborted handler is not an error to log")
	assert.Empty(t, rec.Body.String())
}

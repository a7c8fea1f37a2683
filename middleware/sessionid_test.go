package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

func TestSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		values     []string // Mcp-Session-Id header values; nil: no header
		wantStatus int
		wantID     string
		wantMsg    string
	}{
		{name: "no header passes with no ID", wantStatus: http.StatusOK},
		{name: "UUID", values: []string{"1f0e7c4a-3b7d-4d8e-9f6a-2b1c0d9e8f7a"}, wantStatus: http.StatusOK,
			wantID: "1f0e7c4a-3b7d-4d8e-9f6a-2b1c0d9e8f7a"},
		{name: "every visible ASCII character", values: []string{"!~azAZ09{}[]\"'\\/"}, wantStatus: http.StatusOK,
			wantID: "!~azAZ09{}[]\"'\\/"},
		{name: "empty value", values: []string{""}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "inner space", values: []string{"abc def"}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "tab", values: []string{"abc\tdef"}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "DEL", values: []string{"abc\x7f"}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "non-ASCII", values: []string{"séance"}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "control character", values: []string{"a\x01"}, wantStatus: http.StatusBadRequest, wantMsg: "visible ASCII"},
		{name: "sent twice", values: []string{"a", "b"}, wantStatus: http.StatusBadRequest, wantMsg: "more than once"},
		{name: "the longest ID passes", values: []string{strings.Repeat("a", session.MaxIDLen)}, wantStatus: http.StatusOK,
			wantID: strings.Repeat("a", session.MaxIDLen)},
		{name: "one character too long", values: []string{strings.Repeat("a", session.MaxIDLen+1)}, wantStatus: http.StatusBadRequest, wantMsg: "1 to 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			called := false
			gotID := "unset"
			h := middleware.SessionID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				gotID = middleware.SessionIDFromContext(r.Context())
			}))
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for _, v := range tt.values {
				req.Header.Add("Mcp-Session-Id", v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code)
			if tt.wantStatus == http.StatusOK {
				assert.True(t, called)
				assert.Equal(t, tt.wantID, gotID)
				return
			}
			assert.False(t, called, "the wrapped handler must not run on 400")
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			code, msg := rpcError(t, rec.Body.Bytes())
			assert.Equal(t, -32000, code)
			assert.Contains(t, msg, "Mcp-Session-Id")
			assert.Contains(t, msg, tt.wantMsg)
		})
	}
}

func TestSessionIDFromContextWithoutMiddleware(t *testing.T) {
	t.Parallel()
	assert.Empty(t, middleware.SessionIDFromContext(t.Context()))
}

// TestSessionIDRunsOnce: a request that already passed through SessionID
// (the user's chain, then the engine's) is not checked again.
func TestSessionIDRunsOnce(t *testing.T) {
	t.Parallel()
	calls := 0
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++; next.ServeHTTP(w, r) })
	}
	var got string
	inner := middleware.SessionID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = middleware.SessionIDFromContext(r.Context())
		// A header changed between the two must not be read again.
		assert.Equal(t, "changed", r.Header.Get("Mcp-Session-Id"))
	}))
	h := middleware.SessionID(count(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Mcp-Session-Id", "changed")
		inner.ServeHTTP(w, r)
	})))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Mcp-Session-Id", "first")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, 1, calls)
	assert.Equal(t, "first", got)
}

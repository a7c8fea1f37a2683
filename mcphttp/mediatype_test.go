package mcphttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMediaTypes: the Content-Type and Accept checks of a POST match media
// types without regard to case, parameters or spaces, accept the
// wildcards, and refuse what does not cover both JSON and event streams.
func TestMediaTypes(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, nil)
	for _, tt := range []struct {
		name, contentType, accept string
		want                      int
	}{
		{"plain", "application/json", "application/json, text/event-stream", http.StatusOK},
		{"charset and case", "Application/JSON; charset=utf-8", "APPLICATION/json;q=0.9 ,  Text/Event-Stream", http.StatusOK},
		{"any", "application/json", "*/*", http.StatusOK},
		{"type wildcards", "application/json", "application/*, text/*", http.StatusOK},
		{"only json", "application/json", "application/json", http.StatusNotAcceptable},
		{"only sse", "application/json", "text/event-stream", http.StatusNotAcceptable},
		{"wrong wildcard", "application/json", "image/*, text/event-stream", http.StatusNotAcceptable},
		{"prefix is not a match", "application/json", "application/jsonx, text/event-stream", http.StatusNotAcceptable},
		{"text content type", "text/plain", "application/json, text/event-stream", http.StatusUnsupportedMediaType},
		{"json suffix is not json", "application/json-seq", "application/json, text/event-stream", http.StatusUnsupportedMediaType},
		{"empty content type", "", "application/json, text/event-stream", http.StatusUnsupportedMediaType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, ts, req{"POST", initBody, map[string]string{"Content-Type": tt.contentType, "Accept": tt.accept}})
			assert.Equal(t, tt.want, resp.StatusCode, body)
		})
	}
}

// TestRefusedInitializeNamesNoSession: an initialize the server refuses
// (bad params) answers with no Mcp-Session-Id, since no session was
// made; an accepted one names its session.
func TestRefusedInitializeNamesNoSession(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	for _, tt := range []struct {
		name, body string
		wantID     bool
	}{
		{"accepted", initBody, true},
		{"no protocolVersion", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, false},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1]}`, false},
		{"case-variant member", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","ProtocolVersion":"x","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := h.SessionCount()
			resp, body := do(t, ts, req{"POST", tt.body, nil})
			assert.Equal(t, http.StatusOK, resp.StatusCode, body)
			sid := resp.Header.Get("Mcp-Session-Id")
			if tt.wantID {
				assert.NotEmpty(t, sid, body)
				assert.Equal(t, before+1, h.SessionCount())
			} else {
				assert.Empty(t, sid, "a refused initialize must not name a session: %s", body)
				assert.Contains(t, body, `"error"`)
				assert.Equal(t, before, h.SessionCount())
			}
		})
	}
}

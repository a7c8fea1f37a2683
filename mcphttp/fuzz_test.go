package mcphttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

type fuzzArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// FuzzServeHTTP throws arbitrary methods, headers and bodies at the
// endpoint, with and without a live session. The handler must never panic,
// must answer with a status the transport defines, and every JSON body it
// writes must be valid JSON.
func FuzzServeHTTP(f *testing.F) {
	srv := mcp.NewServer(mcp.Options{Name: "fuzz", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	h := mcphttp.New(srv, nil)
	f.Cleanup(func() { _ = h.Close() })

	// A live session to aim at.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.ServeHTTP(rec, req)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		f.Fatalf("initialize issued no session: %d %s", rec.Code, rec.Body)
	}

	seeds := []struct {
		method, ct, accept, version string
		useSession                  bool
		body                        string
	}{
		{"POST", "application/json", "application/json, text/event-stream", "", true, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
		{"POST", "application/json", "application/json, text/event-stream", "", true, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-03-26", true, `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`},
		{"POST", "application/json", "application/json, text/event-stream", "", false, init},
		{"POST", "text/plain", "*/*", "", true, `{`},
		{"POST", "application/json", "application/json", "1999-01-01", true, `{"jsonrpc":"2.0","id":5,"Method":"ping","method":"ping"}`},
		{"GET", "", "application/json", "", true, ``},
		{"DELETE", "", "", "", false, ``},
		{"PUT", "application/json", "*/*", "", true, `null`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.ct, s.accept, s.version, s.useSession, []byte(s.body))
	}
	allowed := map[int]bool{200: true, 202: true, 204: true, 400: true, 403: true, 404: true, 405: true, 406: true, 409: true, 413: true, 415: true}
	f.Fuzz(func(t *testing.T, method, ct, accept, version string, useSession bool, body []byte) {
		if method == http.MethodGet || method == http.MethodDelete {
			// GET opens a long-lived stream and DELETE ends the shared
			// session; both are exercised without the session.
			useSession = false
		}
		if !validToken(method) {
			return
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Method = method
		setHeader(req, "Content-Type", ct)
		setHeader(req, "Accept", accept)
		setHeader(req, "MCP-Protocol-Version", version)
		if useSession {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		ctx, cancel := context.WithCancel(req.Context())
		cancel() // a GET stream must end at once
		if method != http.MethodGet {
			ctx = req.Context()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		if !allowed[rec.Code] {
			t.Fatalf("%s %q: status %d is not one the transport defines; body %s", method, body, rec.Code, rec.Body)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON body: %s", rec.Body)
		}
		if rec.Code >= 400 && rec.Code != 405 && rec.Body.Len() == 0 {
			t.Fatalf("status %d without a body that says what was wrong", rec.Code)
		}
	})
}

func setHeader(r *http.Request, k, v string) {
	if v != "" && validHeaderValue(v) {
		r.Header.Set(k, v)
	}
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return false
		}
	}
	return true
}

func validHeaderValue(s string) bool {
	for _, c := range s {
		if c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

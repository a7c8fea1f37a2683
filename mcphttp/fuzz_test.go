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

type fuzzNested struct {
	Query  string `json:"query"`
	Filter struct {
		Lang  string   `json:"lang,omitempty"`
		Tags  []string `json:"tags,omitempty"`
		Inner *struct {
			Depth int `json:"depth,omitempty"`
		} `json:"inner,omitempty"`
	} `json:"filter,omitempty"`
}

// fuzzMaxMessage bounds one JSON-RPC message of an answer, its id aside
// (an id is echoed as the client sent it, whatever its size): nothing a
// client sends is quoted back at more than a short prefix.
const fuzzMaxMessage = 8 << 10

// FuzzServeHTTP throws arbitrary methods, headers and bodies at the
// endpoint, with and without a live session, aiming at params and tool
// arguments too (case variants, duplicates, deep nesting, huge names,
// invalid UTF-8). The handler must never panic, must answer with a status
// the transport defines, every JSON body it writes must be a JSON-RPC
// message (or a batch of them) and no message may be larger than
// fuzzMaxMessage beyond its id.
func FuzzServeHTTP(f *testing.F) {
	srv := mcp.NewServer(mcp.Options{Name: "fuzz", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "nested"}, func(ctx context.Context, c *mcp.Context, in fuzzNested) (string, error) {
		return "ok", nil
	})
	srv.AddRawTool(mcp.Tool{Name: "raw"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "ok"}}}, nil
	})
	srv.AddPrompt(mcp.Prompt{Name: "mood", Arguments: []mcp.PromptArgument{{Name: "mood", Required: true, Enum: []string{"happy", "sad"}}},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("hi"), nil
		}})
	srv.AddResource(mcp.Resource{URI: "mem://a", Name: "a",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "a"}}, nil
		}})
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

	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + params + `}`
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
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
		// params: case variants, duplicates, wrong types.
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"add","Name":"raw","arguments":{"a":1,"b":2}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"add","name":"raw"}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"NAME":"add","Arguments":{}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"add","arguments":[1,2],"_meta":{"ProgressToken":1}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":7}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"mem://a","URI":"mem://b"}}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"mood","arguments":{"mood":"angry","Mood":"happy"}}}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","Name":"mood"},"argument":{"name":"mood","value":"h"}}}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"Level":"debug","level":"nope"}}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"` + strings.Repeat("c", 4096) + `"}}`},
		// Nested arguments: case variants and duplicates deep down, nesting
		// at and past the limit.
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"nested","arguments":{"query":"q","filter":{"Lang":"go","inner":{"depth":1}}}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"nested","arguments":{"query":"q","filter":{"inner":{"Depth":1,"depth":2}}}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"nested","arguments":{"query":"q","filter":{"tags":["a",{"b":1,"b":2}]}}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"raw","arguments":{"a":` + deep(60) + `}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"raw","arguments":{"a":` + deep(65) + `}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"raw","arguments":{"a":` + deep(5000) + `}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-03-26", true, `[` + call(`{"name":"raw","arguments":{"a":`+deep(62)+`}}`) + `]`},
		// Huge and invalid names.
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"` + strings.Repeat("\xff", 64<<10) + `"}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":9,"method":"` + strings.Repeat("m", 64<<10) + `"}`},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"add","arguments":{"a":1,"b":2,"` + strings.Repeat("k", 64<<10) + "\uFFFD" + `":1}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, call(`{"name":"add","arguments":{"a":"` + strings.Repeat(`v\u0000`, 16<<10) + `","b":2}}`)},
		{"POST", "application/json", "application/json, text/event-stream", "2025-06-18", true, `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 64<<10) + `","method":"nope"}`},
		{"POST", "text/" + strings.Repeat("t", 64<<10), "application/json, text/event-stream", "", true, `{}`},
		{"POST", "application/json", "application/json, text/event-stream", strings.Repeat("9", 64<<10), true, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
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
		if rec.Code >= 400 && rec.Code != 405 && rec.Body.Len() == 0 {
			t.Fatalf("status %d without a body that says what was wrong", rec.Code)
		}
		checkAnswer(t, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	})
}

// checkAnswer checks the body of an answer: a JSON body is one JSON-RPC
// message or a non-empty array of them, an event stream carries one per
// data line, an error status comes with an error message, and no message
// exceeds fuzzMaxMessage beyond its id.
func checkAnswer(t *testing.T, status int, contentType string, body []byte) {
	t.Helper()
	var msgs [][]byte
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return
	case strings.HasPrefix(contentType, "application/json"):
		b := bytes.TrimSpace(body)
		if !json.Valid(b) {
			t.Fatalf("invalid JSON body: %.500s", b)
		}
		if b[0] == '[' {
			var arr []json.RawMessage
			if err := json.Unmarshal(b, &arr); err != nil || len(arr) == 0 {
				t.Fatalf("a batch answer must be a non-empty array: %.500s", b)
			}
			for _, m := range arr {
				msgs = append(msgs, m)
			}
		} else {
			msgs = append(msgs, b)
		}
	case strings.HasPrefix(contentType, "text/event-stream"):
		for _, line := range strings.Split(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
				msgs = append(msgs, []byte(data))
			}
		}
	default:
		t.Fatalf("status %d with Content-Type %q: %.500s", status, contentType, body)
	}
	for _, m := range msgs {
		var v struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    *int64  `json:"code"`
				Message *string `json:"message"`
			} `json:"error"`
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(m, &members); err != nil {
			t.Fatalf("not a JSON object (%v): %.500s", err, m)
		}
		_, hasID := members["id"]
		if err := json.Unmarshal(m, &v); err != nil || v.JSONRPC != "2.0" {
			t.Fatalf("not a JSON-RPC 2.0 message (%v): %.500s", err, m)
		}
		switch {
		case v.Method != "": // a server request or notification on a stream
		case !hasID:
			t.Fatalf("a response without an id: %.500s", m)
		case (v.Result == nil) == (v.Error == nil):
			t.Fatalf("a response needs a result or an error, not both: %.500s", m)
		case v.Error != nil && (v.Error.Code == nil || v.Error.Message == nil || *v.Error.Message == ""):
			t.Fatalf("an error needs a code and a message: %.500s", m)
		}
		if status >= 400 && v.Error == nil {
			t.Fatalf("status %d with a message that is no error: %.500s", status, m)
		}
		idLen := len(members["id"])
		if len(m)-idLen > fuzzMaxMessage {
			t.Fatalf("a message of %d bytes (id %d): a client value quoted back in full? %.500s", len(m), idLen, m)
		}
	}
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

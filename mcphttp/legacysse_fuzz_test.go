package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// FuzzLegacySSE throws arbitrary bodies, Content-Types, protocol versions
// and session IDs at the legacy messages endpoint, next to a live legacy
// stream. The endpoint must never panic, must answer with a status the
// transport defines (with a JSON-RPC error body that says what was wrong
// when it refuses), and every event the stream carries must be one valid
// JSON message.
func FuzzLegacySSE(f *testing.F) {
	srv := mcp.NewServer(mcp.Options{Name: "fuzz", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true, MaxBodyBytes: 64 << 10})
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))

	// The live stream, read in the background: every message event must be
	// valid JSON.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	resp, err := ts.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		f.Fatalf("GET /sse: %v %v", err, resp)
	}
	var (
		mu       sync.Mutex
		bad      []string
		endpoint = make(chan string, 1)
		reader   = make(chan struct{})
	)
	go func() {
		defer close(reader)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data := line[len("data: "):]
				if name == "endpoint" {
					endpoint <- data
				} else if !json.Valid([]byte(data)) {
					mu.Lock()
					bad = append(bad, data)
					mu.Unlock()
				}
			case line == "":
				name = ""
			}
		}
	}()
	f.Cleanup(func() {
		cancel()
		<-reader
		_ = h.Close()
		ts.Close()
	})
	var ep string
	select {
	case ep = <-endpoint:
	case <-time.After(5 * time.Second):
		f.Fatal("no endpoint event")
	}
	base, _ := url.Parse(ts.URL + "/sse")
	u, _ := base.Parse(ep)
	messages := u.String()
	post := func(target, ct, version, body string) (int, string, string) {
		r, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
		setHeader(r, "Content-Type", ct)
		setHeader(r, "MCP-Protocol-Version", version)
		resp, err := ts.Client().Do(r)
		if err != nil {
			f.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	if code, _, b := post(messages, "application/json", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`); code != http.StatusAccepted {
		f.Fatalf("initialize: %d %s", code, b)
	}

	seeds := []struct {
		ct, version, sessionID string
		useStream              bool
		body                   string
	}{
		{"application/json", "", "", true, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"application/json", "2024-11-05", "", true, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`},
		{"application/json; charset=utf-8", "", "", true, `{"jsonrpc":"2.0","id":"x","method":"tools/list"}`},
		{"application/json", "", "", true, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"application/json", "", "", true, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
		{"application/json", "", "", true, `{"jsonrpc":"2.0","id":2,"Method":"ping","method":"ping"}`},
		{"text/plain", "", "", true, `{`},
		{"application/json", "1999-01-01", "", true, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{"application/json", "", "nope", false, `{"jsonrpc":"2.0","id":4,"method":"ping"}`},
		{"application/json", "", "", false, `{"jsonrpc":"2.0","id":5,"method":"ping"}`},
		{"application/json", "", "", true, `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{}}`},
	}
	for _, s := range seeds {
		f.Add(s.ct, s.version, s.sessionID, s.useStream, []byte(s.body))
	}
	allowed := map[int]bool{202: true, 400: true, 404: true, 413: true, 415: true}
	f.Fuzz(func(t *testing.T, ct, version, sessionID string, useStream bool, body []byte) {
		target := messages
		if !useStream {
			target = ts.URL + "/messages?sessionId=" + url.QueryEscape(sessionID)
		}
		code, rct, b := post(target, ct, version, string(body))
		if !allowed[code] {
			t.Fatalf("%q: status %d is not one the transport defines; body %s", body, code, b)
		}
		if code != http.StatusAccepted {
			if !strings.HasPrefix(rct, "application/json") || !json.Valid([]byte(b)) || !strings.Contains(b, `"error"`) {
				t.Fatalf("status %d without a JSON-RPC error body: %q", code, b)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("the stream carried an event that is not valid JSON: %q", bad[0])
		}
	})
}

package client

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

func TestHeaderSafe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"us-west", "us-west"},
		{"two words", "two words"},
		{" lead", "=?base64?IGxlYWQ=?="},
		{"trail ", "=?base64?dHJhaWwg?="},
		{"café", "=?base64?Y2Fmw6k=?="},
		{"a\tb", "=?base64?YQli?="},
		{"a\r\nb", "=?base64?YQ0KYg==?="},
		{"", ""},
	} {
		assert.Equal(t, tt.want, headerSafe(tt.in), "%q", tt.in)
	}
}

func TestToolHeaders(t *testing.T) {
	t.Parallel()
	prop := func(typ string, header any) *jsonschema.Schema {
		return &jsonschema.Schema{Type: typ, Extra: map[string]any{"x-mcp-header": header}}
	}
	for _, tt := range []struct {
		name  string
		props map[string]*jsonschema.Schema
		ok    bool
		want  []string
	}{
		{"none", map[string]*jsonschema.Schema{"q": {Type: "string"}}, true, nil},
		{"string integer boolean", map[string]*jsonschema.Schema{"r": prop("string", "Region"), "p": prop("integer", "Priority"),
			"v": prop("boolean", "Verbose")}, true, []string{"Mcp-Param-Priority", "Mcp-Param-Region", "Mcp-Param-Verbose"}},
		{"empty name", map[string]*jsonschema.Schema{"r": prop("string", "")}, false, nil},
		{"not a string", map[string]*jsonschema.Schema{"r": prop("string", 7)}, false, nil},
		{"space", map[string]*jsonschema.Schema{"r": prop("string", "My Region")}, false, nil},
		{"colon", map[string]*jsonschema.Schema{"r": prop("string", "Region:1")}, false, nil},
		{"non-ASCII", map[string]*jsonschema.Schema{"r": prop("string", "Région")}, false, nil},
		{"number type", map[string]*jsonschema.Schema{"r": prop("number", "Score")}, false, nil},
		{"object type", map[string]*jsonschema.Schema{"r": prop("object", "Data")}, false, nil},
		{"duplicate ignoring case", map[string]*jsonschema.Schema{"a": prop("string", "MyField"), "b": prop("string", "myfield")}, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			phs, ok := toolHeaders(mcp.Tool{Name: "t", InputSchema: &jsonschema.Schema{Type: "object", Properties: tt.props}})
			assert.Equal(t, tt.ok, ok)
			var got []string
			for _, ph := range phs {
				got = append(got, ph.header)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestRev20260728FallsBackTo2025: a server that refuses revision 2026-07-28
// and names only 2025-era ones as supported gets initialize at the newest
// of them, and the client goes on at that revision.
func TestRev20260728FallsBackTo2025(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen []string
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		seen = append(seen, m.Method+"@"+r.Header.Get("MCP-Protocol-Version"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18","2025-03-26"],"requested":"2026-07-28"}}}`))
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"old","version":"1"},"capabilities":{"tools":{}}}}`))
		case "tools/list":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer ts.Close()
	c, err := Connect(context.Background(), HTTP(ts.URL, &HTTPOptions{NoListen: true}),
		&Options{ProtocolVersion: mcp.Version20260728, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, mcp.Version20250618, c.ProtocolVersion())
	tools, err := c.ListTools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"server/discover@2026-07-28", "initialize@", "notifications/initialized@2025-06-18", "tools/list@2025-06-18"}, seen)
}

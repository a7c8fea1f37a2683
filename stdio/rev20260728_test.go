package stdio_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcptest"
)

// meta2026 is the _meta revision 2026-07-28 requires on every request,
// with extra members (a progress token, a log level) before it.
func meta2026(extra string) string {
	return `"_meta":{` + extra + `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
}

// TestServeRev20260728: over stdio a 2026-07-28 client sends no
// initialize; each line names its revision in _meta and is served as over
// HTTP, without the HTTP routing headers stdio cannot carry.
func TestServeRev20260728(t *testing.T) {
	t.Parallel()
	h := newHandler(t, newTestServer(t, nil))
	p := startServe(t, context.Background(), h, nil)
	tests := []struct {
		name, line, id string
		check          func(t *testing.T, m msg, before []msg)
	}{
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta2026("") + `}}`, "1",
			func(t *testing.T, m msg, _ []msg) {
				require.Nil(t, m.Error)
				var r struct {
					SupportedVersions []string `json:"supportedVersions"`
					ResultType        string   `json:"resultType"`
				}
				require.NoError(t, json.Unmarshal(m.Result, &r))
				assert.Contains(t, r.SupportedVersions, "2026-07-28")
				assert.Equal(t, "complete", r.ResultType)
			}},
		{"tools/call without initialize", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},` + meta2026("") + `}}`, "2",
			func(t *testing.T, m msg, _ []msg) {
				assert.Equal(t, "3", wiretest.ToolResult(t, m).Text())
				assert.Contains(t, string(m.Result), `"resultType":"complete"`)
			}},
		{"logs only with _meta's logLevel", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stream","arguments":{"n":2},` + meta2026("") + `}}`, "3",
			func(t *testing.T, m msg, before []msg) {
				require.Nil(t, m.Error)
				for _, b := range before {
					assert.NotEqual(t, "notifications/message", b.Method, "no log without _meta's logLevel")
				}
			}},
		{"logs with _meta's logLevel", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stream","arguments":{"n":2},` + meta2026(`"io.modelcontextprotocol/logLevel":"info",`) + `}}`, "4",
			func(t *testing.T, m msg, before []msg) {
				require.Nil(t, m.Error)
				n := 0
				for _, b := range before {
					if b.Method == "notifications/message" {
						n++
					}
				}
				assert.Equal(t, 2, n)
			}},
		{"ping is not a method of the revision", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{` + meta2026("") + `}}`, "5",
			func(t *testing.T, m msg, _ []msg) {
				require.NotNil(t, m.Error)
				assert.EqualValues(t, -32601, m.Error.Code)
			}},
		{"a 2025 request still needs initialize", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, "6",
			func(t *testing.T, m msg, _ []msg) {
				require.NotNil(t, m.Error)
				assert.Contains(t, m.Error.Message, "Mcp-Session-Id")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.send(tt.line)
			m, before := p.response(tt.id)
			tt.check(t, m, before)
		})
	}
}

// TestServeRev20260728Cancel: notifications/cancelled cancels a 2026-07-28
// request (there is no session to hear it), which is then not answered.
func TestServeRev20260728Cancel(t *testing.T) {
	t.Parallel()
	slow := mcptest.NewProbe()
	h := newHandler(t, newTestServer(t, slow))
	p := startServe(t, context.Background(), h, nil)
	p.send(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"slow","arguments":{},` + meta2026("") + `}}`)
	select {
	case <-slow.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("slow did not start")
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"user"}}`)
	select {
	case err := <-slow.Stopped:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the tool")
	}
	p.send(`{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1},` + meta2026("") + `}}`)
	m, before := p.response(`"next"`)
	assert.Equal(t, "2", wiretest.ToolResult(t, m).Text())
	for _, b := range before {
		assert.NotEqual(t, `"s"`, string(b.ID), "the cancelled request was answered: %+v", b)
	}
}

package mcphttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/mcphttp"
)

// TestRefusedBodyNamesTheRequest: a POST refused before its whole body
// was read (413 over the size limit, 408 too slow) answers with the
// request's id when the part that arrived names it. Clients such as the
// official Go SDK end their whole connection on an error status whose
// JSON-RPC error has a null id, and fail only the one call otherwise.
func TestRefusedBodyNamesTheRequest(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{MaxBodyBytes: 1024, BodyReadTimeout: 300 * time.Millisecond})
	sid := initSession(t, ts, "")
	big := strings.Repeat("a", 4096)
	goOrder := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"add","arguments":{"s":"` + big + `"}}}`
	tsOrder := `{"method":"tools/call","params":{"name":"add","arguments":{"s":"` + big + `"}},"jsonrpc":"2.0","id":41}`
	for _, tt := range []struct {
		name    string
		body    string
		chunked bool
		expect  bool // Expect: 100-continue
		wantID  string
	}{
		{"Content-Length over the limit", goOrder, false, false, `41`},
		{"chunked past the limit", goOrder, true, false, `41`},
		{"string id", strings.Replace(goOrder, `41`, `"r-7"`, 1), false, false, `"r-7"`},
		{"id after the cut", tsOrder, false, false, `null`},
		{"waits for 100 Continue", goOrder, false, true, `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // no Content-Length
			}
			hr, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", body)
			require.NoError(t, err)
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("Accept", "application/json, text/event-stream")
			hr.Header.Set("Mcp-Session-Id", sid)
			if tt.expect {
				hr.Header.Set("Expect", "100-continue")
			}
			resp, err := ts.Client().Do(hr)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%s", b)
			var msg struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(b, &msg), "%s", b)
			assert.Equal(t, tt.wantID, string(msg.ID))
			assert.Equal(t, -32600, msg.Error.Code)
			assert.Contains(t, msg.Error.Message, "exceeds 1024 bytes")
		})
	}

	t.Run("a body that stops arriving", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		require.NoError(t, err)
		defer conn.Close()
		part := `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{`
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: 500\r\n\r\n%s",
			strings.TrimPrefix(ts.URL, "http://"), sid, part)
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		answer, err := io.ReadAll(conn)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(answer), "HTTP/1.1 408 "), "%q", answer)
		assert.Contains(t, string(answer), `"id":"slow-1"`)
		assert.Contains(t, string(answer), "BodyReadTimeout")
	})
}

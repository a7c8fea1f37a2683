package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawMCP posts JSON-RPC messages to an MCP endpoint at revision
// 2025-11-25 and keeps what each answer was, for tests that look at
// statuses and timings rather than results.
type rawMCP struct {
	t   testing.TB
	url string
	hc  *http.Client
}

// answer is what one POST got.
type answer struct {
	status     int
	retryAfter string
	body       string
	sid        string
	took       time.Duration
}

func newRawMCP(t testing.TB, url string) *rawMCP {
	hc := &http.Client{Timeout: 10 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	return &rawMCP{t: t, url: url, hc: hc}
}

// rawInit is an initialize request.
const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1.0.0"}}}`

// rawCall is a call of examples/everything's add tool, whose answer is
// the text id+1.
func rawCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":1}}}`, id, id)
}

// post sends body on session sid ("" for none). A transport error fails
// the test: every request must be answered.
func (m *rawMCP) post(sid, body string) answer {
	req, err := http.NewRequest(http.MethodPost, m.url, strings.NewReader(body))
	require.NoError(m.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	start := time.Now()
	resp, err := m.hc.Do(req)
	require.NoError(m.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(m.t, err)
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b), resp.Header.Get("Mcp-Session-Id"), time.Since(start)}
}

// open makes an initialized session and returns its id.
func (m *rawMCP) open() string {
	a := m.post("", rawInit)
	require.Equal(m.t, http.StatusOK, a.status, a.body)
	sid := a.sid
	require.NotEmpty(m.t, sid)
	a = m.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(m.t, http.StatusAccepted, a.status, a.body)
	return sid
}

// callOK calls add on session sid and checks the answer.
func (m *rawMCP) callOK(sid string, id int) {
	a := m.post(sid, rawCall(id))
	require.Equal(m.t, http.StatusOK, a.status, a.body)
	require.Contains(m.t, a.body, fmt.Sprintf(`"text":"%d"`, id+1))
}

// assertUnavailable checks that a is what a client needs to retry a
// request the server could not serve because its store could not answer:
// 503, Retry-After, and a JSON-RPC -32603 error.
func assertUnavailable(t testing.TB, a answer, what string) {
	t.Helper()
	assert.Equal(t, http.StatusServiceUnavailable, a.status, "%s: %s", what, a.body)
	assert.NotEmpty(t, a.retryAfter, "%s: 503 without Retry-After", what)
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if assert.NoError(t, json.Unmarshal([]byte(a.body), &msg), "%s: %s", what, a.body) && assert.NotNil(t, msg.Error, a.body) {
		assert.Equal(t, -32603, msg.Error.Code, "%s: %s", what, a.body)
	}
}

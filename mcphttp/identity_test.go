package mcphttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionIdentityIsFixed: a session is bound to the identity that
// initialized it, anonymous included (issue 7: a session made without
// credentials answered 200 to a caller with a bearer token of another
// identity, and the tool saw that identity). Every method that names a
// session (POST, GET, DELETE) refuses a caller whose identity differs.
func TestSessionIdentityIsFixed(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	bearer := func(user string) string {
		if user == "" {
			return ""
		}
		return "Bearer " + user
	}
	tests := []struct {
		name       string
		owner      string // who initialized the session ("" anonymous)
		caller     string // who uses it
		method     string
		wantStatus int
	}{
		{"anonymous session, caller with credentials", "", "mallory", "POST", http.StatusForbidden},
		{"anonymous session, GET with credentials", "", "mallory", "GET", http.StatusForbidden},
		{"anonymous session, DELETE with credentials", "", "mallory", "DELETE", http.StatusForbidden},
		{"alice's session, bob", "alice", "bob", "POST", http.StatusForbidden},
		{"alice's session, anonymous caller", "alice", "", "POST", http.StatusForbidden},
		{"alice's session, DELETE by anonymous", "alice", "", "DELETE", http.StatusForbidden},
		{"anonymous session, anonymous caller", "", "", "POST", http.StatusOK},
		{"alice's session, alice", "alice", "alice", "POST", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sid := initSession(t, ts, tt.owner)
			body := ""
			if tt.method == "POST" {
				body = call
			}
			resp, got := do(t, ts, req{tt.method, body, map[string]string{"Mcp-Session-Id": sid, "Authorization": bearer(tt.caller)}})
			require.Equal(t, tt.wantStatus, resp.StatusCode, got)
			if tt.wantStatus == http.StatusForbidden {
				assert.Contains(t, got, "belongs to another caller")
				assert.Contains(t, got, "initialize")
				// The refused caller changed nothing: the owner still has it.
				live := false
				for _, s := range h.Sessions() {
					live = live || s.ID == sid
				}
				assert.True(t, live, "the session survives a refused request")
			}
		})
	}
}

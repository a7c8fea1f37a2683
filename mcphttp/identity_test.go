package mcphttp_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestSessionIdentityIsFixed: a session is bound to the identity that
// initialized it, anonymous included: a session made without credentials
// does not serve a caller with a bearer token, whose identity its tool
// would otherwise see. Every method that names a
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

// stampedUser is auth data a user might write: the user and the time of
// the request. Without mcp.Subject no two requests' values are equal.
type stampedUser struct {
	Name string
	At   time.Time
}

// stampedSubject is the same with mcp.Subject.
type stampedSubject stampedUser

func (u stampedSubject) Subject() string { return u.Name }

// TestSessionIdentityTrapIsNamed: auth data holding a per-request value
// and no mcp.Subject lets initialize succeed and then refuses the same
// caller's next request; the refusal names mcp.Subject and the server
// logs the cause once. With mcp.Subject the same data binds by its user.
func TestSessionIdentityTrapIsNamed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		auth    func(user string) any
		wantOK  bool
		wantLog bool
	}{
		{"per-request value, no Subject", func(u string) any { return stampedUser{u, time.Now()} }, false, true},
		{"per-request value, Subject", func(u string) any { return stampedSubject{u, time.Now()} }, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &wiretest.SyncBuffer{}
			logger := slog.New(slog.NewTextHandler(logs, nil))
			srv := mcp.NewServer(mcp.Options{Name: "trap", Version: "1.0.0", Logger: logger,
				Authenticate: func(r *http.Request) (any, error) {
					return tt.auth(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")), nil
				}})
			h := mcphttp.New(srv, nil)
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })

			sid := initSession(t, ts, "alice")
			for range 2 {
				resp, body := do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
					map[string]string{"Mcp-Session-Id": sid, "Authorization": "Bearer alice"}})
				if tt.wantOK {
					require.Equal(t, http.StatusOK, resp.StatusCode, body)
					continue
				}
				require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
				assert.Contains(t, body, "Subject() string method (mcp.Subject)")
				assert.Contains(t, body, "per-request values")
			}
			// Another user is refused without the hint when the types
			// implement Subject (a real other caller).
			if tt.wantOK {
				resp, body := do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
					map[string]string{"Mcp-Session-Id": sid, "Authorization": "Bearer bob"}})
				require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
				assert.NotContains(t, body, "mcp.Subject")
			}
			got := logs.String()
			if tt.wantLog {
				assert.Equal(t, 1, strings.Count(got, "differs from the data that initialized it"), "logged once: %s", got)
				assert.Contains(t, got, "a Subject() string method (mcp.Subject)")
				assert.Contains(t, got, "mcphttp_test.stampedUser")
			} else {
				assert.NotContains(t, got, "mcp.Subject")
			}
		})
	}
}

package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// appUser is the user an app's own bearer check finds; it implements
// mcp.Subject, as docs/transports.md shows.
type appUser struct{ ID string }

func (u *appUser) Subject() string { return u.ID }

type appUserKey struct{}

// appTokens are the app's bearer tokens and their users.
var appTokens = map[string]string{"token-a": "alice", "token-b": "bob"}

// appVerify is the app's own check of a bearer token.
func appVerify(header string) (*appUser, error) {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if id, known := appTokens[tok]; ok && known {
		return &appUser{ID: id}, nil
	}
	return nil, errors.New("bad token")
}

// appBearer is the app's own middleware: it checks the token and puts the
// user in the request context under the app's own key, as the user of
// issue 31 (hole 14) did.
func appBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := appVerify(r.Header.Get("Authorization"))
		if err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), appUserKey{}, u)))
	})
}

// mountedApp serves an MCP server behind the app's own middleware, with
// or without Options.Authenticate.
func mountedApp(t *testing.T, authenticate bool, logs *wiretest.SyncBuffer, chain ...alice.Constructor) *httptest.Server {
	t.Helper()
	o := mcp.Options{Name: "app", Version: "1.0.0", Logger: jsonLogger(logs)}
	if authenticate {
		// The pattern of docs/transports.md ("Mounting into an existing
		// app"): Authenticate returns the user the app's middleware found,
		// and sessions are bound to it.
		o.Authenticate = func(r *http.Request) (any, error) {
			u, ok := r.Context().Value(appUserKey{}).(*appUser)
			if !ok {
				return nil, mcp.ErrUnauthorized
			}
			return u, nil
		}
	}
	srv := mcp.NewServer(o)
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		u, _ := ctx.Value(appUserKey{}).(*appUser)
		return u.ID, nil
	})
	h := mcphttp.New(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/", alice.New(chain...).Then(h)) // the handler never reads the path
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

// TestBearerWithoutAuthenticateIsWarned (issue 31, hole 14): requests
// that carry an Authorization header reach a server that has neither
// Options.Authenticate nor Options.Auth and whose callers are therefore
// anonymous; the handler logs one warning naming mcp.Options.Authenticate,
// however many such requests come. A server with Authenticate, or a chain
// that gives the engine the caller's identity (middleware.CheckCredentials),
// is not warned about, nor are requests without the header.
func TestBearerWithoutAuthenticateIsWarned(t *testing.T) {
	t.Parallel()
	checked := middleware.CheckCredentials(func(r *http.Request) (any, error) {
		u, err := appVerify(r.Header.Get("Authorization"))
		if err != nil {
			return nil, mcp.ErrUnauthorized
		}
		return u, nil
	}, nil)
	for _, tt := range []struct {
		name         string
		authenticate bool
		chain        []alice.Constructor
		token        string
		modern       bool // requests of 2026-07-28, which has no initialize
		warnings     int
	}{
		{"own middleware, no Authenticate", false, []alice.Constructor{appBearer}, "token-a", false, 1},
		{"own middleware, no Authenticate, 2026-07-28", false, []alice.Constructor{appBearer}, "token-a", true, 1},
		{"own middleware and Authenticate", true, []alice.Constructor{appBearer}, "token-a", false, 0},
		{"own middleware and Authenticate, 2026-07-28", true, []alice.Constructor{appBearer}, "token-a", true, 0},
		{"CheckCredentials in the chain", false, []alice.Constructor{checked}, "token-a", false, 0},
		{"no Authorization header", false, nil, "", false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &wiretest.SyncBuffer{}
			ts := mountedApp(t, tt.authenticate, logs, tt.chain...)
			var hd map[string]string
			if tt.token != "" {
				hd = map[string]string{"Authorization": "Bearer " + tt.token}
			}
			for range 3 {
				if tt.modern {
					_, m := modernPost(t, ts, taskBody(1, "tools/list", "", ""), "Authorization", "Bearer "+tt.token)
					require.Nil(t, m[0].Error)
					continue
				}
				resp, body := do(t, ts, req{method: http.MethodPost, body: initBody, headers: hd})
				require.Equal(t, http.StatusOK, resp.StatusCode, body)
			}
			got := logs.String()
			assert.Equal(t, tt.warnings, strings.Count(got, "carries an Authorization header"), "%s", got)
			if tt.warnings > 0 {
				assert.Contains(t, got, "mcp.Options.Authenticate")
				assert.Contains(t, got, "anonymous")
				assert.Contains(t, got, "session ID")
			}
		})
	}
}

// TestMountPatternBindsSessions (issue 31, hole 14): with the pattern of
// docs/transports.md (the app's own middleware, and Options.Authenticate
// returning the user it put in the context), a second user who sends
// their own valid token and the first user's Mcp-Session-Id is refused
// with 403; without Authenticate the handler cannot tell them apart and
// serves the second user in the first user's session, which is why it
// warns (TestBearerWithoutAuthenticateIsWarned).
func TestMountPatternBindsSessions(t *testing.T) {
	t.Parallel()
	bare := mountedApp(t, false, &wiretest.SyncBuffer{}, appBearer)
	sid := initSession(t, bare, "token-a")
	resp, body := do(t, bare, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`,
		headers: map[string]string{"Authorization": "Bearer token-b", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}})
	require.Equal(t, http.StatusOK, resp.StatusCode, "without Authenticate both users are anonymous: %s", body)

	ts := mountedApp(t, true, &wiretest.SyncBuffer{}, appBearer)
	aliceSID := initSession(t, ts, "token-a")
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	as := func(token string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + token, "Mcp-Session-Id": aliceSID, "MCP-Protocol-Version": "2025-06-18"}
	}
	resp, body = do(t, ts, req{method: http.MethodPost, body: call, headers: as("token-b")})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	assert.Contains(t, body, "belongs to another caller")

	resp, body = do(t, ts, req{method: http.MethodPost, body: call, headers: as("token-a")})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"text":"alice"`)
}

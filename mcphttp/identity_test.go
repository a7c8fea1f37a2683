package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// Auth data of the kinds the identity rule tells apart (internal/identity).
// The three opaque kinds encode to the same JSON for every user, so only
// deep equality tells two users apart.
type (
	// hiddenUser keeps its user in an unexported field.
	hiddenUser struct{ name string }
	// dashUser keeps its user in a field JSON skips.
	dashUser struct {
		Name string `json:"-"`
	}
	// blankUser implements mcp.Subject but returns an empty subject.
	blankUser struct{ name string }
)

func (blankUser) Subject() string { return "" }

// authKinds makes auth data of each kind for a user name.
var authKinds = []struct {
	name string
	mk   func(string) any
}{
	{"unexported field", func(u string) any { return hiddenUser{u} }},
	{"json dash field", func(u string) any { return dashUser{u} }},
	{"empty subject", func(u string) any { return blankUser{u} }},
}

// opaqueName is the user inside auth data of any kind of the tests below.
func opaqueName(auth any) string {
	switch a := auth.(type) {
	case hiddenUser:
		return a.name
	case dashUser:
		return a.Name
	case blankUser:
		return a.name
	case testUser:
		return string(a)
	}
	return "anonymous"
}

// newIdentityServer is a server whose callers are authenticated by the
// X-User header as mk(user) (no header: anonymous). Its tools return a
// secret of their caller: "secret" may run as a task, "secret_task" must.
func newIdentityServer(mk func(string) any, log *wiretest.SyncBuffer) *mcp.Server {
	o := mcp.Options{Name: "identity", Version: "1.0.0", Logger: discardLogger(),
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return mk(u), nil
			}
			return nil, nil
		}}
	if log != nil {
		o.Logger = jsonLogger(log)
	}
	srv := mcp.NewServer(o)
	secret := func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "secret of " + opaqueName(c.Session), nil
	}
	mcp.AddTool(srv, mcp.Tool{Name: "secret", Task: &mcp.TaskOptions{}}, secret)
	mcp.AddTool(srv, mcp.Tool{Name: "secret_task", Task: &mcp.TaskOptions{Required: true}}, secret)
	ask := func(key string) map[string]mcp.InputRequest {
		return map[string]mcp.InputRequest{key: {Method: "elicitation/create", Params: map[string]any{"message": key + "?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}}}}}
	}
	mcp.AddTool(srv, mcp.Tool{Name: "two_steps"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		a, err := c.Ask(ctx, ask("first"))
		if err != nil {
			return "", err
		}
		b, err := c.Ask(ctx, ask("second"))
		if err != nil {
			return "", err
		}
		return string(a["first"]) + " " + string(b["second"]), nil
	})
	return srv
}

// identityStores are the shared stores the identity tests run on: the
// in-memory default (two handlers may share one) and Redis.
func identityStores(t *testing.T) []struct {
	name string
	mk   func() session.Store
} {
	t.Helper()
	return []struct {
		name string
		mk   func() session.Store
	}{
		{"memory", func() session.Store { return session.NewMemoryStore() }},
		{"redis", func() session.Store {
			rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = rc.Close() })
			return redisstore.New(rc, nil)
		}},
	}
}

// TestOpaqueCallersShareNoTasks: two users whose auth
// data has no subject and encodes to the same JSON cannot list, read or
// take the result of each other's tasks, at 2025-11-25 (tasks scoped to
// the session) and with the tasks extension of 2026-07-28 (no session:
// no task for such a caller), on the memory store and on Redis.
func TestOpaqueCallersShareNoTasks(t *testing.T) {
	t.Parallel()
	for _, st := range identityStores(t) {
		for _, kind := range authKinds {
			t.Run(st.name+"/"+kind.name+"/2025-11-25", func(t *testing.T) {
				t.Parallel()
				c, _ := newHTTP(t, newIdentityServer(kind.mk, nil), &mcphttp.Options{Sessions: st.mk()})
				alice := c.as("alice")
				tk := alice.startTask25("secret", `{}`, `{}`)
				alice.waitTask25(tk.TaskID, "completed")

				bob := c.as("bob")
				list := resultOf[struct {
					Tasks []task25 `json:"tasks"`
				}](t, bob.rpc(1, "tasks/list", `{}`))
				assert.Empty(t, list.Tasks, "bob lists none of alice's tasks")
				for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
					m := bob.rpc(2, method, `{"taskId":"`+tk.TaskID+`"}`)
					require.NotNil(t, m.Error, "%s by bob: %s", method, m.Result)
					assert.Contains(t, m.Error.Message, "unknown task")
				}
				// Alice still has her task, in her session.
				r := resultOf[mcp.ContentResult](t, alice.rpc(3, "tasks/result", `{"taskId":"`+tk.TaskID+`"}`))
				assert.Equal(t, "secret of alice", r.Content[0].(mcp.TextContent).Text)
				mine := resultOf[struct {
					Tasks []task25 `json:"tasks"`
				}](t, alice.rpc(4, "tasks/list", `{}`))
				assert.Len(t, mine.Tasks, 1)
			})
			t.Run(st.name+"/"+kind.name+"/2026-07-28", func(t *testing.T) {
				t.Parallel()
				c, _ := newHTTP(t, newIdentityServer(kind.mk, nil), &mcphttp.Options{Sessions: st.mk()})
				_, made := tasksPost(t, c.url, taskBody(1, "tools/call", `"name":"secret_task","arguments":{}`, tasksExt), "secret_task", "X-User", "alice")
				var created struct {
					TaskID string `json:"taskId"`
				}
				if made.Error == nil {
					require.NoError(t, json.Unmarshal(made.Result, &created))
				}
				if created.TaskID != "" {
					_, m := tasksPost(t, c.url, taskBody(2, "tasks/get", `"taskId":"`+created.TaskID+`"`, tasksExt), created.TaskID, "X-User", "bob")
					require.NotNil(t, m.Error, "bob read alice's task: %s", m.Result)
				}
				require.NotNil(t, made.Error, "no task is made for a caller without a subject at 2026-07-28: %s", made.Result)
				assert.Contains(t, made.Error.Message, "mcp.Subject")

				// A tool that may run as a task runs as an ordinary call.
				_, m := tasksPost(t, c.url, taskBody(3, "tools/call", `"name":"secret","arguments":{}`, tasksExt), "secret", "X-User", "alice")
				require.Nil(t, m.Error)
				assert.Equal(t, "secret of alice", wiretest.ToolResult(t, m).Content[0].(mcp.TextContent).Text)
			})
		}
	}
}

// TestOpaqueSessionsStayOnTheirReplica: on two
// replicas sharing a session store, a session bound to auth data without
// a subject is never adopted by the other replica, whoever asks (another
// user whose auth data encodes to the same JSON, or its own user); a
// session bound to a subject is adopted for that subject only, and an
// anonymous session for anonymous callers.
func TestOpaqueSessionsStayOnTheirReplica(t *testing.T) {
	t.Parallel()
	subject := func(u string) any { return testUser(u) }
	type tc struct {
		name          string
		mk            func(string) any
		owner, caller string // "" anonymous
		want          int
	}
	tests := []tc{
		{"subject, same user", subject, "alice", "alice", http.StatusOK},
		{"subject, other user", subject, "alice", "bob", http.StatusForbidden},
		{"anonymous, anonymous", subject, "", "", http.StatusOK},
		{"anonymous, subject", subject, "", "alice", http.StatusForbidden},
		{"subject, anonymous", subject, "alice", "", http.StatusForbidden},
	}
	for _, k := range authKinds {
		tests = append(tests,
			tc{k.name + ", other user", k.mk, "alice", "bob", http.StatusForbidden},
			tc{k.name + ", same user", k.mk, "alice", "alice", http.StatusForbidden},
			tc{k.name + ", anonymous session", k.mk, "", "alice", http.StatusForbidden},
		)
	}
	for _, st := range identityStores(t) {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				store := st.mk()
				a, _ := newHTTP(t, newIdentityServer(tt.mk, nil), &mcphttp.Options{Sessions: store})
				b, hb := newHTTP(t, newIdentityServer(tt.mk, nil), &mcphttp.Options{Sessions: store})
				var owner, caller []string
				if tt.owner != "" {
					owner = []string{"X-User", tt.owner}
				}
				if tt.caller != "" {
					caller = []string{"X-User", tt.caller}
				}
				resp, body := a.do(http.MethodPost, initBody, owner...)
				require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
				b.sid, b.version = resp.Header.Get("Mcp-Session-Id"), "2025-06-18"
				status, msgs := b.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{}}}`, caller...)
				require.Equal(t, tt.want, status, "%+v", msgs)
				if tt.want == http.StatusForbidden {
					assert.Equal(t, 0, hb.SessionCount(), "replica B adopted nothing")
					require.Len(t, msgs, 1)
					assert.Contains(t, msgs[0].Error.Message, "belongs to another caller")
					return
				}
				want := "anonymous"
				if tt.caller != "" {
					want = opaqueName(tt.mk(tt.caller))
				}
				assert.Equal(t, "secret of "+want, wiretest.ToolResult(t, msgs[len(msgs)-1]).Content[0].(mcp.TextContent).Text)
			})
		}
	}
}

// TestOpaqueSessionOnOneReplica: on the replica that made it, a session
// bound to auth data without a subject serves its own user (a deeply
// equal value) and no other, an empty subject included: two users whose
// Subject returns "" do not share a session.
func TestOpaqueSessionOnOneReplica(t *testing.T) {
	t.Parallel()
	for _, k := range authKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newIdentityServer(k.mk, nil), nil)
			resp, body := c.do(http.MethodPost, initBody, "X-User", "alice")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-06-18"
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{}}}`
			status, msgs := c.post(call, "X-User", "bob")
			require.Equal(t, http.StatusForbidden, status, "%+v", msgs)
			status, msgs = c.post(call, "X-User", "alice")
			require.Equal(t, http.StatusOK, status)
			assert.Equal(t, "secret of alice", wiretest.ToolResult(t, msgs[len(msgs)-1]).Content[0].(mcp.TextContent).Text)
		})
	}
}

// TestOpaqueCallerAsksNothingAt20260728: a 2026-07-28 request carries the
// answers of its earlier rounds in requestState, bound to the caller;
// auth data without a subject cannot be bound (every user's JSON is the
// same), so such a caller's handler cannot ask (the error names
// mcp.Subject), and no requestState of one such user serves another.
func TestOpaqueCallerAsksNothingAt20260728(t *testing.T) {
	t.Parallel()
	for _, k := range authKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(newIdentityServer(k.mk, nil), nil)
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			steps := tool("two_steps", `{}`)
			alice, bob := steps, steps
			alice.header = []string{"X-User", "alice"}
			bob.header = []string{"X-User", "bob"}

			first := alice.send(t, ts, "")
			var r struct {
				RequestState string `json:"requestState"`
			}
			if first.Error == nil {
				require.NoError(t, json.Unmarshal(first.Result, &r))
			}
			if r.RequestState != "" {
				second := alice.send(t, ts, `"inputResponses":{"first":{"action":"accept","content":{"v":"alice's answer"}}},`+stateParam(r.RequestState))
				require.Nil(t, second.Error)
				require.NoError(t, json.Unmarshal(second.Result, &r))
				res := bob.send(t, ts, `"inputResponses":{"second":{"action":"accept","content":{"v":"bob"}}},`+stateParam(r.RequestState))
				require.NotNil(t, res.Error, "bob's round took alice's answers: %s", res.Result)
			}
			require.Empty(t, r.RequestState, "no requestState is issued to a caller without a subject")
			require.Nil(t, first.Error)
			out := wiretest.ToolResult(t, first)
			assert.True(t, out.IsError)
			assert.Contains(t, out.Content[0].(mcp.TextContent).Text, "mcp.Subject")
		})
	}
	t.Run("subject", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(newIdentityServer(func(u string) any { return testUser(u) }, nil), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		alice := tool("two_steps", `{}`)
		alice.header = []string{"X-User", "alice"}
		st := decodeIRR(t, alice.send(t, ts, "")).RequestState
		next := decodeIRR(t, alice.send(t, ts, `"inputResponses":{"first":{"action":"accept","content":{"v":"a"}}},`+stateParam(st)))
		res := alice.send(t, ts, `"inputResponses":{"second":{"action":"accept","content":{"v":"b"}}},`+stateParam(next.RequestState))
		require.Nil(t, res.Error)
		assert.Contains(t, wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text, `"v":"b"`)
	})
}

// TestOpaqueAuthIsLoggedOnce: the first request with auth data without a
// subject makes each handler log, once, the type, what it means and the
// fix.
func TestOpaqueAuthIsLoggedOnce(t *testing.T) {
	t.Parallel()
	logs := &wiretest.SyncBuffer{}
	srv := newIdentityServer(func(u string) any { return hiddenUser{u} }, logs)
	for range 2 { // two handlers of one server: each logs once
		c, _ := newHTTP(t, srv, nil)
		for _, u := range []string{"alice", "bob", "alice"} {
			resp, body := c.do(http.MethodPost, initBody, "X-User", u)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		}
		_, m := tasksPost(t, c.url, taskBody(1, "tools/list", "", ""), "", "X-User", "carol")
		require.Nil(t, m.Error)
	}
	got := logs.String()
	assert.Equal(t, 2, strings.Count(got, "has no subject"), "once per handler: %s", got)
	for _, want := range []string{"mcphttp_test.hiddenUser", "never adopted", "a Subject() string method (mcp.Subject)"} {
		assert.Contains(t, got, want)
	}

	// Subjects and anonymous callers are not logged.
	quiet := &wiretest.SyncBuffer{}
	c, _ := newHTTP(t, newIdentityServer(func(u string) any { return testUser(u) }, quiet), nil)
	for _, u := range []string{"alice", ""} {
		var hd []string
		if u != "" {
			hd = []string{"X-User", u}
		}
		resp, _ := c.do(http.MethodPost, initBody, hd...)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	assert.NotContains(t, quiet.String(), "has no subject")
}

// TestSessionTrapHintFitsTheType: when a caller is refused because its
// auth data changed between requests, the server's warning advises
// adding a Subject method to a type of one's own, and returning such a
// type instead of one that cannot have methods (a string, a map); the
// 403 says to return a type with a Subject method and names no type of
// the server's.
func TestSessionTrapHintFitsTheType(t *testing.T) {
	t.Parallel()
	var n atomic.Int64 // makes every request's auth data differ
	for _, tt := range []struct {
		name string
		auth func(user string) any
		want string
		not  string
	}{
		{"string", func(u string) any { return fmt.Sprintf("%s@%d", u, n.Add(1)) }, "return a type of your own with a Subject() string method", "give string"},
		{"map", func(u string) any { return map[string]any{"user": u, "n": n.Add(1)} }, "return a type of your own with a Subject() string method", "give map"},
		{"struct of its own", func(u string) any { return hiddenUser{fmt.Sprint(u, n.Add(1))} }, "give mcphttp_test.hiddenUser a Subject() string method", "return a type of your own"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &wiretest.SyncBuffer{}
			c, _ := newHTTP(t, newIdentityServer(tt.auth, logs), nil)
			resp, body := c.do(http.MethodPost, initBody, "X-User", "alice")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-06-18"
			status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "X-User", "alice")
			require.Equal(t, http.StatusForbidden, status)
			require.Len(t, msgs, 1)
			// The client is told what binds a session, not the server's types.
			assert.Contains(t, msgs[0].Error.Message, "return a type with a Subject() string method (mcp.Subject)")
			assert.NotContains(t, msgs[0].Error.Message, "implement mcp.Subject on it", "a string or a map cannot have methods")
			assert.NotContains(t, msgs[0].Error.Message, "mcphttp_test")
			got := logs.String()
			assert.Contains(t, got, tt.want)
			assert.NotContains(t, got, tt.not)
		})
	}
}

// TestStatelessTasksByIdentity: a stateless handler has no sessions, so a
// 2025-11-25 task belongs to its caller's subject; an anonymous caller's
// is guarded by its unguessable ID alone (tasks/list lists nothing); and
// a caller whose auth data has no subject gets no task at all (-32000
// naming mcp.Subject), since no later request could be told to be its.
func TestStatelessTasksByIdentity(t *testing.T) {
	t.Parallel()
	kinds := append([]struct {
		name string
		mk   func(string) any
	}{{"subject", func(u string) any { return testUser(u) }}}, authKinds...)
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newIdentityServer(kind.mk, nil), &mcphttp.Options{Stateless: true})
			c.version = string(mcp.Version20251125)
			rpc := func(user, method, params string) msg {
				var hd []string
				if user != "" {
					hd = []string{"X-User", user}
				}
				status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`, hd...)
				require.Equal(t, http.StatusOK, status, "%+v", msgs)
				require.NotEmpty(t, msgs)
				return msgs[len(msgs)-1]
			}
			made := rpc("alice", "tools/call", `{"name":"secret","arguments":{},"task":{}}`)
			var r struct {
				Task task25 `json:"task"`
			}
			if made.Error == nil {
				require.NoError(t, json.Unmarshal(made.Result, &r))
			}
			if kind.name != "subject" {
				if r.Task.TaskID != "" {
					list := resultOf[struct {
						Tasks []task25 `json:"tasks"`
					}](t, rpc("bob", "tasks/list", `{}`))
					assert.Empty(t, list.Tasks, "bob lists alice's task")
				}
				require.NotNil(t, made.Error, "a task for a caller without session or subject: %s", made.Result)
				assert.Contains(t, made.Error.Message, "mcp.Subject")
				m := rpc("bob", "tasks/list", `{}`)
				require.NotNil(t, m.Error)
				assert.Contains(t, m.Error.Message, "mcp.Subject")
				return
			}
			require.NotEmpty(t, r.Task.TaskID, "%s", made.Result)
			list := resultOf[struct {
				Tasks []task25 `json:"tasks"`
			}](t, rpc("bob", "tasks/list", `{}`))
			assert.Empty(t, list.Tasks)
			for _, who := range []string{"bob", ""} {
				m := rpc(who, "tasks/get", `{"taskId":"`+r.Task.TaskID+`"}`)
				require.NotNil(t, m.Error, "%q read alice's task", who)
			}
			mine := resultOf[struct {
				Tasks []task25 `json:"tasks"`
			}](t, rpc("alice", "tasks/list", `{}`))
			assert.Len(t, mine.Tasks, 1)

			// Anonymous: the ID alone guards the task; nothing is listed.
			anon := rpc("", "tools/call", `{"name":"secret","arguments":{},"task":{}}`)
			require.Nil(t, anon.Error)
			require.NoError(t, json.Unmarshal(anon.Result, &r))
			list = resultOf[struct {
				Tasks []task25 `json:"tasks"`
			}](t, rpc("", "tasks/list", `{}`))
			assert.Empty(t, list.Tasks)
			require.Nil(t, rpc("", "tasks/get", `{"taskId":"`+r.Task.TaskID+`"}`).Error)
			require.NotNil(t, rpc("alice", "tasks/get", `{"taskId":"`+r.Task.TaskID+`"}`).Error, "a subject does not read an anonymous task")
		})
	}
}

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
// user in the request context under the app's own key, as an app
// mounting the handler beside its own auth does.
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

// TestBearerWithoutAuthenticateIsWarned: requests
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
		rev20260728  bool // requests of 2026-07-28, which has no initialize
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
				if tt.rev20260728 {
					_, m := rev20260728Post(t, ts, taskBody(1, "tools/list", "", ""), "Authorization", "Bearer "+tt.token)
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

// TestMountPatternBindsSessions: with the pattern of
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

package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/state"
)

type internalUser string

func (u internalUser) Subject() string { return string(u) }

// TestStateRecordIsNoSession: a client that sends the store ID of a
// caller's state record (computable from a subject it knows) as its
// Mcp-Session-Id, for a request, a GET stream or a DELETE, is answered
// 404 like any unknown session, and the record is untouched: neither
// adopted as a session, nor deleted, nor its TTL cut to a session's.
func TestStateRecordIsNoSession(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0",
		Authenticate: func(r *http.Request) (any, error) { return internalUser(r.Header.Get("X-User")), nil }})
	mcp.AddTool(srv, mcp.Tool{Name: "keep"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "ok", state.Set(ctx, state.Caller(c), "k", "v")
	})
	store := &touchSpy{Store: session.NewMemoryStore()}
	h := New(srv, &Options{Sessions: store, SessionIdleTimeout: time.Minute, CallerStateTTL: time.Hour})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keep","arguments":{}}}`
	require.NoError(t, h.setState(context.Background(), engine.StateScope{Owner: "sub:victim"}, "k", json.RawMessage(`"v"`)))
	id := stateRecordID(stateOfCaller, "sub:victim", "")
	rec, err := store.Get(context.Background(), id)
	require.NoError(t, err, "the caller's state is stored under the ID the attack computes")
	require.JSONEq(t, `"v"`, string(rec.State["k"]))

	for _, tc := range []struct{ name, method, body, user string }{
		{"request as the victim", http.MethodPost, body, "victim"},
		{"request as another", http.MethodPost, body, "mallory"},
		{"stream", http.MethodGet, "", "victim"},
		{"delete", http.MethodDelete, "", "mallory"},
		{"delete as the victim", http.MethodDelete, "", "victim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := send(t, ts, tc.method, tc.body, tc.user, id)
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s", b)
			assert.False(t, strings.Contains(string(b), `"v"`), "%s", b)
		})
	}
	rec, err = store.Get(context.Background(), id)
	require.NoError(t, err, "the record is still there")
	assert.JSONEq(t, `"v"`, string(rec.State["k"]))
	assert.Zero(t, store.stateTouches.Load(), "no lookup touched it (which would cut its TTL to a session's)")
}

// send sends a Streamable HTTP request of user (the X-User header) with
// the session ID sid ("" none) and returns the response and its body.
func send(t *testing.T, ts *httptest.Server, method, body, user, sid string) (*http.Response, []byte) {
	t.Helper()
	r, err := http.NewRequestWithContext(context.Background(), method, ts.URL, strings.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("X-User", user)
	r.Header.Set("MCP-Protocol-Version", string(mcp.Version20251125))
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := ts.Client().Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// touchSpy counts the Touch calls of state records.
type touchSpy struct {
	session.Store
	stateTouches atomic.Int32
}

func (s *touchSpy) Touch(ctx context.Context, id string, ttl time.Duration) (*session.Record, error) {
	if isStateID(id) {
		s.stateTouches.Add(1)
	}
	return s.Store.Touch(ctx, id, ttl)
}

// FuzzParseHandle: parseHandle takes any string a client sends without
// panicking; what it accepts has a handle's length and prefix and an
// expiry it read back, and a handle mintHandle made is accepted with the
// expiry it carries.
func FuzzParseHandle(f *testing.F) {
	exp := time.Unix(1_900_000_000, 0)
	f.Add(mintHandle(exp))
	f.Add("st_")
	f.Add("st_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("")
	f.Add("state.abc")
	f.Fuzz(func(t *testing.T, h string) {
		got, ok := parseHandle(h)
		if ok {
			require.Len(t, h, handleLen)
			require.True(t, strings.HasPrefix(h, handlePrefix))
			require.False(t, got.IsZero())
		}
		_, _ = checkHandle(h, time.Now())
		m := mintHandle(exp)
		got, ok = parseHandle(m)
		require.True(t, ok, m)
		require.True(t, got.Equal(exp))
	})
}

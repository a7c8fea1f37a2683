package sessionstate_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestSessionState(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := sessionstate.New(now)
	assert.Equal(t, now, s.Created)
	assert.Equal(t, now, s.LastSeen())
	assert.False(t, s.Initialized())
	assert.Equal(t, mcp.LogLevel(""), s.LogLevel())

	caps := mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}}
	s.Init("2025-06-18", mcp.Implementation{Name: "c", Version: "1"}, caps, "alice")
	s.SetInitialized()
	s.SetLogLevel(mcp.LevelWarning)
	s.Subscribe("a://1")
	s.Subscribe("a://2")
	s.Unsubscribe("a://2")
	s.Unsubscribe("never")
	later := now.Add(time.Minute)
	s.Touch(later)

	assert.Equal(t, "2025-06-18", s.ProtocolVersion())
	assert.Equal(t, "c", s.Client().Name)
	assert.Equal(t, caps, s.Capabilities())
	assert.Equal(t, "alice", s.Auth())
	assert.True(t, s.Initialized())
	assert.Equal(t, mcp.LevelWarning, s.LogLevel())
	assert.True(t, s.Subscribed("a://1"))
	assert.False(t, s.Subscribed("a://2"))
	assert.Equal(t, later, s.LastSeen())
}

func TestSessionConcurrentUse(t *testing.T) {
	t.Parallel()
	s := sessionstate.New(time.Now())
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 100 {
				s.Touch(time.Now())
				s.Subscribe("u")
				_ = s.Subscribed("u")
				s.SetLogLevel(mcp.LevelInfo)
				_ = s.LogLevel()
				if (i+j)%2 == 0 {
					s.Unsubscribe("u")
				}
			}
		})
	}
	wg.Wait()
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	s := sessionstate.New(time.Now())
	s.Init("2025-06-18", mcp.Implementation{Name: "c", Version: "1"}, mcp.ClientCapabilities{}, "alice")
	s.SetInitialized()
	s.SetLogLevel(mcp.LevelError)
	s.Subscribe("b://2")
	s.Subscribe("a://1")
	rec := s.Record()
	assert.Equal(t, []string{"a://1", "b://2"}, rec.Subscriptions, "sorted")
	assert.Equal(t, sessionstate.Identity("alice"), rec.Identity)

	cp := sessionstate.FromRecord(rec, "alice")
	assert.Equal(t, s.ID, cp.ID)
	assert.Equal(t, "2025-06-18", cp.ProtocolVersion())
	assert.True(t, cp.Initialized())
	assert.Equal(t, mcp.LevelError, cp.LogLevel())
	assert.True(t, cp.Subscribed("a://1"))
	assert.Equal(t, "alice", cp.Auth())

	rec.Subscriptions = nil
	rec.LogLevel = ""
	cp.Apply(rec)
	assert.False(t, cp.Subscribed("a://1"), "Apply takes what another replica wrote")
	assert.Equal(t, mcp.LogLevel(""), cp.LogLevel())
}

type subj string

func (s subj) Subject() string { return string(s) }

// hidden is auth data without a subject that JSON cannot tell apart.
type hidden struct{ user string }

// blank implements mcp.Subject with an empty subject: it is opaque.
type blank struct{ user string }

func (blank) Subject() string { return "" }

// TestIdentity: the stored form of a session's identity is "" for an
// anonymous caller, "sub:" and the subject, or Opaque for any other auth
// data, whose users it does not tell apart.
func TestIdentity(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", sessionstate.Identity(nil))
	assert.Equal(t, "sub:bob", sessionstate.Identity(subj("bob")))
	for _, auth := range []any{"alice", hidden{"alice"}, blank{"alice"}, subj(""), map[string]any{"a": 1}, func() {}} {
		assert.Equal(t, sessionstate.Opaque, sessionstate.Identity(auth), "%T", auth)
	}
}

// TestAdoptable: another replica adopts a stored session for the
// anonymous caller of an anonymous session and for the subject of a
// subject's session; auth data without a subject adopts nothing, its own
// session included.
func TestAdoptable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stored any // the auth data the session was made with
		caller any
		want   bool
	}{
		{"anonymous, anonymous", nil, nil, true},
		{"subject, same subject", subj("ada"), subj("ada"), true},
		{"subject, other subject", subj("ada"), subj("bob"), false},
		{"subject, anonymous", subj("ada"), nil, false},
		{"anonymous, subject", nil, subj("ada"), false},
		{"opaque, same value", hidden{"ada"}, hidden{"ada"}, false},
		{"opaque, other user", hidden{"ada"}, hidden{"bob"}, false},
		{"empty subject, same value", blank{"ada"}, blank{"ada"}, false},
		{"opaque string, same string", "ada", "ada", false},
		{"anonymous, opaque", nil, hidden{"ada"}, false},
		{"opaque, anonymous", hidden{"ada"}, nil, false},
		{"subject, opaque with the subject's text", subj("ada"), "sub:ada", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, sessionstate.Adoptable(sessionstate.Identity(tt.stored), tt.caller))
		})
	}
	// Records of older versions stored a hash of the JSON: adopted by no one.
	assert.False(t, sessionstate.Adoptable("sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", hidden{}))
	assert.False(t, sessionstate.Adoptable("sub:", blank{}), "an empty subject never matches")
}

// TestApplyAllocs: refreshing a session from a record without
// subscriptions allocates nothing, so the engine's per-request refresh
// through session.MemoryStore.TouchApply costs no allocation.
func TestApplyAllocs(t *testing.T) { // not parallel: AllocsPerRun
	rec := &session.Record{ID: "s0", Initialized: true, LogLevel: mcp.LevelWarning}
	s := sessionstate.New(time.Now())
	assert.Zero(t, testing.AllocsPerRun(100, func() { s.Apply(rec) }))
	assert.True(t, s.Initialized())
	assert.Equal(t, mcp.LevelWarning, s.LogLevel())
}

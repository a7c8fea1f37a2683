package session_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := session.NewID()
		require.True(t, session.ValidID(id), "%q", id)
		require.GreaterOrEqual(t, len(id), 22, "128 bits of randomness")
		for _, c := range []byte(id) {
			require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII only: %q", id)
		}
		require.False(t, seen[id], "IDs are unique")
		seen[id] = true
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"abc", true},
		{"!~", true},
		{strings.Repeat("a", 256), true},
		{"", false},
		{strings.Repeat("a", 257), false},
		{"has space", false},
		{"tab\t", false},
		{"del\x7f", false},
		{"nl\n", false},
		{"ümlaut", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, session.ValidID(tt.id), "%q", tt.id)
	}
}

func TestSessionState(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := session.New(now)
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
	s := session.New(time.Now())
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

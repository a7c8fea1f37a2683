package mcphttp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionStateInflight checks the bookkeeping of requests in flight,
// whose first entry is kept inline and the others in a map made on
// demand: every tracked request can be cancelled by its key until it is
// untracked, closing cancels every one, and a session with none in flight
// holds no map.
func TestSessionStateInflight(t *testing.T) {
	t.Parallel()
	type step struct {
		op  string // track, untrack, cancel
		key string
	}
	tests := []struct {
		name      string
		steps     []step
		cancelled []string // the cancel funcs that ran, in order
		idle      bool
	}{
		{
			name:  "one request",
			steps: []step{{"track", "1"}, {"untrack", "1"}},
			idle:  true,
		},
		{
			name:      "cancel the only one",
			steps:     []step{{"track", "1"}, {"cancel", "1"}},
			cancelled: []string{"1"},
		},
		{
			name:      "cancel the second",
			steps:     []step{{"track", "1"}, {"track", "2"}, {"cancel", "2"}, {"cancel", "9"}},
			cancelled: []string{"2"},
		},
		{
			name:      "first ends, second still cancellable",
			steps:     []step{{"track", "1"}, {"track", "2"}, {"untrack", "1"}, {"cancel", "1"}, {"cancel", "2"}},
			cancelled: []string{"2"},
		},
		{
			name:  "both end in any order",
			steps: []step{{"track", "1"}, {"track", "2"}, {"track", "3"}, {"untrack", "2"}, {"untrack", "1"}, {"untrack", "3"}},
			idle:  true,
		},
		{
			name:      "a reused key replaces the inline entry",
			steps:     []step{{"track", "1"}, {"track", "1"}, {"cancel", "1"}},
			cancelled: []string{"1#2"},
		},
		{
			name:      "a reused key replaces the map entry",
			steps:     []step{{"track", "1"}, {"track", "2"}, {"track", "2"}, {"untrack", "1"}, {"cancel", "2"}},
			cancelled: []string{"2#2"},
		},
		{
			name:      "a key freed inline goes inline again",
			steps:     []step{{"track", "1"}, {"track", "2"}, {"untrack", "1"}, {"track", "3"}, {"untrack", "2"}, {"cancel", "3"}},
			cancelled: []string{"3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newSessionState(&Handler{}, nil, false)
			var ran []string
			seen := map[string]int{}
			for _, s := range tt.steps {
				switch s.op {
				case "track":
					seen[s.key]++
					name := s.key
					if n := seen[s.key]; n > 1 {
						name += "#" + string(rune('0'+n))
					}
					require.True(t, c.track(s.key, cancelFunc(func(cause error) {
						assert.ErrorIs(t, cause, errCancelled, "a cancelled request's cause")
						ran = append(ran, name)
					})))
				case "untrack":
					c.untrack(s.key)
				case "cancel":
					c.cancel(s.key)
				}
			}
			assert.Equal(t, tt.cancelled, ran)
			assert.Equal(t, tt.idle, c.idle())
			if tt.idle {
				assert.Nil(t, c.inflight, "an idle session keeps no map")
			}
		})
	}
}

// TestSessionStateInflightClose checks that close cancels every request in
// flight, inline and in the map, and that nothing is tracked after it.
func TestSessionStateInflightClose(t *testing.T) {
	t.Parallel()
	c := newSessionState(&Handler{}, nil, false)
	var ran []string
	for _, k := range []string{"1", "2", "3"} {
		require.True(t, c.track(k, cancelFunc(func(cause error) {
			assert.ErrorIs(t, cause, errCancelled, "the cause of a request the session's end cancels")
			ran = append(ran, k)
		})))
	}
	c.close()
	assert.ElementsMatch(t, []string{"1", "2", "3"}, ran)
	assert.False(t, c.track("4", cancelFunc(func(error) { t.Error("cancel of a request tracked after close ran") })))
}

// TestSessionStateDone checks the session's done channel, made on first
// use: one asked for before close is closed by close, one asked for after
// is closed already, and a sessionState nobody asked holds none.
func TestSessionStateDone(t *testing.T) {
	t.Parallel()
	isClosed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	t.Run("asked before close", func(t *testing.T) {
		t.Parallel()
		c := newSessionState(&Handler{}, nil, false)
		done := c.doneCh()
		assert.False(t, isClosed(done), "open session")
		assert.Equal(t, done, c.doneCh(), "one channel per session")
		c.close()
		assert.True(t, isClosed(done), "closed session")
		c.close() // twice is harmless
	})
	t.Run("asked after close", func(t *testing.T) {
		t.Parallel()
		c := newSessionState(&Handler{}, nil, false)
		c.close()
		assert.True(t, isClosed(c.doneCh()))
	})
	t.Run("never asked", func(t *testing.T) {
		t.Parallel()
		c := newSessionState(&Handler{}, nil, false)
		require.True(t, c.track("1", cancelFunc(func(error) {})))
		c.untrack("1")
		assert.Nil(t, c.done, "an idle session holds no done channel")
		c.close()
		assert.Nil(t, c.done)
	})
}

// TestSessionSlots checks the session's request limit, whose first slot
// is taken without a channel: with a limit of n, n requests run at once
// and the next waits until one ends; a session whose requests never
// overlap makes no channel; a wait ends with an error when its context
// does.
func TestSessionSlots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit int
	}{{"one", 1}, {"two", 2}, {"three", 3}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := &Handler{done: make(chan struct{})}
			h.opts.MaxSessionRequests = tt.limit
			c := newSessionState(h, nil, false)
			ctx := context.Background()

			// One after another: no channel.
			for range 3 {
				require.NoError(t, h.acquireSession(ctx, c))
				c.releaseSession()
			}
			assert.Nil(t, c.slots, "requests that never overlap make no channel")

			// limit at once, then one more waits.
			for range tt.limit {
				require.NoError(t, h.acquireSession(ctx, c))
			}
			short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			err := h.acquireSession(short, c)
			cancel()
			var sw *errSlotWait
			require.ErrorAs(t, err, &sw, "request %d of a limit of %d", tt.limit+1, tt.limit)

			got := make(chan error, 1)
			go func() { got <- h.acquireSession(ctx, c) }()
			select {
			case err := <-got:
				t.Fatalf("a request over the limit ran: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			c.releaseSession() // one ends: the waiting one runs
			require.NoError(t, <-got)
			for range tt.limit {
				c.releaseSession()
			}
			// Every slot is free again.
			for range tt.limit {
				require.NoError(t, h.acquireSession(ctx, c))
			}
			for range tt.limit {
				c.releaseSession()
			}
		})
	}
}

// cancelFunc is a canceller made of a function, for the tests of the
// tracking.
type cancelFunc func(cause error)

func (f cancelFunc) cancel(cause error) { f(cause) }

package storetest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/session"
)

// RunRelay runs the contract suite of session.Relay. newRelays returns
// the relays of two replicas of one deployment: messages are sent through
// the first and subscribed to through the second (for an in-process relay
// both may be the same value). Each subtest uses its own replica names.
func RunRelay(t *testing.T, newRelays func(t *testing.T) (send, sub session.Relay)) {
	t.Helper()
	ctx := context.Background()
	var names atomic.Int64
	replica := func() string { return "replica-" + strconv.FormatInt(names.Add(1), 10) + "-" + session.NewID()[:8] }

	// collect subscribes to r and returns its messages as they come.
	collect := func(t *testing.T, sub session.Relay, r string) (<-chan []byte, func()) {
		t.Helper()
		ch := make(chan []byte, 64)
		stop, err := sub.Subscribe(ctx, r, func(msg []byte) { ch <- msg })
		require.NoError(t, err)
		t.Cleanup(stop)
		return ch, stop
	}
	next := func(t *testing.T, ch <-chan []byte) []byte {
		t.Helper()
		select {
		case m := <-ch:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no message within 5 s")
			return nil
		}
	}

	t.Run("DeliveredInOrder", func(t *testing.T) {
		send, sub := newRelays(t)
		r := replica()
		ch, _ := collect(t, sub, r)
		msgs := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), {0, '\n', 0xff, 'x'}}
		// Enough messages that a transport which may reorder them (a
		// cluster client publishing through any node) shows it.
		for i := range 40 {
			msgs = append(msgs, []byte(strconv.Itoa(i)))
		}
		for _, m := range msgs {
			require.NoError(t, send.Send(ctx, r, m))
		}
		for _, m := range msgs {
			assert.Equal(t, m, next(t, ch), "bytes as sent, in order")
		}
	})

	t.Run("OnlyToItsReplica", func(t *testing.T) {
		send, sub := newRelays(t)
		r1, r2 := replica(), replica()
		ch1, _ := collect(t, sub, r1)
		ch2, _ := collect(t, sub, r2)
		require.NoError(t, send.Send(ctx, r2, []byte("for 2")))
		require.NoError(t, send.Send(ctx, r1, []byte("for 1")))
		assert.Equal(t, "for 1", string(next(t, ch1)))
		assert.Equal(t, "for 2", string(next(t, ch2)))
		select {
		case m := <-ch1:
			t.Fatalf("replica 1 got %q too", m)
		case m := <-ch2:
			t.Fatalf("replica 2 got %q too", m)
		default:
		}
	})

	// Every replica subscribes to one name for the registry changes the
	// others publish (mcphttp's subscriptions/listen fan-out): a message
	// reaches every subscriber of its name, and a stopped one no more.
	t.Run("EverySubscriber", func(t *testing.T) {
		send, sub := newRelays(t)
		r := replica()
		ch1, stop1 := collect(t, sub, r)
		ch2, _ := collect(t, send, r)
		require.NoError(t, send.Send(ctx, r, []byte("to both")))
		assert.Equal(t, "to both", string(next(t, ch1)))
		assert.Equal(t, "to both", string(next(t, ch2)))
		stop1()
		require.NoError(t, send.Send(ctx, r, []byte("to 2")))
		assert.Equal(t, "to 2", string(next(t, ch2)))
		select {
		case m := <-ch1:
			t.Fatalf("the stopped subscriber got %q", m)
		default:
		}
	})

	t.Run("AtMostOnce", func(t *testing.T) {
		send, sub := newRelays(t)
		r := replica()
		require.NoError(t, send.Send(ctx, r, []byte("nobody listens")), "sending to no subscriber is not an error")
		// A Redis Cluster carries a PUBLISH to its other nodes after
		// answering it: a message still on its way when the subscription
		// starts on another node may arrive. Sent 200 ms before, it has
		// arrived, and gone nowhere.
		time.Sleep(200 * time.Millisecond)
		ch, _ := collect(t, sub, r)
		require.NoError(t, send.Send(ctx, r, []byte("after")))
		assert.Equal(t, "after", string(next(t, ch)), "what was sent before the subscription is lost, not delivered late")
	})

	t.Run("Stop", func(t *testing.T) {
		send, sub := newRelays(t)
		r := replica()
		var mu sync.Mutex
		var got []string
		stopped := false
		stop, err := sub.Subscribe(ctx, r, func(msg []byte) {
			mu.Lock()
			defer mu.Unlock()
			assert.False(t, stopped, "fn called after stop returned")
			got = append(got, string(msg))
		})
		require.NoError(t, err)
		require.NoError(t, send.Send(ctx, r, []byte("one")))
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 }, 5*time.Second, 5*time.Millisecond)
		stop()
		mu.Lock()
		stopped = true
		mu.Unlock()
		require.NoError(t, send.Send(ctx, r, []byte("two")))
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []string{"one"}, got)
	})
}

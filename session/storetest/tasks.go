package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/session"
)

// RunTasks runs the contract suite of session.TaskStore: create-once,
// copies not aliases, atomic updates that keep the expiry, expiry TTL
// after creation. ttlUnit is as for [Run].
func RunTasks(t *testing.T, newStore func(t *testing.T) session.TaskStore, ttlUnit time.Duration) {
	t.Helper()
	ctx := context.Background()
	task := func(ttl time.Duration) *session.Task {
		now := time.Now().UTC().Truncate(time.Millisecond)
		return &session.Task{ID: session.NewID(), Status: session.TaskWorking, Created: now, Updated: now,
			TTL: ttl, PollInterval: 200 * time.Millisecond}
	}

	t.Run("CreateGet", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		tk.Identity = "sub:alice"
		tk.Heartbeat = tk.Created.Add(time.Second)
		require.NoError(t, s.CreateTask(ctx, tk))
		got, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Equal(t, tk.ID, got.ID)
		assert.Equal(t, session.TaskWorking, got.Status)
		assert.Equal(t, "sub:alice", got.Identity)
		assert.Equal(t, time.Minute, got.TTL)
		assert.Equal(t, 200*time.Millisecond, got.PollInterval)
		assert.True(t, tk.Created.Equal(got.Created))
		assert.True(t, tk.Heartbeat.Equal(got.Heartbeat))
	})

	t.Run("CreateTwice", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		require.NoError(t, s.CreateTask(ctx, tk))
		assert.ErrorIs(t, s.CreateTask(ctx, tk), session.ErrExists)
	})

	t.Run("BadTask", func(t *testing.T) {
		s := newStore(t)
		assert.Error(t, s.CreateTask(ctx, &session.Task{}), "empty ID")
		assert.Error(t, s.CreateTask(ctx, nil), "nil task")
	})

	t.Run("Missing", func(t *testing.T) {
		s := newStore(t)
		_, err := s.GetTask(ctx, "nope")
		assert.ErrorIs(t, err, session.ErrNotFound)
		_, err = s.UpdateTask(ctx, "nope", func(*session.Task) error { return nil })
		assert.ErrorIs(t, err, session.ErrNotFound)
	})

	t.Run("UpdateWritesBackAndReturns", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		require.NoError(t, s.CreateTask(ctx, tk))
		got, err := s.UpdateTask(ctx, tk.ID, func(x *session.Task) error {
			x.Status = session.TaskInputRequired
			x.InputRequests = map[string]json.RawMessage{"k1": json.RawMessage(`{"method":"elicitation/create","params":{}}`)}
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, session.TaskInputRequired, got.Status)
		read, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Equal(t, session.TaskInputRequired, read.Status)
		assert.JSONEq(t, `{"method":"elicitation/create","params":{}}`, string(read.InputRequests["k1"]))
	})

	t.Run("UpdateErrorWritesNothing", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		require.NoError(t, s.CreateTask(ctx, tk))
		boom := errors.New("boom")
		_, err := s.UpdateTask(ctx, tk.ID, func(x *session.Task) error { x.Status = session.TaskFailed; return boom })
		assert.ErrorIs(t, err, boom)
		read, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Equal(t, session.TaskWorking, read.Status)
	})

	t.Run("CopiesNotAliases", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		tk.InputResponses = map[string]json.RawMessage{"a": json.RawMessage(`{}`)}
		require.NoError(t, s.CreateTask(ctx, tk))
		tk.InputResponses["b"] = json.RawMessage(`{}`)
		got, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Len(t, got.InputResponses, 1)
		got.InputResponses["c"] = json.RawMessage(`{}`)
		again, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Len(t, again.InputResponses, 1)
	})

	t.Run("ConcurrentUpdatesAreNotLost", func(t *testing.T) {
		s := newStore(t)
		tk := task(time.Minute)
		require.NoError(t, s.CreateTask(ctx, tk))
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.UpdateTask(ctx, tk.ID, func(x *session.Task) error {
					if x.InputResponses == nil {
						x.InputResponses = map[string]json.RawMessage{}
					}
					x.InputResponses[string(rune('a'+i))] = json.RawMessage(`true`)
					return nil
				})
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		got, err := s.GetTask(ctx, tk.ID)
		require.NoError(t, err)
		assert.Len(t, got.InputResponses, 8)
	})

	t.Run("ExpiresTTLAfterCreation", func(t *testing.T) {
		s := newStore(t)
		tk := task(8 * ttlUnit)
		require.NoError(t, s.CreateTask(ctx, tk))
		// An update does not extend a task's life: made 5 units in, it
		// would keep the task 8 more; it is gone 3 units later. (Under
		// load the update may come after the expiry: not found, as well.)
		time.Sleep(5 * ttlUnit)
		_, err := s.UpdateTask(ctx, tk.ID, func(x *session.Task) error { x.Updated = time.Now(); return nil })
		if err != nil {
			require.ErrorIs(t, err, session.ErrNotFound)
		}
		assert.Eventually(t, func() bool {
			_, err := s.GetTask(ctx, tk.ID)
			return errors.Is(err, session.ErrNotFound)
		}, 7*ttlUnit, ttlUnit/4, "the task outlived its TTL: the update extended it")
	})

	t.Run("NoTTLNoExpiry", func(t *testing.T) {
		s := newStore(t)
		tk := task(0)
		require.NoError(t, s.CreateTask(ctx, tk))
		time.Sleep(2 * ttlUnit)
		_, err := s.GetTask(ctx, tk.ID)
		assert.NoError(t, err)
	})

	t.Run("ListByIdentity", func(t *testing.T) {
		s, ok := newStore(t).(session.TaskLister)
		if !ok {
			return // a TaskStore need not list (session.TaskLister)
		}
		mine := func(ttl time.Duration, identity string, age time.Duration) *session.Task {
			tk := task(ttl)
			tk.Identity = identity
			tk.Created = tk.Created.Add(-age)
			require.NoError(t, s.CreateTask(ctx, tk))
			return tk
		}
		// Unique identities: the store may be shared with other subtests.
		alice, bob := "sub:alice-"+session.NewID(), "sub:bob-"+session.NewID()
		newer := mine(time.Minute, alice, 0)
		older := mine(time.Minute, alice, time.Second)
		forever := mine(0, alice, 0)
		short := mine(6*ttlUnit, alice, 0)
		mine(time.Minute, bob, 0)

		// The empty identity (anonymous, no session) lists nothing.
		anonymous := mine(time.Minute, "", 0)
		none, err := s.ListTasks(ctx, "")
		require.NoError(t, err)
		assert.Empty(t, none)
		_, err = s.GetTask(ctx, anonymous.ID)
		require.NoError(t, err, "an anonymous task is read by its ID")

		got, err := s.ListTasks(ctx, alice)
		require.NoError(t, err)
		var ids []string
		for _, tk := range got {
			assert.Equal(t, alice, tk.Identity)
			ids = append(ids, tk.ID)
		}
		require.Len(t, ids, 4)
		assert.Equal(t, older.ID, ids[0], "oldest first")
		assert.ElementsMatch(t, []string{newer.ID, older.ID, forever.ID, short.ID}, ids)

		// A listed task is a copy; an update shows in the next list.
		got[0].Status = session.TaskFailed
		_, err = s.UpdateTask(ctx, newer.ID, func(x *session.Task) error { x.Status = session.TaskCompleted; return nil })
		require.NoError(t, err)
		again, err := s.ListTasks(ctx, alice)
		require.NoError(t, err)
		for _, tk := range again {
			switch tk.ID {
			case older.ID:
				assert.Equal(t, session.TaskWorking, tk.Status)
			case newer.ID:
				assert.Equal(t, session.TaskCompleted, tk.Status)
			}
		}

		// An expired task leaves the list.
		assert.Eventually(t, func() bool {
			got, err := s.ListTasks(ctx, alice)
			return err == nil && len(got) == 3
		}, 14*ttlUnit, ttlUnit/4, "the expired task is still listed")

		none, err = s.ListTasks(ctx, "sub:nobody-"+session.NewID())
		require.NoError(t, err)
		assert.Empty(t, none)
	})
}

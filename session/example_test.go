package session_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// A Streamable HTTP handler makes a session on initialize and stores its
// record with the idle timeout as TTL, touches it on every later request,
// writes changes back with Update, and deletes it on DELETE. A record not
// touched for its TTL is gone.
func ExampleMemoryStore() {
	ctx := context.Background()
	store := session.NewMemoryStore()

	now := time.Now()
	rec := &session.Record{ID: session.NewID(), ProtocolVersion: "2025-11-25",
		Client: mcp.Implementation{Name: "inspector", Version: "2.12.0"}, Created: now, LastSeen: now}
	_ = store.Create(ctx, rec, 30*time.Minute)

	got, err := store.Touch(ctx, rec.ID, 30*time.Minute)
	fmt.Println(err, got.ProtocolVersion, got.Client.Name, session.ValidID(got.ID))

	err = store.Update(ctx, rec.ID, 30*time.Minute, func(r *session.Record) error {
		r.LogLevel = mcp.LevelWarning
		return nil
	})
	got, _ = store.Get(ctx, rec.ID)
	fmt.Println(err, got.LogLevel)

	_ = store.Delete(ctx, rec.ID)
	_, err = store.Get(ctx, rec.ID)
	fmt.Println(errors.Is(err, session.ErrNotFound))
	// Output:
	// <nil> 2025-11-25 inspector true
	// <nil> warning
	// true
}

// A request stream's events go to an EventStore as they are sent, so that
// a client that lost the stream resumes it with Last-Event-ID: After
// returns what followed the last event it saw.
func ExampleMemoryEventStore() {
	ctx := context.Background()
	events := session.NewMemoryEventStore(time.Hour)

	_ = events.Append(ctx, "sess", "stream-1", session.Event{N: 0, Data: []byte(`7`)}) // priming: the request ID
	_ = events.Append(ctx, "sess", "stream-1", session.Event{N: 1, Data: []byte(`{"method":"notifications/progress"}`)})
	_ = events.Append(ctx, "sess", "stream-1", session.Event{N: 2, Data: []byte(`{"id":7,"result":{}}`), Final: true})

	evs, err := events.After(ctx, "sess", "stream-1", 1, 0)
	fmt.Println(err, len(evs), evs[0].N, evs[0].Final, string(evs[0].Data))
	_, err = events.After(ctx, "sess", "stream-2", 0, 0)
	fmt.Println(errors.Is(err, session.ErrNotFound))
	// Output:
	// <nil> 1 2 true {"id":7,"result":{}}
	// true
}

// A Relay carries a message to one replica: what a client posted to
// replica B in answer to a request replica A sent reaches A. MemoryRelay
// connects replicas that run in one process, as tests run them.
func ExampleMemoryRelay() {
	ctx := context.Background()
	relay := session.NewMemoryRelay()

	got := make(chan []byte, 1)
	stop, _ := relay.Subscribe(ctx, "replica-a", func(msg []byte) { got <- msg })
	defer stop()

	_ = relay.Send(ctx, "replica-a", []byte(`{"jsonrpc":"2.0","id":"s-1","result":{}}`))
	_ = relay.Send(ctx, "replica-c", []byte(`lost: nobody subscribed`))
	fmt.Println(string(<-got))
	// Output:
	// {"jsonrpc":"2.0","id":"s-1","result":{}}
}

// A task lives in the session store: the replica running the tool writes
// its status and outcome, any replica reads it. A terminal status never
// changes again.
func ExampleTaskStore() {
	ctx := context.Background()
	var tasks session.TaskStore = session.NewMemoryStore()

	now := time.Now()
	_ = tasks.CreateTask(ctx, &session.Task{ID: "task-1", Status: session.TaskWorking, Created: now, Updated: now, TTL: time.Hour})
	t, err := tasks.UpdateTask(ctx, "task-1", func(t *session.Task) error {
		if t.Status.Terminal() {
			return errors.New("task already finished")
		}
		t.Status, t.Result = session.TaskCompleted, []byte(`{"content":[]}`)
		return nil
	})
	fmt.Println(err, t.Status, t.Status.Terminal())
	// Output:
	// <nil> completed true
}

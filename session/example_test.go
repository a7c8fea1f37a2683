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

	s := session.New(time.Now())
	s.Init("2025-11-25", mcp.Implementation{Name: "inspector", Version: "2.12.0"}, mcp.ClientCapabilities{}, nil)
	_ = store.Create(ctx, s.Record(), 30*time.Minute)

	rec, err := store.Touch(ctx, s.ID, 30*time.Minute)
	fmt.Println(err, rec.ProtocolVersion, rec.Client.Name, session.ValidID(rec.ID))

	err = store.Update(ctx, s.ID, 30*time.Minute, func(r *session.Record) error {
		r.LogLevel = mcp.LevelWarning
		return nil
	})
	rec, _ = store.Get(ctx, s.ID)
	fmt.Println(err, rec.LogLevel)

	_ = store.Delete(ctx, s.ID)
	_, err = store.Get(ctx, s.ID)
	fmt.Println(errors.Is(err, session.ErrNotFound))
	// Output:
	// <nil> 2025-11-25 inspector true
	// <nil> warning
	// true
}

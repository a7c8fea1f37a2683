package session_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// A Streamable HTTP handler makes a session on initialize, stores it, looks
// it up by the Mcp-Session-Id of every later request, and drops it on DELETE
// or when it has been idle too long.
func ExampleMemoryStore() {
	ctx := context.Background()
	store := session.NewMemoryStore()

	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := session.New(start)
	s.Init("2025-11-25", mcp.Implementation{Name: "inspector", Version: "2.12.0"}, mcp.ClientCapabilities{}, nil)
	_ = store.Put(ctx, s)

	got, err := store.Get(ctx, s.ID)
	fmt.Println(err, got.ProtocolVersion(), got.Client().Name, session.ValidID(got.ID))

	// Idle for 31 minutes against a 30-minute timeout: expired.
	now := start.Add(31 * time.Minute)
	fmt.Println(len(store.Expired(now.Add(-30 * time.Minute))))

	_ = store.Delete(ctx, s.ID)
	_, err = store.Get(ctx, s.ID)
	fmt.Println(errors.Is(err, session.ErrNotFound))
	// Output:
	// <nil> 2025-11-25 inspector true
	// 1
	// true
}

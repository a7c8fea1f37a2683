package session_test

import (
	"testing"

	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/storetest"
)

func TestMemoryRelayContract(t *testing.T) {
	t.Parallel()
	storetest.RunRelay(t, func(*testing.T) (session.Relay, session.Relay) {
		r := session.NewMemoryRelay()
		return r, r
	})
}

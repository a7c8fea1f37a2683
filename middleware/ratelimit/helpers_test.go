package ratelimit_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/examples/everything/tools"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testServer is the everything example's tools on a fresh server.
func testServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "ratelimit", Version: "1.0.0"})
	tools.Register(srv, nil)
	return srv
}

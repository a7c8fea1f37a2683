package mcp_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

// What a server registers or changes while it runs goes through its
// Registry: every method returns an error instead of panicking. The
// server's registry changes what every session sees; a session's
// (Server.SessionRegistry) only that session's, and fails with
// ErrNoSession for a session not live in this process.
func ExampleRegistry() {
	srv := mcp.NewServer(mcp.Options{Name: "plugins", Version: "1.0.0"})
	reg := srv.Registry()
	hello := func(context.Context, *mcp.Context, struct{}) (string, error) { return "hello", nil }

	// A plugin loaded at run time: a taken name is an error, not a panic.
	fmt.Println(mcp.TryAddTool(reg, mcp.Tool{Name: "hello", Tags: []string{"plugin"}}, hello))
	err := mcp.TryAddTool(reg, mcp.Tool{Name: "hello"}, hello)
	fmt.Println(errors.Is(err, mcp.ErrAlreadyRegistered), err)

	// Hidden from every session, then removed.
	_ = reg.Disable(mcp.Match{Tags: []string{"plugin"}})
	fmt.Println(len(srv.ListTools(context.Background(), nil)))
	_ = reg.Remove(access.KindTool, "hello")
	_ = reg.Enable(mcp.Match{Tags: []string{"plugin"}})
	fmt.Println(len(srv.ListTools(context.Background(), nil)))

	// A session this process does not hold.
	err = mcp.TryAddTool(srv.SessionRegistry("gone"), mcp.Tool{Name: "hello"}, hello)
	fmt.Println(errors.Is(err, mcp.ErrNoSession))
	// Output:
	// <nil>
	// true tool "hello" is already registered
	// 0
	// 0
	// true
}

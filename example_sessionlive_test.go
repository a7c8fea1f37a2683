package mcp_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A server mounted in a parent keeps something per session of the
// parent. Unmounting it ends those sessions for it without an
// OnSessionEnd for each: OnUnmount runs instead, and SessionLive tells
// which of the kept sessions are gone.
func ExampleServer_OnUnmount() {
	quiet := slog.New(slog.DiscardHandler)
	child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: quiet})
	kept := map[string]bool{}
	mcp.AddTool(child, mcp.Tool{Name: "connect"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		kept[c.SessionID] = true
		return fmt.Sprint("connected, live: ", child.SessionLive(c.SessionID)), nil
	})
	stop := child.OnUnmount(func() {
		for id := range kept {
			if !child.SessionLive(id) {
				delete(kept, id)
			}
		}
	})
	defer stop()
	parent := mcp.NewServer(mcp.Options{Name: "parent", Version: "1.0.0", Logger: quiet})
	m := parent.Mount("c", child, nil)

	ctx := context.Background()
	h := mcphttp.New(parent, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	res, _ := session.CallTool(ctx, "c_connect", nil, nil)
	fmt.Println(res.Text(), len(kept))
	m.Unmount()
	fmt.Println("after Unmount:", len(kept))
	// Output:
	// connected, live: true 1
	// after Unmount: 0
}

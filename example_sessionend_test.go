package mcp_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// OnSessionEnd frees what a server keeps per session (a connection, a
// cache) once the session ends, however it ends: here an embedded
// session's Close.
func ExampleServer_OnSessionEnd() {
	srv := mcp.NewServer(mcp.Options{Name: "per-session", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	open := map[string]bool{}
	ended := make(chan string, 1)
	stop := srv.OnSessionEnd(func(id string) { ended <- id })
	defer stop()
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		open[c.SessionID] = true
		return "connected", nil
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := session.CallTool(ctx, "connect", nil, nil)
	fmt.Println(res.Text(), len(open))
	_ = session.Close()
	delete(open, <-ended)
	fmt.Println("after the session:", len(open))
	// Output:
	// connected 1
	// after the session: 0
}

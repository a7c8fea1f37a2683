// Command hello is the shortest useful mcpchain server: one tool, over
// stdio (or Streamable HTTP on :8000/mcp with -http).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

func main() {
	httpMode := flag.Bool("http", false, "serve Streamable HTTP on :8000/mcp instead of stdio")
	flag.Parse()

	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Say hello"},
		func(ctx context.Context, c *mcp.Context, in greetArgs) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})

	// SIGINT or SIGTERM stops the server gracefully (calls in flight
	// finish); a second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)

	opts := &mcphttp.StartOptions{}
	if *httpMode {
		opts.TransportType = mcphttp.TransportHTTPStream
	}
	inst, err := mcphttp.Start(ctx, srv, opts)
	if err != nil {
		log.Fatal(err)
	}
	// Wait returns nil when stdin ends or the server stopped cleanly.
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}

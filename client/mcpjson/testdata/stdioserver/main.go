// Command stdioserver is the stdio server of package mcpjson's tests:
// its tools answer with what the configuration set (an environment
// variable, the working directory).
package main

import (
	"context"
	"log"
	"os"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

func main() {
	srv := mcp.NewServer(mcp.Options{Name: "stdioserver", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "getenv", Description: "An environment variable's value"},
		func(_ context.Context, _ *mcp.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return os.Getenv(in.Name), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "cwd", Description: "The working directory"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return os.Getwd() })
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}

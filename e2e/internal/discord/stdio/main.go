// Command stdio serves package discord's server over stdio, for the Node
// clients' stdio cases of e2e: TOOLSEARCH_SPEC names Discord's OpenAPI
// document, and TOOLSEARCH_CODEMODE=1 installs code mode.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/mcpchain/mcp/e2e/internal/discord"
	"github.com/mcpchain/mcp/mcphttp"
)

func main() {
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, "discord stdio server:", err)
		os.Exit(1)
	}
}

func serve() error {
	d, err := discord.New(os.Getenv("TOOLSEARCH_SPEC"), os.Getenv("TOOLSEARCH_CODEMODE") == "1")
	if err != nil {
		return err
	}
	defer d.Mock.Close()
	inst, err := mcphttp.Start(context.Background(), d.MCP, &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio,
		Middleware: []func(http.Handler) http.Handler{d.Middleware}})
	if err != nil {
		return err
	}
	return inst.Wait()
}

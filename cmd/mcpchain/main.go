// Command mcpchain is the developer's tool for MCP servers written with
// mcpchain (or any MCP server):
//
//	mcpchain dev [PACKAGE] [-- ARGS]       build, run, rebuild and restart on change
//	mcpchain inspect TARGET                what a server offers (--json, --check FILE)
//	mcpchain server-json TARGET --name N   the MCP registry's server.json, to publish
//	mcpchain call TARGET TOOL [k=v ...]    call a tool (read URI, prompt NAME too)
//	mcpchain call --script FILE TARGET     run a code-mode script (package codemode)
//	mcpchain install CLIENT [PACKAGE]      add a server to Claude, Cursor, VS Code, Gemini, Goose
//	mcpchain discover [--json]             the servers configured in every client's files
//	mcpchain bridge URL [--oauth]          a remote server for a stdio-only client
//	mcpchain openapi gen SPEC -o DIR       Go tools from an OpenAPI document
//	mcpchain dev-idp [--auto-approve]      a development OpenID Connect provider
//
// A TARGET is an http(s) URL, or a command line that starts a stdio
// server: quoted as one argument ('go run ./server'), or after "--".
// See docs/cli.md.
//
//	go install ./cmd/mcpchain  # from a clone of the repository
//
// (go install github.com/mcpchain/mcp/cmd/mcpchain@latest once a version
// is published.)
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/termtext"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		var silent errSilent
		if !errors.As(err, &silent) {
			// An error may carry a server's words (a JSON-RPC error's
			// message, an HTTP body): shown, never acted on.
			fmt.Fprintln(os.Stderr, "mcpchain:", termtext.Clean(err.Error()))
		}
		os.Exit(1)
	}
}

// errSilent fails the command after it has said why itself.
type errSilent struct{ error }

// newRootCmd is the mcpchain command with every subcommand: each is built
// by a newXCmd function in its own file.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpchain",
		Short:         "Develop, inspect, call, install and bridge MCP servers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newDevCmd(),
		newInspectCmd(),
		newServerJSONCmd(),
		newCallCmd(),
		newReadCmd(),
		newPromptCmd(),
		newInstallCmd(),
		newDiscoverCmd(),
		newBridgeCmd(),
		newOpenAPICmd(),
		newAccountsCmd(),
		newDevIdPCmd(),
	)
	return root
}

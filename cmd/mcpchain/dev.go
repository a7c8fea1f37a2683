package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcpchain/mcp/internal/cli/devserver"
)

func newDevCmd() *cobra.Command {
	var (
		httpURL   string
		proxyPort int
		inspector bool
	)
	cmd := &cobra.Command{
		Use:   "dev [flags] [PACKAGE] [-- ARGS...]",
		Short: "Build and run a server; rebuild and restart it when a file changes",
		Long: `dev builds the server's main package (default ".") with go build, runs
it with ARGS, and watches the module's files. 200 ms after the last change
it rebuilds: when the build succeeds and the binary changed it restarts the
server; when it fails it prints the errors and the last good server keeps
running. Each request is logged on stderr, one line: method, tool, prompt
or resource, duration, and ok or the error code.

Over stdio (the default) dev is the server a client starts: it passes the
messages through to the server it runs. On a restart it starts the new
server, sends it the client's own initialize request (and
notifications/initialized, logging/setLevel and resources/subscribe if the
client sent them), switches to it, and sends the client
notifications/tools/list_changed, prompts/list_changed and
resources/list_changed (for what the new server declares): the client
lists again and sees the new tools, in the same session. The old server
answers its requests in flight for up to 5 s, then its stdin is closed; one
still unanswered 2 s later fails with error -32603.

With --http URL the server serves Streamable HTTP at URL (its ARGS must
make it listen there): dev restarts it on change; clients' sessions end
with the old server (a request then gets 404 and the client initializes
again). --proxy-port P puts a reverse proxy at 127.0.0.1:P in front of it
that logs each request and holds requests while the server restarts.`,
		Example: `  # stdio, started by a client (Claude Desktop, the MCP Inspector):
  mcpchain dev ./cmd/server
  # Streamable HTTP, through a logging proxy on port 9000:
  mcpchain dev --http http://127.0.0.1:8000/mcp --proxy-port 9000 ./cmd/server -- -port 8000
  # start the MCP Inspector on it:
  mcpchain dev --inspector ./cmd/server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			pkg, serverArgs := ".", []string(nil)
			before := args
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				before, serverArgs = args[:at], args[at:]
			}
			switch len(before) {
			case 0:
			case 1:
				pkg = before[0]
			default:
				return fmt.Errorf("one PACKAGE at most (got %q); put the server's arguments after --", before)
			}
			// A directory is built from within it, so that dev works from
			// wherever a client starts it (clients choose the directory).
			dir := ""
			if isLocalPath(pkg) {
				abs, err := filepath.Abs(pkg)
				if err != nil {
					return err
				}
				pkg, dir = abs, abs
			}
			self := devCommandLine(pkg, serverArgs)
			stderr := cmd.ErrOrStderr()
			if inspector && httpURL == "" {
				return runInspectorOnStdio(cmd, stderr, self)
			}
			cfg := devserver.Config{Package: pkg, Dir: dir, Args: serverArgs, URL: httpURL, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr}
			if dir != "" {
				cfg.Package = "."
			}
			if proxyPort != 0 {
				if httpURL == "" {
					return fmt.Errorf("--proxy-port needs --http (over stdio dev logs the traffic itself)")
				}
				cfg.ProxyAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(proxyPort))
			}
			if httpURL == "" {
				printInspectorHint(stderr, "stdio", quote(self))
				if f, ok := cmd.InOrStdin().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					fmt.Fprintln(stderr, "mcpchain dev: stdin is a terminal, not an MCP client: start dev from a client (above), or use --http, or --inspector")
				}
			} else {
				cfg.Ready = func(proxy string) { printInspectorHint(stderr, proxy, "") }
				if proxyPort == 0 {
					printInspectorHint(stderr, httpURL, "")
				}
				if inspector {
					stop, err := startInspector(stderr)
					if err != nil {
						return err
					}
					defer stop()
				}
			}
			return devserver.Run(cmd.Context(), cfg)
		},
	}
	cmd.Flags().StringVar(&httpURL, "http", "", "the server serves Streamable HTTP at this URL (its ARGS must make it listen there)")
	cmd.Flags().IntVar(&proxyPort, "proxy-port", 0, "with --http: serve a logging reverse proxy to the server on this port of 127.0.0.1")
	cmd.Flags().BoolVar(&inspector, "inspector", false, "start the MCP Inspector (npx @modelcontextprotocol/inspector) on the server")
	return cmd
}

// isLocalPath reports whether a PACKAGE is a directory path rather than
// an import path.
func isLocalPath(pkg string) bool {
	return pkg == "." || pkg == ".." || strings.HasPrefix(pkg, "./") || strings.HasPrefix(pkg, "../") ||
		filepath.IsAbs(pkg) || strings.HasPrefix(pkg, `.\`) || strings.HasPrefix(pkg, `..\`)
}

// devCommandLine is the stdio dev command that serves the same package
// from any directory: what the Inspector (or a client's config) runs.
func devCommandLine(pkg string, serverArgs []string) []string {
	self, err := os.Executable()
	if err != nil {
		self = "mcpchain"
	}
	line := []string{self, "dev", pkg}
	if len(serverArgs) > 0 {
		line = append(append(line, "--"), serverArgs...)
	}
	return line
}

func quote(args []string) string {
	var out []string
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// printInspectorHint says how to attach the MCP Inspector.
func printInspectorHint(w io.Writer, where, stdioCmd string) {
	if where == "stdio" {
		fmt.Fprintf(w, "mcpchain dev: speaking MCP on stdin/stdout; to attach the MCP Inspector run:\n  npx @modelcontextprotocol/inspector %s\n", stdioCmd)
		return
	}
	fmt.Fprintf(w, "mcpchain dev: to attach the MCP Inspector run:\n  npx @modelcontextprotocol/inspector\nand connect it to %s (transport: Streamable HTTP)\n", where)
}

// runInspectorOnStdio starts the MCP Inspector with the dev command line
// (without --inspector) as its stdio server, and waits for it.
func runInspectorOnStdio(cmd *cobra.Command, stderr io.Writer, devLine []string) error {
	npx, err := exec.LookPath("npx")
	if err != nil {
		return fmt.Errorf("--inspector needs Node.js (npx not found in PATH): %w", err)
	}
	ins := exec.CommandContext(cmd.Context(), npx, append([]string{"-y", "@modelcontextprotocol/inspector"}, devLine...)...)
	ins.Stdout, ins.Stderr = stderr, stderr
	fmt.Fprintf(stderr, "mcpchain dev: starting the MCP Inspector on %s\n", quote(devLine))
	return ins.Run()
}

// startInspector starts the MCP Inspector beside an HTTP server.
func startInspector(stderr io.Writer) (stop func(), err error) {
	npx, err := exec.LookPath("npx")
	if err != nil {
		return nil, fmt.Errorf("--inspector needs Node.js (npx not found in PATH): %w", err)
	}
	ins := exec.Command(npx, "-y", "@modelcontextprotocol/inspector")
	ins.Stdout, ins.Stderr = stderr, stderr
	if err := ins.Start(); err != nil {
		return nil, err
	}
	return func() { _ = ins.Process.Signal(os.Interrupt); _ = ins.Wait() }, nil
}

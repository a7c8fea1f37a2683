package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/proxy"
)

func newBridgeCmd() *cobra.Command {
	var (
		tf      targetFlags
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "bridge [flags] URL",
		Short: "Serve a remote MCP server to a client that speaks only stdio",
		Long: `bridge lets a client that only starts stdio servers (a desktop
client) use a remote Streamable HTTP server: the client starts
"mcpchain bridge URL" as its server, and bridge passes its requests to URL
and the answers, notifications and server requests back (package proxy).

stdin and stdout are the client's JSON-RPC channel: bridge writes nothing
else there. Its log and the login URL go to stderr.

--oauth logs in to a server that is an OAuth protected resource: on its
first 401 bridge registers itself with the authorization server (or uses
--client-id, --client-metadata-url), listens on a 127.0.0.1 port for the
redirect, opens the authorization URL in a browser (xdg-open, open,
rundll32; not with --no-browser) and prints it on stderr. The tokens are
kept in the user's config directory (mcpchain/tokens.json, mode 0600;
--token-file to choose), refreshed when they expire, so the next start
needs no login.`,
		Example: `  mcpchain bridge https://mcp.example.com/mcp --oauth
  mcpchain bridge -H 'Authorization: Bearer sk-…' https://mcp.example.com/mcp

  # in a desktop client's configuration (claude_desktop_config.json):
  {"mcpServers": {"remote": {"command": "mcpchain",
    "args": ["bridge", "https://mcp.example.com/mcp", "--oauth"]}}}`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, _, err := tf.spec(cmd, args)
			defer tf.close()
			if err != nil {
				return err
			}
			if spec.URL == "" {
				return errors.New("bridge needs an http(s) URL: a stdio server needs no bridge")
			}
			logw := cmd.ErrOrStderr()
			level := slog.LevelInfo
			if verbose {
				level = slog.LevelDebug
			}
			log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: level}))
			upstream := client.HTTP(spec.URL, &client.HTTPOptions{Header: spec.Header, Auth: spec.Auth})
			opts := &proxy.StdioOptions{Gateway: proxy.Options{
				Server:     mcp.Options{Logger: log},
				ClientInfo: mcp.Implementation{Name: "mcpchain-bridge", Version: "0.1.0"},
			}}
			if tf.oauth.enabled {
				// The first connection may wait for the user to log in.
				opts.Gateway.ConnectTimeout = tf.oauth.loginTimeout + 30*time.Second
			}
			log.Info("bridge: serving stdio", "upstream", spec.String(), "oauth", tf.oauth.enabled)
			err = proxy.ServeStdio(cmd.Context(), upstream, cmd.InOrStdin(), cmd.OutOrStdout(), opts)
			if err != nil {
				return fmt.Errorf("bridge to %s: %w", spec, err)
			}
			log.Info("bridge: the client closed stdin")
			return nil
		},
	}
	tf.add(cmd.Flags())
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log debug messages")
	return cmd
}

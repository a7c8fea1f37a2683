package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/proxy"
)

func newBridgeCmd() *cobra.Command {
	var (
		tf         targetFlags
		verbose    bool
		configFile string
	)
	cmd := &cobra.Command{
		Use:   "bridge [flags] URL | bridge --config FILE [-v]",
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
needs no login.

--config FILE serves every server of FILE, an mcp.json (as mcpchain
install and the clients write it), as one stdio server: tool "search" of
server "docs" is "docs_search". Each server's entry says how to reach it
(its url and headers, or its command, args and env); every server must
start, or bridge exits with each failure named.`,
		Example: `  mcpchain bridge https://mcp.example.com/mcp --oauth
  mcpchain bridge -H 'Authorization: Bearer sk-…' https://mcp.example.com/mcp

  # in a desktop client's configuration (claude_desktop_config.json):
  {"mcpServers": {"remote": {"command": "mcpchain",
    "args": ["bridge", "https://mcp.example.com/mcp", "--oauth"]}}}

  # every server of a project's mcp.json behind one entry
  mcpchain bridge --config .cursor/mcp.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if configFile != "" {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if configFile != "" {
				return bridgeConfig(cmd, &tf, configFile, verbose)
			}
			spec, _, err := tf.spec(cmd, args)
			defer tf.close()
			if err != nil {
				return err
			}
			if spec.URL == "" {
				return errors.New("bridge needs an http(s) URL: a stdio server needs no bridge")
			}
			log := bridgeLogger(cmd, verbose)
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
	cmd.Flags().StringVar(&configFile, "config", "", "serve every server of this mcp.json, namespaced SERVER_TOOL, instead of one URL")
	return cmd
}

// bridgeLogger is bridge's log, on stderr: stdout is the client's.
func bridgeLogger(cmd *cobra.Command, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
}

// bridgeDepthEnv counts the bridges --config between a client and the
// process that reads it; maxBridgeDepth bounds it.
const (
	bridgeDepthEnv = "MCPCHAIN_BRIDGE_DEPTH"
	maxBridgeDepth = 4
)

// bridgeConfig is bridge --config: every server of file as one stdio
// server. The entries carry their own headers and commands, so a
// TARGET's flags (-H, --oauth) are refused rather than ignored.
func bridgeConfig(cmd *cobra.Command, tf *targetFlags, file string, verbose bool) error {
	if len(tf.headers) > 0 || tf.oauth.enabled {
		return errors.New("-H and --oauth apply to a URL, not to --config (an entry's headers apply)")
	}
	// A file that lists a bridge to itself would start bridges without
	// end: the depth travels to the servers started, in their environment.
	depth, _ := strconv.Atoi(os.Getenv(bridgeDepthEnv))
	if depth >= maxBridgeDepth {
		return fmt.Errorf("bridge --config %s: bridges nested %d deep (%s): does an entry start a bridge to this file?", file, depth, bridgeDepthEnv)
	}
	if err := os.Setenv(bridgeDepthEnv, strconv.Itoa(depth+1)); err != nil {
		return err
	}
	cfg, err := mcpjson.Load(file)
	if err != nil {
		return err
	}
	log := bridgeLogger(cmd, verbose)
	var names []string
	for _, s := range cfg.Servers {
		if !s.Disabled {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s has no enabled server to serve", file)
	}
	log.Info("bridge: serving stdio", "config", file, "servers", strings.Join(names, ","))
	opts := &proxy.StdioOptions{Gateway: proxy.Options{
		Server:     mcp.Options{Name: "mcpchain-bridge", Version: "0.1.0", Logger: log},
		ClientInfo: mcp.Implementation{Name: "mcpchain-bridge", Version: "0.1.0"},
	}}
	if err := proxy.ServeConfigStdio(cmd.Context(), cfg, cmd.InOrStdin(), cmd.OutOrStdout(), opts); err != nil {
		return fmt.Errorf("bridge --config %s: %w", file, err)
	}
	log.Info("bridge: the client closed stdin")
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
)

// connector opens the client a command calls: a TARGET (target.Spec) or
// a server of --config.
type connector interface {
	Connect(ctx context.Context, opts *client.Options) (*client.Client, error)
}

// configured is a server of an mcp.json, as a connector.
type configured struct{ s *mcpjson.Server }

func (c configured) Connect(ctx context.Context, opts *client.Options) (*client.Client, error) {
	cl, err := client.Connect(ctx, c.s.Transport(), opts)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", c.s.Name, err)
	}
	return cl, nil
}

// callTarget is what call connects to, and its other arguments: the
// TARGET of argv, or with --config (file set) the server that argv's
// SERVER_TOOL names, whose TOOL then replaces SERVER_TOOL.
func (f *callFlags) callTarget(cmd *cobra.Command, argv []string, file string) (connector, []string, error) {
	if file == "" {
		return f.spec(cmd, argv)
	}
	switch {
	case cmd.ArgsLenAtDash() >= 0:
		return nil, nil, errors.New("--config names the servers: give no command after --")
	case len(f.headers) > 0 || f.oauth.enabled:
		return nil, nil, errors.New("-H and --oauth apply to a TARGET, not to --config (an entry's headers apply)")
	case len(argv) == 0:
		return nil, nil, errors.New("missing SERVER_TOOL")
	}
	cfg, err := mcpjson.Load(file)
	if err != nil {
		return nil, nil, err
	}
	server, tool, ok := mcpjson.Split(argv[0])
	s := cfg.Lookup(server)
	if !ok || s == nil {
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
		return nil, nil, fmt.Errorf("%q is not SERVER%sTOOL of a server of %s (servers: %s)", argv[0], mcpjson.Separator, file, strings.Join(names, ", "))
	}
	rest := append([]string{tool}, argv[1:]...)
	return configured{s}, rest, nil
}

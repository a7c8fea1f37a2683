package main

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpchain/mcp/internal/cli/target"
)

// targetFlags are the flags of the commands that reach a server.
type targetFlags struct {
	headers []string
}

func (f *targetFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.headers, "header", "H", nil, `HTTP header for an http(s) TARGET, "Name: value" (repeatable)`)
	// --oauth: once package client can obtain tokens, a flag here sets
	// target.Spec.HTTPClient to a client that authorizes its requests.
}

// spec reads the TARGET of args (see target.Split) and returns it with
// the other arguments.
func (f *targetFlags) spec(cmd *cobra.Command, args []string) (target.Spec, []string, error) {
	s, rest, err := target.Split(args, cmd.ArgsLenAtDash())
	if err != nil {
		return s, nil, err
	}
	if s.Header, err = target.ParseHeaders(f.headers); err != nil {
		return s, nil, err
	}
	if len(f.headers) > 0 && s.URL == "" {
		return s, nil, errors.New("-H applies to an http(s) TARGET only")
	}
	s.Stderr = cmd.ErrOrStderr()
	return s, rest, nil
}

const targetHelp = `TARGET is an http(s) URL of a Streamable HTTP server, or the command
line that starts a stdio server: one quoted argument ('go run ./server'),
or everything after "--" (then the command's other arguments come before
"--").`

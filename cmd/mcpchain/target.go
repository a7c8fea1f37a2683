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
	oauth   oauthFlags
	login   *login // started by spec with --oauth; closed by close
}

func (f *targetFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.headers, "header", "H", nil, `HTTP header for an http(s) TARGET, "Name: value" (repeatable)`)
	f.oauth.add(fs)
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
	if err := f.oauth.check(); err != nil {
		return s, nil, err
	}
	if f.oauth.enabled {
		if s.URL == "" {
			return s, nil, errors.New("--oauth applies to an http(s) TARGET only")
		}
		if f.login, err = f.oauth.start(cmd.ErrOrStderr()); err != nil {
			return s, nil, err
		}
		s.Auth = f.login.Handler
	}
	s.Stderr = cmd.ErrOrStderr()
	return s, rest, nil
}

// close stops what spec started (the --oauth redirect listener).
func (f *targetFlags) close() {
	if f.login != nil {
		_ = f.login.Close()
		f.login = nil
	}
}

const targetHelp = `TARGET is an http(s) URL of a Streamable HTTP server, or the command
line that starts a stdio server: one quoted argument ('go run ./server'),
or everything after "--" (then the command's other arguments come before
"--").`

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/install"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

func newInstallCmd() *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "install [flags] CLIENT [PACKAGE] | install [flags] CLIENT -- COMMAND [ARGS...]",
		Short: "Add a stdio server to an MCP client's configuration",
		Long: `install adds a stdio server to the configuration file of an MCP client:
` + strings.Join(install.IDs(), ", ") + `.

install's flags come before "--": everything after it is the server's
command line, passed to the server as it is.

The server is a Go main PACKAGE (default "."), or the COMMAND after "--"
(its program resolved to an absolute path: clients start servers with a
short PATH). A PACKAGE is built once, now, with "go build" into
$XDG_DATA_HOME/mcpchain/bin/NAME (~/.local/share/mcpchain/bin/NAME; a
PKG@VERSION with "go install"), and the client starts that binary: a
client gives a server a few seconds to start, less than compiling takes.
--go-run writes "go -C <dir> run ." (or "go run PKG@VERSION") instead,
which compiles at every start; run install again after a change to
rebuild.

Before writing, install starts the server as the client will and sends
initialize: a server that does not answer within --check-timeout is not
installed, and its stderr is shown (--no-check skips this).

The file is the one the client documents for the OS (--project: the
project's file, for claude-code, cursor and vscode; --file: any file). It
is merged: other keys and servers are kept. Running install again with the
same entry changes nothing; a changed entry replaces the server's, after a
copy of the file to FILE.bak. An entry of the same name that runs another
command is replaced only with --force (install shows it). mcp-json prints
a generic mcp.json unless --file is given.

install never writes through a symbolic link: a config file, FILE.bak or a
directory of the project's path that is a link (or not a regular file or
directory) is refused. A file that holds --env values is written 0600.`,
		Example: `  mcpchain install claude-desktop --env API_KEY=secret ./cmd/server
  mcpchain install vscode --project --name weather ./cmd/weather
  mcpchain install cursor --name weather -- /usr/local/bin/weather -v
  mcpchain install claude-code --go-run ./cmd/server
  mcpchain install mcp-json ./cmd/server > mcp.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	cmd.Flags().StringVar(&f.name, "name", "", "the server's name in the client (default: the package's directory or the command's name)")
	cmd.Flags().StringArrayVar(&f.envs, "env", nil, "an environment variable for the server, KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&f.file, "file", "", "write this file instead of the client's own")
	cmd.Flags().BoolVar(&f.project, "project", false, "write the project's file (./.mcp.json, ./.cursor/mcp.json, ./.vscode/mcp.json, ./mcp.json)")
	cmd.Flags().BoolVar(&f.goRun, "go-run", false, "have the client run the PACKAGE with go run (compiled at every start) instead of building it now")
	cmd.Flags().BoolVar(&f.noCheck, "no-check", false, "write the entry without checking that the server starts and answers initialize")
	cmd.Flags().DurationVar(&f.checkTimeout, "check-timeout", 30*time.Second, "how long the check waits for the server's initialize answer")
	cmd.Flags().BoolVar(&f.force, "force", false, "replace an entry of the same name that runs another command")
	return cmd
}

// installFlags are install's flags.
type installFlags struct {
	name         string
	envs         []string
	file         string
	project      bool
	goRun        bool
	noCheck      bool
	force        bool
	checkTimeout time.Duration
}

// run is install: it resolves the server and the file, builds and checks
// the server, then writes its entry (or prints the mcp.json).
func (f *installFlags) run(cmd *cobra.Command, args []string) error {
	client, ok := install.Clients[args[0]]
	if !ok {
		return fmt.Errorf("unknown client %q: want one of %s", args[0], strings.Join(install.IDs(), ", "))
	}
	errOut := cmd.ErrOrStderr()
	srv, pkg, err := f.server(cmd, args)
	if err != nil {
		return err
	}
	printOnly := client.ID == "mcp-json" && f.file == "" && !f.project
	var target install.Target
	if !printOnly {
		if target, err = f.target(client, srv); err != nil {
			return err
		}
	}
	if pkg != nil && !f.goRun {
		// The go command's output and install's notes go to
		// stderr: stdout may be the mcp.json printed.
		if err := build(cmd.Context(), goCommand(pkg), *pkg, srv.Command, errOut); err != nil {
			return err
		}
	}
	if !f.noCheck {
		info, err := checkServer(cmd.Context(), srv, f.checkTimeout)
		if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "checked: the server starts and answers initialize (%s %s)\n", termtext.Line(info.Name), termtext.Line(info.Version))
	}
	out := cmd.OutOrStdout()
	if printOnly {
		b, err := client.Document(srv)
		if err != nil {
			return err
		}
		_, err = out.Write(b)
		return err
	}
	res, err := client.Write(target, srv)
	if err != nil {
		return err
	}
	reportInstall(out, client, srv, res)
	return nil
}

// server is the server install writes: from the PACKAGE or the command
// after "--", named by --name, with --env; pkg is the package to build,
// nil for a command.
func (f *installFlags) server(cmd *cobra.Command, args []string) (install.Server, *goPackage, error) {
	before, command := args[1:], []string(nil)
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		before, command = args[1:at], args[at:]
		warnOwnFlags(cmd.ErrOrStderr(), cmd, command)
	}
	srv, pkg, err := serverOf(before, command)
	if err != nil {
		return srv, nil, err
	}
	if f.name != "" {
		srv.Name = f.name
	}
	if srv.Env, err = parseEnv(f.envs); err != nil {
		return srv, nil, err
	}
	if pkg != nil && !f.goRun {
		if srv.Command, err = binPath(srv.Name); err != nil {
			return srv, nil, err
		}
		srv.Args = []string{}
	}
	return srv, pkg, nil
}

// target is the file install writes: --file, else the client's own (or
// its project's). An entry of that name that runs another server is not
// replaced by mistake: before building, say so.
func (f *installFlags) target(client *install.Client, srv install.Server) (install.Target, error) {
	var target install.Target
	var err error
	if f.file != "" {
		if target, err = fileTarget(f.file); err != nil {
			return install.Target{}, err
		}
	} else {
		env, err := install.OSEnv()
		if err != nil {
			return install.Target{}, err
		}
		if target, err = client.Target(env, f.project); err != nil {
			return install.Target{}, err
		}
	}
	prev, err := client.Lookup(target, srv.Name)
	if err != nil {
		return install.Target{}, err
	}
	if prev != nil && !sameCommand(prev, srv) && !f.force {
		return install.Target{}, fmt.Errorf("%s already has a server %q that runs another command:\n%q: %s\nnot replaced: --force replaces it, --name installs this one under another name", target.Path(), srv.Name, srv.Name, compactJSONRaw(prev))
	}
	return target, nil
}

// reportInstall says what install did to the file.
func reportInstall(out io.Writer, client *install.Client, srv install.Server, res *install.Result) {
	switch {
	case !res.Changed && res.Tightened:
		fmt.Fprintf(out, "%s: %q is already installed in %s (unchanged; its mode is now %04o, as it holds --env values)\n", client.ID, srv.Name, res.Path, res.Mode)
	case !res.Changed:
		fmt.Fprintf(out, "%s: %q is already installed in %s (unchanged)\n", client.ID, srv.Name, res.Path)
	case res.Previous != nil:
		fmt.Fprintf(out, "%s: replaced %q in %s (previous file saved as %s); it was:\n%q: %s\n", client.ID, srv.Name, res.Path, res.Backup, srv.Name, compactJSONRaw(res.Previous))
	case res.Backup != "":
		fmt.Fprintf(out, "%s: installed %q in %s (previous file saved as %s)\n", client.ID, srv.Name, res.Path, res.Backup)
	default:
		fmt.Fprintf(out, "%s: installed %q in %s (new file)\n", client.ID, srv.Name, res.Path)
	}
	fmt.Fprintf(out, "%q: %s\n", srv.Name, res.Entry)
	if client.ID == "claude-desktop" {
		fmt.Fprintln(out, "Restart Claude Desktop to load it.")
	}
}

// sameCommand reports whether the entry prev (JSON) runs srv's command
// with srv's arguments; its environment may differ.
func sameCommand(prev json.RawMessage, srv install.Server) bool {
	command, args := install.CommandOf(prev)
	return command == srv.Command && slices.Equal(args, srv.Args)
}

// warnOwnFlags warns when the server's arguments (after "--") look like
// install's own flags: they are passed to the server, and a synopsis
// read the wrong way puts them there.
func warnOwnFlags(w io.Writer, cmd *cobra.Command, command []string) {
	for _, a := range command[1:] {
		flag, _, _ := strings.Cut(a, "=")
		if !strings.HasPrefix(flag, "--") {
			continue
		}
		if f := cmd.Flags().Lookup(flag[2:]); f != nil {
			fmt.Fprintf(w, "mcpchain: warning: %s after -- is an argument of the server, not install's --%s: install's flags go before --\n", termtext.Line(a), f.Name)
		}
	}
}

// compactJSONRaw is an entry from a file on one line, escaped for the
// terminal.
func compactJSONRaw(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return termtext.JSON(raw)
	}
	return termtext.JSON(b.Bytes())
}

// goCommand is the go command serverOf found (the entry's command for
// go run, kept for building).
func goCommand(pkg *goPackage) string { return pkg.goBin }

// fileTarget is the target of --file: a relative path below the working
// directory is checked from there (no directory of it may be a link, as
// with --project); any other path from its own directory.
func fileTarget(file string) (install.Target, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return install.Target{}, err
	}
	if !filepath.IsAbs(file) && filepath.IsLocal(file) {
		wd, err := os.Getwd()
		if err != nil {
			return install.Target{}, err
		}
		return install.Target{Dir: wd, Name: filepath.Clean(file)}, nil
	}
	return install.Target{Dir: filepath.Dir(abs), Name: filepath.Base(abs)}, nil
}

// serverOf is the command a client runs: a Go package (local, or
// PKG@VERSION) run with go run, which pkg describes, or the command given
// after "--" (pkg nil).
func serverOf(pkgArgs, command []string) (install.Server, *goPackage, error) {
	if len(command) > 0 {
		if len(pkgArgs) > 0 {
			return install.Server{}, nil, errors.New("give a PACKAGE or a command after --, not both")
		}
		name := strings.TrimSuffix(filepath.Base(command[0]), ".exe")
		return install.Server{Name: name, Command: absProgram(command[0]), Args: command[1:]}, nil, nil
	}
	pkg := "."
	switch len(pkgArgs) {
	case 0:
	case 1:
		pkg = pkgArgs[0]
	default:
		return install.Server{}, nil, fmt.Errorf("one PACKAGE at most (got %q); a command goes after --, and install's flags before it", pkgArgs)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return install.Server{}, nil, fmt.Errorf("go not found in PATH: %w", err)
	}
	if abs, err := filepath.Abs(goBin); err == nil {
		goBin = abs
	}
	if path, _, ok := strings.Cut(pkg, "@"); ok && !strings.HasPrefix(pkg, ".") && !filepath.IsAbs(pkg) {
		return install.Server{Name: filepath.Base(path), Command: goBin, Args: []string{"run", pkg}}, &goPackage{remote: pkg, goBin: goBin}, nil
	}
	dir, err := filepath.Abs(pkg)
	if err != nil {
		return install.Server{}, nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return install.Server{}, nil, fmt.Errorf("PACKAGE %s: not a directory (a remote package needs @version)", pkg)
	}
	return install.Server{Name: filepath.Base(dir), Command: goBin, Args: []string{"-C", dir, "run", "."}}, &goPackage{dir: dir, goBin: goBin}, nil
}

// absProgram is the absolute path of the program prog names, as PATH
// finds it; prog as it is when it is absolute or not found.
func absProgram(prog string) string {
	if filepath.IsAbs(prog) {
		return prog
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		return prog
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return prog
}

func parseEnv(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	env := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
		env[k] = v
	}
	return env, nil
}

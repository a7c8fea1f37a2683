package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/install"
)

func newInstallCmd() *cobra.Command {
	var (
		name    string
		envs    []string
		file    string
		project bool
	)
	cmd := &cobra.Command{
		Use:   "install CLIENT [PACKAGE | -- COMMAND [ARGS...]]",
		Short: "Add a stdio server to an MCP client's configuration",
		Long: `install adds a stdio server to the configuration file of an MCP client:
` + strings.Join(install.IDs(), ", ") + `.

The server is a Go main PACKAGE (default "."), which the client starts with
"go -C <dir> run ." (a path with @version, "go run PKG@VERSION"), or the
COMMAND after "--" (its program resolved to an absolute path: clients start
servers with a short PATH).

The file is the one the client documents for the OS (--project: the
project's file, for claude-code, cursor and vscode; --file: any file). It
is merged: other keys and servers are kept. Running install again with the
same entry changes nothing; a changed entry replaces the server's, after a
copy of the file to FILE.bak. mcp-json prints a generic mcp.json unless
--file is given.

install never writes through a symbolic link: a config file, FILE.bak or a
directory of the project's path that is a link (or not a regular file or
directory) is refused. A file that holds --env values is written 0600.`,
		Example: `  mcpchain install claude-desktop ./cmd/server --env API_KEY=secret
  mcpchain install vscode --project --name weather ./cmd/weather
  mcpchain install cursor -- /usr/local/bin/weather -v
  mcpchain install mcp-json ./cmd/server > mcp.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			client, ok := install.Clients[args[0]]
			if !ok {
				return fmt.Errorf("unknown client %q: want one of %s", args[0], strings.Join(install.IDs(), ", "))
			}
			before, command := args[1:], []string(nil)
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				before, command = args[1:at], args[at:]
			}
			srv, err := serverOf(before, command)
			if err != nil {
				return err
			}
			if name != "" {
				srv.Name = name
			}
			if srv.Env, err = parseEnv(envs); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if client.ID == "mcp-json" && file == "" && !project {
				b, err := client.Document(srv)
				if err != nil {
					return err
				}
				_, err = out.Write(b)
				return err
			}
			var target install.Target
			if file != "" {
				if target, err = fileTarget(file); err != nil {
					return err
				}
			} else {
				env, err := install.OSEnv()
				if err != nil {
					return err
				}
				if target, err = client.Target(env, project); err != nil {
					return err
				}
			}
			res, err := client.Write(target, srv)
			if err != nil {
				return err
			}
			switch {
			case !res.Changed && res.Tightened:
				fmt.Fprintf(out, "%s: %q is already installed in %s (unchanged; its mode is now %04o, as it holds --env values)\n", client.ID, srv.Name, res.Path, res.Mode)
			case !res.Changed:
				fmt.Fprintf(out, "%s: %q is already installed in %s (unchanged)\n", client.ID, srv.Name, res.Path)
			case res.Backup != "":
				fmt.Fprintf(out, "%s: installed %q in %s (previous file saved as %s)\n", client.ID, srv.Name, res.Path, res.Backup)
			default:
				fmt.Fprintf(out, "%s: installed %q in %s (new file)\n", client.ID, srv.Name, res.Path)
			}
			fmt.Fprintf(out, "%q: %s\n", srv.Name, res.Entry)
			if client.ID == "claude-desktop" {
				fmt.Fprintln(out, "Restart Claude Desktop to load it.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the server's name in the client (default: the package's directory or the command's name)")
	cmd.Flags().StringArrayVar(&envs, "env", nil, "an environment variable for the server, KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&file, "file", "", "write this file instead of the client's own")
	cmd.Flags().BoolVar(&project, "project", false, "write the project's file (./.mcp.json, ./.cursor/mcp.json, ./.vscode/mcp.json, ./mcp.json)")
	return cmd
}

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
// PKG@VERSION) run with go run, or the command given after "--".
func serverOf(pkgArgs, command []string) (install.Server, error) {
	if len(command) > 0 {
		if len(pkgArgs) > 0 {
			return install.Server{}, errors.New("give a PACKAGE or a command after --, not both")
		}
		prog := command[0]
		if !filepath.IsAbs(prog) {
			if p, err := exec.LookPath(prog); err == nil {
				if abs, err := filepath.Abs(p); err == nil {
					prog = abs
				}
			}
		}
		name := strings.TrimSuffix(filepath.Base(command[0]), ".exe")
		return install.Server{Name: name, Command: prog, Args: command[1:]}, nil
	}
	pkg := "."
	switch len(pkgArgs) {
	case 0:
	case 1:
		pkg = pkgArgs[0]
	default:
		return install.Server{}, fmt.Errorf("one PACKAGE at most (got %q); a command goes after --", pkgArgs)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return install.Server{}, fmt.Errorf("go not found in PATH: %w", err)
	}
	if abs, err := filepath.Abs(goBin); err == nil {
		goBin = abs
	}
	if path, _, ok := strings.Cut(pkg, "@"); ok && !strings.HasPrefix(pkg, ".") && !filepath.IsAbs(pkg) {
		return install.Server{Name: filepath.Base(path), Command: goBin, Args: []string{"run", pkg}}, nil
	}
	dir, err := filepath.Abs(pkg)
	if err != nil {
		return install.Server{}, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return install.Server{}, fmt.Errorf("PACKAGE %s: not a directory (a remote package needs @version)", pkg)
	}
	return install.Server{Name: filepath.Base(dir), Command: goBin, Args: []string{"-C", dir, "run", "."}}, nil
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

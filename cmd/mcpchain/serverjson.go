package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/serverjson"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

func newServerJSONCmd() *cobra.Command {
	var (
		tf      targetFlags
		o       serverjson.Options
		out     string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "server-json [flags] (TARGET | -- COMMAND [ARGS...])",
		Short: "Write the MCP registry's server.json for a server",
		Long: `server-json connects to a server as inspect does and writes the MCP
registry's server.json (schema ` + serverjson.Schema + `):
its version, title, icons and website come from the server's
initialize answer, the rest from the flags. Publish it with
mcp-publisher publish.

--name is the registry name (io.github.OWNER/NAME for a GitHub
namespace), required unless the server's own name has that form;
--description (1 to 100 characters) is required. Name a package
(--package-type npm|pypi|nuget|oci|mcpb --package IDENTIFIER), a
remote (--remote https://…/mcp), or both. Icons the registry does not
take (data: URIs) are left out, with a note on stderr.

` + targetHelp,
		Example: `  mcpchain server-json --name io.github.acme/weather --description "Weather forecasts" \
    --package-type oci --package ghcr.io/acme/weather:1.2.0 -o server.json -- ./weather
  mcpchain server-json --name io.github.acme/weather --description "Weather forecasts" \
    --remote https://mcp.acme.example/mcp https://mcp.acme.example/mcp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, rest, err := tf.spec(cmd, args)
			defer tf.close()
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return fmt.Errorf("unexpected arguments %q", rest)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			c, err := spec.Connect(ctx, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			d, notes, err := serverjson.Build(c.Initialize().ServerInfo, o)
			if err != nil {
				return err
			}
			for _, n := range notes {
				fmt.Fprintln(cmd.ErrOrStderr(), "mcpchain server-json: "+termtext.Clean(n))
			}
			b, err := d.JSON()
			if err != nil {
				return err
			}
			// The server's words (its title) are written as \u escapes
			// where a terminal would act on them.
			b = termtext.JSON(b)
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpchain server-json: wrote %s (%s %s)\n", out, d.Name, termtext.Clean(d.Version))
			return nil
		},
	}
	fs := cmd.Flags()
	tf.add(fs)
	fs.StringVar(&o.Name, "name", "", "the registry name, reverse-DNS with one slash (io.github.OWNER/NAME); default: the server's name when in that form")
	fs.StringVar(&o.Description, "description", "", "what the server does, 1 to 100 characters (required)")
	fs.StringVar(&o.Repository, "repository", "", "the source repository's URL (https://github.com/OWNER/REPO)")
	fs.StringVar(&o.Subfolder, "subfolder", "", "the server's directory in the repository")
	fs.StringVar(&o.Remote, "remote", "", "the public URL of the server's Streamable HTTP endpoint")
	fs.StringVar(&o.PackageType, "package-type", "", "the package's registry: npm, pypi, nuget, oci or mcpb")
	fs.StringVar(&o.Package, "package", "", "the package's identifier: its name, image reference (with tag) or mcpb URL")
	fs.StringVar(&o.PackageVersion, "package-version", "", "the package's version (npm, pypi, nuget, mcpb); default: the server's version for npm, pypi, nuget")
	fs.StringVar(&o.SHA256, "sha256", "", "the package file's SHA-256 (required for mcpb)")
	fs.StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	fs.DurationVar(&timeout, "timeout", 2*time.Minute, "give up after this long (a spawned go run may compile first)")
	return cmd
}

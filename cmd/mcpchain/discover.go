package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/install"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

func newDiscoverCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "discover [--json]",
		Short: "List the servers configured in every MCP client's files",
		Long: `discover lists the servers configured in the files install writes, for
each client it knows (` + strings.Join(install.IDs(), ", ") + `): the
user's file and the project's file in the working directory. For each:
its name, the client, its command line or URL, and the file. A file that
does not exist is skipped; one that cannot be read is reported on stderr
(and discover exits 1 after listing the others). --json prints a JSON
array of {name, client, command, args, url, path, project}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := install.OSEnv()
			if err != nil {
				return err
			}
			found, errs := install.Discover(env)
			out := cmd.OutOrStdout()
			if asJSON {
				if found == nil {
					found = []install.Configured{}
				}
				b, err := json.MarshalIndent(found, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s\n", termtext.JSON(b))
			} else if len(found) == 0 {
				fmt.Fprintln(out, "no servers configured in the files of "+strings.Join(install.IDs(), ", "))
			} else {
				w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "NAME\tCLIENT\tCOMMAND OR URL\tFILE")
				for _, s := range found {
					what := s.URL
					if what == "" {
						what = strings.Join(append([]string{s.Command}, s.Args...), " ")
					}
					client := s.Client
					if s.Project {
						client += " (project)"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termtext.Line(s.Name), client, termtext.Line(what), termtext.Line(s.Path))
				}
				if err := w.Flush(); err != nil {
					return err
				}
			}
			for _, e := range errs {
				fmt.Fprintf(cmd.ErrOrStderr(), "mcpchain: %s (%s): %s\n", e.Path, e.Client, termtext.Line(e.Err.Error()))
			}
			if len(errs) > 0 {
				return errSilent{fmt.Errorf("%d files could not be read", len(errs))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the servers as JSON")
	return cmd
}

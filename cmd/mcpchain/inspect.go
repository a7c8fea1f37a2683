package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/surface"
)

func newInspectCmd() *cobra.Command {
	var (
		tf      targetFlags
		asJSON  bool
		check   string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "inspect [flags] (TARGET | -- COMMAND [ARGS...])",
		Short: "Show a server's info, capabilities, tools, resources and prompts",
		Long: `inspect connects to a server and shows what it offers: server info,
capabilities, tools with their input and output schemas, resources,
resource templates and prompts.

--json prints the surface as stable JSON (sorted keys and lists, nothing
that changes between runs), to commit; --check FILE compares the server
with such a file and exits 1, printing the differences, when they differ.

` + targetHelp,
		Example: `  mcpchain inspect http://127.0.0.1:8000/mcp
  mcpchain inspect -- go run ./examples/everything
  mcpchain inspect --json -- go run ./server > mcp-surface.json
  mcpchain inspect --check mcp-surface.json -- go run ./server`,
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
			s, err := surface.Read(ctx, c)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if check != "" {
				b, err := os.ReadFile(check)
				if err != nil {
					return err
				}
				want, err := surface.Parse(b)
				if err != nil {
					return fmt.Errorf("%s: %w", check, err)
				}
				d := surface.Diff(want, s)
				if len(d) == 0 {
					fmt.Fprintf(out, "%s: the server's surface matches\n", check)
					return nil
				}
				fmt.Fprintf(out, "%s: the server's surface changed (%d differences; - in the file only, + in the server only, ~ changed):\n", check, len(d))
				for _, l := range d {
					fmt.Fprintln(out, "  "+l)
				}
				fmt.Fprintf(out, "update the file with: mcpchain inspect --json ... > %s\n", check)
				return errSilent{errors.New("surface changed")}
			}
			if asJSON {
				b, err := s.JSON()
				if err != nil {
					return err
				}
				_, err = out.Write(b)
				return err
			}
			s.Report(out)
			return nil
		},
	}
	tf.add(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the surface as stable JSON")
	cmd.Flags().StringVar(&check, "check", "", "compare the server with a file written by --json; exit 1 on a difference")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "give up after this long (a spawned go run may compile first)")
	return cmd
}

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/cli/args"
	"github.com/mcpchain/mcp/internal/cli/progress"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// callFlags are the flags of call, read and prompt.
type callFlags struct {
	targetFlags
	raw     bool
	timeout time.Duration
}

func (f *callFlags) add(cmd *cobra.Command) {
	f.targetFlags.add(cmd.Flags())
	cmd.Flags().BoolVar(&f.raw, "raw", false, "print the whole result as JSON")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "give up after this long (0: no limit)")
}

func (f *callFlags) context(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	if f.timeout > 0 {
		return context.WithTimeout(cmd.Context(), f.timeout)
	}
	return context.WithCancel(cmd.Context())
}

// scriptTool is the name of the script tool of package codemode
// (codemode.DefaultTool), which call --script runs.
const scriptTool = "run_script"

// maxScriptFile bounds what call --script reads: package codemode
// refuses a script over 64 KiB with its own message, and a larger file
// (a device, a log given by mistake) is not read to its end.
const maxScriptFile = 1 << 20

func newCallCmd() *cobra.Command {
	var (
		f          callFlags
		jsonArg    string
		logLevel   string
		scriptFile string
		configFile string
	)
	cmd := &cobra.Command{
		Use:   "call [flags] TARGET TOOL [KEY=VALUE ...] | call [flags] TOOL [KEY=VALUE ...] -- COMMAND [ARGS...] | call --script FILE [flags] TARGET | call --config FILE [flags] SERVER_TOOL [KEY=VALUE ...]",
		Short: "Call a tool, or run a code-mode script, and print its result",
		Long: `call calls a tool. Each KEY=VALUE is converted by the type of the
property in the tool's input schema: number, integer and boolean are
parsed, array and object values are JSON, strings stay as written.
--json '{...}' gives the arguments as a JSON object (KEY=VALUE pairs are
set on it). The tool's progress shows as a bar on a terminal, as lines
otherwise (on stderr), and its log messages as "[level] logger: message"
lines on stderr (--log-level: the lowest level shown; off for none). A
result with isError exits 1.

--script FILE runs FILE (- for stdin), a Starlark script calling the
server's tools, with the server's ` + scriptTool + ` tool (package codemode),
instead of calling a TOOL: what the script prints, then its result as
JSON. An error in the script is a result with isError, naming the line.

--config FILE takes the server from FILE, an mcp.json (as mcpchain install
and the desktop clients write it: "mcpServers" or "servers"), in place of
a TARGET: the tool is SERVER_TOOL, server SERVER's tool TOOL.

` + targetHelp,
		Example: `  mcpchain call http://127.0.0.1:8000/mcp add a=1 b=2
  mcpchain call 'go run ./examples/everything' echo message=hi
  mcpchain call longRunningOperation duration=2 steps=4 -- go run ./examples/everything
  mcpchain call -H 'Authorization: Bearer alice' http://127.0.0.1:8000/mcp whoami
  mcpchain call --script report.star http://127.0.0.1:8000/mcp
  mcpchain call --config .cursor/mcp.json github_search_issues query=bug
  echo 'result = call("add", {"a": 1, "b": 2})' | mcpchain call --script - http://127.0.0.1:8000/mcp`,
		RunE: func(cmd *cobra.Command, argv []string) error {
			spec, rest, err := f.callTarget(cmd, argv, configFile)
			defer f.close()
			if err != nil {
				return err
			}
			var src string
			if scriptFile != "" {
				if configFile != "" {
					return errors.New("--script runs on a TARGET, not with --config")
				}
				if len(rest) > 0 {
					return fmt.Errorf("--script runs the server's %s tool: give no TOOL or KEY=VALUE (got %q)", scriptTool, rest[0])
				}
				if jsonArg != "" {
					return errors.New("--script and --json: the script is the only argument of " + scriptTool)
				}
				if src, err = readScript(scriptFile, cmd.InOrStdin()); err != nil {
					return err
				}
			} else if len(rest) == 0 {
				return errors.New("missing TOOL")
			}
			logs, err := newLogPrinter(cmd.ErrOrStderr(), logLevel)
			if err != nil {
				return err
			}
			ctx, cancel := f.context(cmd)
			defer cancel()
			c, err := spec.Connect(ctx, &client.Options{OnLog: logs.print})
			if err != nil {
				return err
			}
			defer c.Close()
			setLogLevel(ctx, c, logs, cmd.ErrOrStderr())
			var tool string
			var arguments any
			if scriptFile != "" {
				tool, arguments = scriptTool, map[string]any{"script": src}
			} else {
				tool = rest[0]
				var schema json.RawMessage
				if tools, err := c.ListTools(ctx); err == nil {
					for _, t := range tools {
						if t.Name == tool && t.InputSchema != nil {
							schema, _ = json.Marshal(t.InputSchema)
						}
					}
				}
				if arguments, err = args.Tool(schema, jsonArg, rest[1:]); err != nil {
					return err
				}
			}
			errOut := cmd.ErrOrStderr()
			p := &progress.Printer{W: errOut, Bar: isTerminal(errOut)}
			res, err := c.CallTool(ctx, tool, arguments, &client.CallOptions{Progress: p.Report, AfterNotifications: true})
			p.Done()
			if err != nil {
				if scriptFile != "" && !listsTool(ctx, c, scriptTool) {
					// "Unknown tool" would not say what the server lacks.
					return fmt.Errorf("the server offers no %s tool; it needs package codemode (github.com/mcpchain/mcp/codemode): %w", scriptTool, err)
				}
				return err
			}
			out := cmd.OutOrStdout()
			if f.raw {
				if err := printJSON(out, res); err != nil {
					return err
				}
			} else {
				printContent(out, res.Content)
				if res.StructuredContent != nil && !hasText(res.Content) {
					_ = printJSON(out, res.StructuredContent)
				}
			}
			if res.IsError {
				return errSilent{errors.New("the tool returned an error")}
			}
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&jsonArg, "json", "", "the arguments as a JSON object")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "the lowest level of the tool's log messages shown on stderr (debug … emergency, or off)")
	cmd.Flags().StringVar(&configFile, "config", "", "call SERVER_TOOL, tool TOOL of server SERVER of this mcp.json, instead of a TARGET's tool")
	cmd.Flags().StringVar(&scriptFile, "script", "", "run this Starlark script (- for stdin) with the server's "+scriptTool+" tool (package codemode)")
	return cmd
}

// readScript reads the script of --script: the file name, or stdin for
// "-".
func readScript(name string, stdin io.Reader) (string, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("--script: %w", err)
		}
		defer f.Close()
		r = f
	} else {
		name = "stdin"
	}
	b, err := io.ReadAll(io.LimitReader(r, maxScriptFile+1))
	if err != nil {
		return "", fmt.Errorf("--script: reading %s: %w", name, err)
	}
	if len(b) > maxScriptFile {
		return "", fmt.Errorf("--script: %s is more than %d bytes; a script is at most 64 KiB", name, maxScriptFile)
	}
	return string(b), nil
}

// listsTool reports whether the server lists name, true when it cannot
// tell (the listing failed too). The script tool is looked for only after
// its call failed: a server with tool search may leave it out of the list
// and still run it.
func listsTool(ctx context.Context, c *client.Client, name string) bool {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return true
	}
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func newReadCmd() *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "read [flags] TARGET URI | read [flags] URI -- COMMAND [ARGS...]",
		Short: "Read a resource and print its contents",
		Long:  "read reads a resource: text contents are printed, binary ones summarized (--raw prints them base64 in JSON).\n\n" + targetHelp,
		RunE: func(cmd *cobra.Command, argv []string) error {
			spec, rest, err := f.spec(cmd, argv)
			defer f.close()
			if err != nil {
				return err
			}
			if len(rest) != 1 {
				return errors.New("want one URI")
			}
			ctx, cancel := f.context(cmd)
			defer cancel()
			c, err := spec.Connect(ctx, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.ReadResource(ctx, rest[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.raw {
				return printJSON(out, res)
			}
			for _, rc := range res.Contents {
				printResource(out, rc, len(res.Contents) > 1)
			}
			return nil
		},
	}
	f.add(cmd)
	return cmd
}

func newPromptCmd() *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "prompt [flags] TARGET NAME [KEY=VALUE ...] | prompt [flags] NAME [KEY=VALUE ...] -- COMMAND [ARGS...]",
		Short: "Render a prompt and print its messages",
		Long:  "prompt renders a prompt with the arguments (strings, as prompts take) and prints each message with its role.\n\n" + targetHelp,
		RunE: func(cmd *cobra.Command, argv []string) error {
			spec, rest, err := f.spec(cmd, argv)
			defer f.close()
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return errors.New("missing prompt NAME")
			}
			a, err := args.Strings(rest[1:])
			if err != nil {
				return err
			}
			ctx, cancel := f.context(cmd)
			defer cancel()
			c, err := spec.Connect(ctx, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.GetPrompt(ctx, rest[0], a)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.raw {
				return printJSON(out, res)
			}
			if res.Description != "" {
				fmt.Fprintf(out, "# %s\n", termtext.Line(res.Description))
			}
			for _, m := range res.Messages {
				fmt.Fprintf(out, "%s: ", termtext.Line(string(m.Role)))
				printContent(out, []mcp.Content{m.Content})
			}
			return nil
		},
	}
	f.add(cmd)
	return cmd
}

// isTerminal reports whether w is a terminal (the progress bar needs one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printJSON prints v as indented JSON, with the characters a terminal
// acts on as \u escapes (the same value).
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", termtext.JSON(b))
	return err
}

func hasText(cs []mcp.Content) bool {
	for _, c := range cs {
		if _, ok := c.(mcp.TextContent); ok {
			return true
		}
	}
	return false
}

// printContent prints text and summarizes the other items. All of it is
// the server's: what a terminal would act on is shown escaped (termtext),
// text keeps its lines, a field of a summary is on one line. --raw gives
// the exact values, as JSON.
func printContent(w io.Writer, cs []mcp.Content) {
	for _, c := range cs {
		switch c := c.(type) {
		case mcp.TextContent:
			fmt.Fprintln(w, termtext.Clean(strings.TrimRight(c.Text, "\n")))
		case mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", termtext.Line(c.MIMEType), len(c.Data))
		case mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", termtext.Line(c.MIMEType), len(c.Data))
		case mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s %s]\n", termtext.Line(c.URI), termtext.Line(c.Name))
		case mcp.EmbeddedResource:
			printResource(w, c.Resource, true)
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "[%s] %s\n", termtext.Line(c.ContentType()), termtext.JSON(b))
		}
	}
}

func printResource(w io.Writer, rc mcp.ResourceContents, header bool) {
	if header {
		fmt.Fprintf(w, "[resource %s %s]\n", termtext.Line(rc.URI), termtext.Line(rc.MIMEType))
	}
	if rc.Blob != nil {
		fmt.Fprintf(w, "[binary %s, %d bytes; --raw prints it base64: %.32s…]\n", termtext.Line(rc.MIMEType), len(rc.Blob), base64.StdEncoding.EncodeToString(rc.Blob))
		return
	}
	fmt.Fprintln(w, termtext.Clean(strings.TrimRight(rc.Text, "\n")))
}

package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// TestScriptToolName: call --script runs package codemode's script tool.
func TestScriptToolName(t *testing.T) {
	require.Equal(t, codemode.DefaultTool, scriptTool)
}

// scriptServer serves over Streamable HTTP a server with a tool double
// (structured) and a tool greet (text), and, with codeMode, code mode
// and tool search installed as docs/codemode.md shows.
func scriptServer(t *testing.T, codeMode bool) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "numbers", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "double", Description: "Twice n"},
		func(_ context.Context, _ *mcp.Context, in struct {
			N int `json:"n"`
		}) (map[string]int, error) {
			return map[string]int{"value": 2 * in.N}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	h := mcphttp.New(srv, nil)
	var handler http.Handler = h
	if codeMode {
		r, err := codemode.New(srv, nil)
		require.NoError(t, err)
		s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{codemode.DefaultTool}})
		require.NoError(t, err)
		handler = r.Middleware(s.Middleware(h))
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL
}

// TestCallScript runs mcpchain call --script against a server with code
// mode (Streamable HTTP, in this process) and one without.
func TestCallScript(t *testing.T) {
	t.Parallel()
	url := scriptServer(t, true)
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	good := write("good.star", `d = call("double", {"n": 21})
print("double:", d["value"])
print(call("greet", {"name": "Ada"}))
result = {"answer": d["value"]}
`)
	bad := write("bad.star", `d = call("double", {"n": 21})
x = d["value"] / 0
`)

	for _, c := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"file", "", []string{"call", "--script", good, url}, 0, "double: 42\nHello, Ada!\n{\"answer\":42}\n", ""},
		{"stdin", `result = call("double", {"n": 4})["value"]`, []string{"call", "--script", "-", url}, 0, "8\n", ""},
		{"error names the line", "", []string{"call", "--script", bad, url}, 1, "error at line 2: floating-point division by zero\n", ""},
		{"unknown tool in the script", "result = 1\nresult = call(\"triple\", {})\n", []string{"call", "--script", "-", url}, 1, "error at line 2: triple: Unknown tool: \"triple\"", ""},
		{"file unreadable", "", []string{"call", "--script", filepath.Join(dir, "missing.star"), url}, 1, "", "mcpchain: --script: open " + filepath.Join(dir, "missing.star") + ": no such file or directory\n"},
		{"a directory", "", []string{"call", "--script", dir, url}, 1, "", "mcpchain: --script: reading " + dir + ": read " + dir + ": is a directory\n"},
		{"with a TOOL", "", []string{"call", "--script", good, url, "double", "n=1"}, 1, "", "mcpchain: --script runs the server's run_script tool: give no TOOL or KEY=VALUE (got \"double\")\n"},
		{"with --json", "", []string{"call", "--script", good, "--json", "{}", url}, 1, "", "mcpchain: --script and --json: the script is the only argument of run_script\n"},
		{"too long", strings.Repeat("#", maxScriptFile+1), []string{"call", "--script", "-", url}, 1, "", "mcpchain: --script: stdin is more than 1048576 bytes; a script is at most 64 KiB\n"},
		{"no code mode", "", []string{"call", "--script", good, scriptServer(t, false)}, 1, "", "mcpchain: the server offers no run_script tool; it needs package codemode (github.com/mcpchain/mcp/codemode): "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runInput(t, strings.NewReader(c.stdin), "", "", c.args...)
			require.Equal(t, c.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			if c.code == 0 {
				require.Equal(t, c.stdout, r.stdout)
			} else {
				require.Contains(t, r.stdout, c.stdout)
			}
			if c.stderr == "" {
				require.Empty(t, r.stderr)
			} else {
				require.Contains(t, r.stderr, c.stderr)
			}
		})
	}

	t.Run("raw", func(t *testing.T) {
		r := run(t, "", "", "call", "--raw", "--script", good, url)
		require.Equal(t, 0, r.code, r.stderr)
		var res struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		require.False(t, res.IsError)
		require.Len(t, res.Content, 2)
		require.Equal(t, "double: 42\nHello, Ada!\n", res.Content[0].Text)
		require.Equal(t, map[string]any{"result": map[string]any{"answer": float64(42)}}, res.StructuredContent)
	})
}

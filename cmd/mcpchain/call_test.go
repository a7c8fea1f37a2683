package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCall runs mcpchain call, read and prompt against
// examples/everything over stdio and Streamable HTTP.
func TestCall(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	for _, tc := range []struct {
		name   string
		target func(args ...string) []string
	}{
		{"stdio", func(args ...string) []string { return append(args, "--", everything) }},
		{"http", func(args ...string) []string { return append([]string{args[0], url}, args[1:]...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				name   string
				args   []string
				code   int
				stdout string
				stderr string
			}{
				{"numbers by schema", []string{"call", "add", "a=1", "b=2.5"}, 0, "3.5\n", ""},
				{"string", []string{"call", "echo", "text=42"}, 0, "42\n", ""},
				{"--json", []string{"call", "--json", `{"a":2,"b":3}`, "add"}, 0, "5\n", ""},
				{"--json and key=value", []string{"call", "--json", `{"a":2,"b":3}`, "add", "b=10"}, 0, "12\n", ""},
				{"bad number", []string{"call", "add", "a=x", "b=1"}, 1, "", "mcpchain: argument a: \"x\" is not a number\n"},
				{"tool error exits 1", []string{"call", "fail_user"}, 1, "this is a user error\n", ""},
				{"unknown tool", []string{"call", "nope"}, 1, "", "-32602"},
				// The tool's log line may land between two progress lines (TestCallPrintsLogs checks logs).
				{"progress as lines off a terminal", []string{"call", "--log-level", "off", "progress"}, 0, "", "progress 1/3 step 1\nprogress 2/3 step 2\nprogress 3/3 step 3\n"},
				{"structured content", []string{"call", "dice", "seed=7"}, 0, `"sides":6`, ""},
				{"read", []string{"read", "file:///hello.txt"}, 0, "hello\n", ""},
				{"read template", []string{"read", "greeting://Ada"}, 0, "Ada", ""},
				{"prompt", []string{"prompt", "greet", "name=Bob"}, 0, "user: Please greet Bob warmly.\n", ""},
			} {
				t.Run(c.name, func(t *testing.T) {
					r := run(t, "", "", tc.target(c.args...)...)
					require.Equal(t, c.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
					require.Contains(t, r.stdout, c.stdout)
					require.Contains(t, r.stderr, c.stderr)
				})
			}
		})
	}

	t.Run("raw", func(t *testing.T) {
		r := run(t, "", "", "call", "--raw", url, "add", "a=1", "b=2")
		require.Equal(t, 0, r.code, r.stderr)
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
		require.Equal(t, []any{map[string]any{"type": "text", "text": "3"}}, res["content"])
	})
	t.Run("headers", func(t *testing.T) {
		r := run(t, "", "", "call", "-H", "Authorization: Bearer alice", url, "whoami")
		require.Equal(t, 0, r.code, r.stderr)
		require.Contains(t, r.stdout, `"subject":"alice"`)
		r = run(t, "", "", "call", "-H", "bad header", url, "whoami")
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, `header "bad header": want "Name: value"`)
		r = run(t, "", "", "call", "-H", "A: b", "whoami", "--", everything)
		require.Equal(t, 1, r.code)
		require.Contains(t, r.stderr, "-H applies to an http(s) TARGET only")
	})
}

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestCallPrintsLogs: the log messages a tool sends while it runs are
// printed on stderr, before the result, at --log-level and above (info
// by default), over stdio and HTTP; off prints none.
func TestCallPrintsLogs(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	const started = `[info] progress: progress started {"steps":3}` + "\n"
	const finished = "[debug] progress: progress finished\n"
	for _, target := range []struct {
		name string
		args func(flags ...string) []string
	}{
		{"stdio", func(flags ...string) []string {
			return append(append([]string{"call"}, flags...), "progress", "--", everything)
		}},
		{"http", func(flags ...string) []string {
			return append(append([]string{"call"}, flags...), url, "progress")
		}},
	} {
		t.Run(target.name, func(t *testing.T) {
			r := run(t, "", "", target.args()...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, "done\n", r.stdout)
			require.Contains(t, r.stderr, started)
			require.NotContains(t, r.stderr, finished, "debug is below the default level")

			r = run(t, "", "", target.args("--log-level", "debug")...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stderr, started)
			require.Contains(t, r.stderr, finished)

			r = run(t, "", "", target.args("--log-level", "warning")...)
			require.Equal(t, 0, r.code, r.stderr)
			require.NotContains(t, r.stderr, "[info]")

			r = run(t, "", "", target.args("--log-level", "off")...)
			require.Equal(t, 0, r.code, r.stderr)
			require.NotContains(t, r.stderr, "progress started")
			require.NotContains(t, r.stderr, "[debug]")
		})
	}
	r := run(t, "", "", "call", "--log-level", "loud", url, "progress")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `--log-level "loud": want off or one of debug, info, notice, warning, error, critical, alert, emergency`)
}

// TestLogText: each shape of a log message's data as one line, the
// server's characters escaped.
func TestLogText(t *testing.T) {
	var b bytes.Buffer
	p, err := newLogPrinter(&b, "INFO")
	require.NoError(t, err)
	for _, m := range []mcp.LogMessage{
		{Level: mcp.LevelInfo, Logger: "db", Data: map[string]any{"message": "connected"}},
		{Level: mcp.LevelWarning, Data: map[string]any{"message": "slow", "context": map[string]any{"ms": 900}}},
		{Level: mcp.LevelError, Logger: "x\x1b[2K", Data: "two\nlines"},
		{Level: mcp.LevelNotice, Data: map[string]any{"other": true}},
		{Level: mcp.LevelInfo, Data: []any{1, "\x1b"}},
		{Level: mcp.LevelDebug, Data: "hidden"},
	} {
		p.print(m)
	}
	require.Equal(t, `[info] db: connected
[warning] slow {"ms":900}
[error] x\x1b[2K: two\x0alines
[notice] {"other":true}
[info] [1,"\u001b"]
`, b.String())
}

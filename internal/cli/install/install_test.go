package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPaths(t *testing.T) {
	env := func(goos string, vars map[string]string) Env {
		return Env{GOOS: goos, Home: "/h", Dir: "/p", Getenv: func(k string) string { return vars[k] }}
	}
	j := filepath.Join
	for _, tc := range []struct {
		client  string
		env     Env
		project bool
		want    string
	}{
		{"claude-desktop", env("linux", nil), false, j("/h", ".config", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("linux", map[string]string{"XDG_CONFIG_HOME": "/x"}), false, j("/x", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("darwin", nil), false, j("/h", "Library", "Application Support", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("windows", map[string]string{"APPDATA": "/ad"}), false, j("/ad", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", env("windows", nil), false, j("/h", "AppData", "Roaming", "Claude", "claude_desktop_config.json")},
		{"claude-code", env("linux", nil), false, j("/h", ".claude.json")},
		{"claude-code", env("windows", nil), false, j("/h", ".claude.json")},
		{"claude-code", env("darwin", nil), true, j("/p", ".mcp.json")},
		{"cursor", env("darwin", nil), false, j("/h", ".cursor", "mcp.json")},
		{"cursor", env("linux", nil), true, j("/p", ".cursor", "mcp.json")},
		{"vscode", env("linux", nil), false, j("/h", ".config", "Code", "User", "mcp.json")},
		{"vscode", env("darwin", nil), false, j("/h", "Library", "Application Support", "Code", "User", "mcp.json")},
		{"vscode", env("windows", map[string]string{"APPDATA": "/ad"}), false, j("/ad", "Code", "User", "mcp.json")},
		{"vscode", env("linux", nil), true, j("/p", ".vscode", "mcp.json")},
		{"mcp-json", env("linux", nil), false, j("/p", "mcp.json")},
		{"gemini", env("linux", nil), false, j("/h", ".gemini", "settings.json")},
		{"gemini", env("windows", nil), false, j("/h", ".gemini", "settings.json")},
		{"gemini", env("darwin", nil), true, j("/p", ".gemini", "settings.json")},
		{"goose", env("linux", nil), false, j("/h", ".config", "goose", "config.yaml")},
		{"goose", env("linux", map[string]string{"XDG_CONFIG_HOME": "/x"}), false, j("/x", "goose", "config.yaml")},
		{"goose", env("darwin", nil), false, j("/h", ".config", "goose", "config.yaml")},
		{"goose", env("windows", map[string]string{"APPDATA": "/ad"}), false, j("/ad", "Block", "goose", "config", "config.yaml")},
	} {
		t.Run(tc.client+"/"+tc.env.GOOS, func(t *testing.T) {
			got, err := Clients[tc.client].Path(tc.env, tc.project)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := Clients["claude-desktop"].Path(env("linux", nil), true)
	require.ErrorContains(t, err, "no project configuration file")
}

var srv = Server{Name: "weather", Command: "/usr/bin/weather", Args: []string{"-v"}, Env: map[string]string{"KEY": "1"}}

// TestDocuments checks the exact shape each client documents.
func TestDocuments(t *testing.T) {
	for _, tc := range []struct{ client, want string }{
		{"claude-desktop", `{"mcpServers":{"weather":{"command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
		{"claude-code", `{"mcpServers":{"weather":{"type":"stdio","command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
		{"cursor", `{"mcpServers":{"weather":{"command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
		{"vscode", `{"servers":{"weather":{"type":"stdio","command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
		{"mcp-json", `{"mcpServers":{"weather":{"command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
		{"gemini", `{"mcpServers":{"weather":{"command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}}}`},
	} {
		t.Run(tc.client, func(t *testing.T) {
			b, err := Clients[tc.client].Document(srv)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(b))
		})
	}
	b, err := Clients["cursor"].Document(Server{Name: "n", Command: "c"})
	require.NoError(t, err)
	require.JSONEq(t, `{"mcpServers":{"n":{"command":"c","args":[]}}}`, string(b), "no env member without --env")
}

func TestMergeKeepsEverythingElse(t *testing.T) {
	old := `{"numStartups": 7, "mcpServers": {"other": {"command": "x", "custom": [1, 2]}, "weather": {"command": "old"}}, "theme": "dark"}`
	b, err := Clients["claude-code"].Merge([]byte(old), srv)
	require.NoError(t, err)
	require.JSONEq(t, `{"numStartups":7,"mcpServers":{"other":{"command":"x","custom":[1,2]},
		"weather":{"type":"stdio","command":"/usr/bin/weather","args":["-v"],"env":{"KEY":"1"}}},"theme":"dark"}`, string(b))
	require.Regexp(t, `(?s)"numStartups".*"mcpServers".*"other".*"weather".*"theme"`, string(b), "member order kept")

	_, err = Clients["vscode"].Merge([]byte("// comment\n{}"), srv)
	require.ErrorContains(t, err, "not a JSON object")
	_, err = Clients["vscode"].Merge([]byte(`{"servers": 3}`), srv)
	require.ErrorContains(t, err, `"servers"`)
}

func TestWriteIdempotentWithBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "mcp.json")
	target := Target{Dir: dir, Name: filepath.Join("sub", "mcp.json")}
	c := Clients["vscode"]

	res, err := c.Write(target, srv)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Empty(t, res.Backup, "no backup of a file that did not exist")
	first, err := os.ReadFile(path)
	require.NoError(t, err)

	res, err = c.Write(target, srv)
	require.NoError(t, err)
	require.False(t, res.Changed, "same entry: nothing written")
	require.NoFileExists(t, path+".bak")

	changed := srv
	changed.Args = []string{"-v", "-x"}
	res, err = c.Write(target, changed)
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.Equal(t, path+".bak", res.Backup)
	bak, err := os.ReadFile(path + ".bak")
	require.NoError(t, err)
	require.Equal(t, string(first), string(bak))
	var doc map[string]map[string]map[string]any
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, []any{"-v", "-x"}, doc["servers"]["weather"]["args"])
}

// FuzzMerge: any existing file is merged or refused, never a panic, and a
// merged file is JSON that holds the entry.
func FuzzMerge(f *testing.F) {
	f.Add(`{"mcpServers":{"a":{}}}`)
	f.Add(`{"mcpServers":[]}`)
	f.Add(`{"a":1,"a":2}`)
	f.Add(`{} {}`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, file string) {
		c := Clients["cursor"]
		b, err := c.Merge([]byte(file), srv)
		if err != nil {
			return
		}
		var doc map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &doc))
		require.True(t, c.has(b, srv), "merged file holds the entry: %s", b)
	})
}

// FuzzGooseMerge: any existing config.yaml is merged or refused, never a
// panic; a merged file holds the entry, and discover reads it back.
func FuzzGooseMerge(f *testing.F) {
	f.Add("extensions:\n  a: {}\n")
	f.Add("extensions: [1]\n")
	f.Add("a: &x [*x]\n")
	f.Add("# only a comment\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, file string) {
		c := Clients["goose"]
		_, _ = c.serversYAML([]byte(file))
		b, err := c.Merge([]byte(file), srv)
		if err != nil {
			return
		}
		require.True(t, c.has(b, srv), "merged file holds the entry: %s", b)
		servers, err := c.servers(b)
		require.NoError(t, err)
		require.NotEmpty(t, servers)
	})
}

// TestGooseYAML: Goose's config.yaml gets the extension in the shape goose
// configure writes, every other key, extension and comment kept; the same
// entry again is no change.
func TestGooseYAML(t *testing.T) {
	const old = `# my goose settings
GOOSE_PROVIDER: anthropic
extensions:
  developer:
    bundled: true
    enabled: true # always
    name: developer
    timeout: 300
    type: builtin
GOOSE_MODEL: claude
`
	g := Clients["goose"]
	b, err := g.Merge([]byte(old), srv)
	require.NoError(t, err)
	require.Equal(t, `# my goose settings
GOOSE_PROVIDER: anthropic
extensions:
  developer:
    bundled: true
    enabled: true # always
    name: developer
    timeout: 300
    type: builtin
  weather:
    name: weather
    type: stdio
    cmd: /usr/bin/weather
    args:
      - -v
    envs:
      KEY: "1"
    enabled: true
    timeout: 300
GOOSE_MODEL: claude
`, string(b))
	require.True(t, g.has(b, srv))
	require.False(t, g.has([]byte(old), srv))
	servers, err := g.servers(b)
	require.NoError(t, err)
	require.Len(t, servers, 2)
	require.JSONEq(t, `{"name":"weather","type":"stdio","cmd":"/usr/bin/weather","args":["-v"],"envs":{"KEY":"1"},"enabled":true,"timeout":300}`, string(servers[1].value))

	b, err = g.Merge([]byte("extensions:\n"), srv)
	require.NoError(t, err)
	require.True(t, g.has(b, srv))
	b, err = g.Merge(nil, srv)
	require.NoError(t, err)
	require.True(t, g.has(b, srv))

	_, err = g.Merge([]byte("- a list\n"), srv)
	require.ErrorContains(t, err, "not a YAML mapping")
	_, err = g.Merge([]byte("extensions: [1]\n"), srv)
	require.ErrorContains(t, err, `"extensions" is not a mapping`)
	_, err = g.Merge([]byte("a: [\n"), srv)
	require.ErrorContains(t, err, "not valid YAML")
}

// TestDescribeEntry reads the command or URL of each client's shape.
func TestDescribeEntry(t *testing.T) {
	for _, tc := range []struct{ entry, command, url string }{
		{`{"command":"/bin/w","args":["-v"]}`, "/bin/w -v", ""},
		{`{"type":"stdio","cmd":"/bin/w","args":["-v"],"enabled":true}`, "/bin/w -v", ""},
		{`{"command":["/bin/w","-v"]}`, "/bin/w -v", ""},
		{`{"httpUrl":"https://h/mcp"}`, "", "https://h/mcp"},
		{`{"type":"http","url":"https://h/mcp"}`, "", "https://h/mcp"},
		{`{"type":"streamable_http","uri":"https://h/mcp"}`, "", "https://h/mcp"},
		{`"not an object"`, "", ""},
	} {
		s := describeEntry(json.RawMessage(tc.entry))
		got := s.Command
		for _, a := range s.Args {
			got += " " + a
		}
		require.Equal(t, tc.command, got, tc.entry)
		require.Equal(t, tc.url, s.URL, tc.entry)
	}
}

package mcpjson_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client/mcpjson"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		want []mcpjson.Server
	}{
		{"install's generic mcp.json",
			`{"mcpServers": {"hello": {"command": "/bin/hello", "args": ["-v"], "env": {"K": "v"}}}}`,
			[]mcpjson.Server{{Name: "hello", Type: "stdio", Command: "/bin/hello", Args: []string{"-v"}, Env: map[string]string{"K": "v"}}}},
		{"Claude Code's type stdio",
			`{"numStartups": 3, "mcpServers": {"hello": {"type": "stdio", "command": "hello", "args": []}}}`,
			[]mcpjson.Server{{Name: "hello", Type: "stdio", Command: "hello", Args: []string{}}}},
		{"VS Code's servers, ordered by name",
			`{"inputs": [], "servers": {"zeta": {"type": "stdio", "command": "z"}, "alpha": {"type": "http", "url": "https://a.example/mcp"}}}`,
			[]mcpjson.Server{{Name: "alpha", Type: "http", URL: "https://a.example/mcp"}, {Name: "zeta", Type: "stdio", Command: "z"}}},
		{"both keys together",
			`{"mcpServers": {"b": {"command": "b"}}, "servers": {"a": {"command": "a"}}}`,
			[]mcpjson.Server{{Name: "a", Type: "stdio", Command: "a"}, {Name: "b", Type: "stdio", Command: "b"}}},
		{"a URL without a type is Streamable HTTP, headers kept",
			`{"mcpServers": {"docs": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer t"}}}}`,
			[]mcpjson.Server{{Name: "docs", Type: "http", URL: "http://127.0.0.1:8000/mcp", Headers: map[string]string{"Authorization": "Bearer t"}}}},
		{"Gemini's httpUrl, streamable-http, sse, cwd",
			`{"mcpServers": {"g": {"httpUrl": "https://g.example/mcp"}, "s": {"transport": "sse", "url": "https://s.example/sse"}, "h": {"type": "streamable-http", "url": "https://h.example/"}, "c": {"command": "c", "cwd": "/tmp"}}}`,
			[]mcpjson.Server{{Name: "c", Type: "stdio", Command: "c", Cwd: "/tmp"}, {Name: "g", Type: "http", URL: "https://g.example/mcp"}, {Name: "h", Type: "http", URL: "https://h.example/"}, {Name: "s", Type: "sse", URL: "https://s.example/sse"}}},
		{"unknown members ignored, disabled kept",
			`{"mcpServers": {"x-1": {"command": "x", "alwaysAllow": ["a"], "timeout": 60, "disabled": true, "description": {"nested": 1}}}, "other": [1]}`,
			[]mcpjson.Server{{Name: "x-1", Type: "stdio", Command: "x", Disabled: true}}},
		{"no servers", `{"mcpServers": {}}`, nil},
		{"no expansion", `{"mcpServers": {"e": {"command": "${HOME}/bin/e", "env": {"T": "${TOKEN}"}}}}`,
			[]mcpjson.Server{{Name: "e", Type: "stdio", Command: "${HOME}/bin/e", Env: map[string]string{"T": "${TOKEN}"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := mcpjson.Parse([]byte(tt.file))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Servers)
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"not JSON", `{"mcpServers": `, "not a JSON object: unexpected EOF"},
		{"JSON with comments", "{// VS Code\n\"servers\": {}}", "not a JSON object: invalid character '/'"},
		{"an array", `[]`, "not a JSON object: found an array"},
		{"trailing data", `{"mcpServers": {}} {}`, "something follows the object"},
		{"no servers key", `{"other": {}}`, `neither "mcpServers" nor "servers"`},
		{"servers not an object", `{"mcpServers": []}`, `"mcpServers" is not an object of servers: found an array`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `server "": a server's name is empty`},
		{"underscore in name", `{"mcpServers": {"my_server": {"command": "x"}}}`, `server "my_server": the name prefixes the server's tools (name_tool), so it is ASCII letters, digits and hyphens only: rename it ('_' is not one)`},
		{"dot in name", `{"mcpServers": {"a.b": {"command": "x"}}}`, `server "a.b": the name prefixes`},
		{"long name", `{"mcpServers": {"` + string(make65()) + `": {"command": "x"}}}`, "longer than 64"},
		{"duplicate name", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, `key "a" appears twice`},
		{"name under both keys", `{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`, `server "a" is configured twice (in "mcpServers" and "servers")`},
		{"null entry", `{"mcpServers": {"a": null}}`, `server "a": the entry is null`},
		{"entry not an object", `{"mcpServers": {"a": "x"}}`, `server "a": the entry is not valid`},
		{"command and url", `{"mcpServers": {"a": {"command": "x", "url": "https://a.example"}}}`, `server "a": the entry has both a command and a URL`},
		{"neither", `{"mcpServers": {"a": {"args": ["x"]}}}`, `server "a": the entry has neither "command" nor "url"`},
		{"unknown transport", `{"mcpServers": {"a": {"type": "websocket", "url": "wss://a.example"}}}`, `server "a": unknown transport "websocket"`},
		{"type and transport disagree", `{"mcpServers": {"a": {"type": "http", "transport": "sse", "url": "https://a.example"}}}`, `the entry has both "type" and "transport"`},
		{"stdio with a url", `{"mcpServers": {"a": {"type": "stdio", "url": "https://a.example"}}}`, `server "a": a stdio server has no URL`},
		{"stdio with empty command", `{"mcpServers": {"a": {"command": ""}}}`, `server "a": a stdio server needs a "command"`},
		{"http without a url", `{"mcpServers": {"a": {"type": "http", "url": ""}}}`, `server "a": an http server needs a "url"`},
		{"http with args", `{"mcpServers": {"a": {"url": "https://a.example", "args": ["x"]}}}`, "has no command, args, env or cwd"},
		{"url not http", `{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}`, `url "file:///etc/passwd" is not an http or https URL`},
		{"url and httpUrl", `{"mcpServers": {"a": {"url": "https://a.example", "httpUrl": "https://b.example"}}}`, `the entry has both "url" and "httpUrl"`},
		{"bad header name", `{"mcpServers": {"a": {"url": "https://a.example", "headers": {"X Y": "v"}}}}`, `header name "X Y" is not valid`},
		{"header with a newline", `{"mcpServers": {"a": {"url": "https://a.example", "headers": {"X": "v\r\nY: w"}}}}`, `header "X" holds a line break`},
		{"stdio with headers", `{"mcpServers": {"a": {"command": "x", "headers": {"X": "v"}}}}`, "a stdio server has no headers"},
		{"null env value", `{"mcpServers": {"a": {"command": "x", "env": {"K": null}}}}`, `env "K" is null`},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, `server "a": the entry is not valid`},
		{"command as an array", `{"mcpServers": {"a": {"command": ["x"]}}}`, `server "a": the entry is not valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := mcpjson.Parse([]byte(tt.file))
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "mcpjson: ")
		})
	}
}

func make65() []byte {
	b := make([]byte, 65)
	for i := range b {
		b[i] = 'a'
	}
	return b
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600))
	cfg, err := mcpjson.Load(path)
	require.NoError(t, err)
	require.NotNil(t, cfg.Lookup("a"))
	assert.Equal(t, "x", cfg.Lookup("a").Command)
	assert.Nil(t, cfg.Lookup("b"))

	_, err = mcpjson.Load(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"mcpServers": {"a_b": {"command": "x"}}}`), 0o600))
	_, err = mcpjson.Load(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+`: mcpjson: server "a_b"`)

	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, 8<<20+1), 0o600))
	_, err = mcpjson.Load(big)
	assert.ErrorContains(t, err, "larger than")
}

// FuzzParse checks that Parse never panics, and that what it accepts
// holds only servers a gateway can mount and a transport can reach.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"hello": {"command": "/bin/hello", "args": ["-v"], "env": {"K": "v"}}}}`,
		`{"servers": {"a": {"type": "http", "url": "https://a.example/mcp", "headers": {"A": "b"}}}}`,
		`{"mcpServers": {"s": {"transport": "sse", "url": "http://x/sse"}}, "servers": {"g": {"httpUrl": "https://g/"}}}`,
		`{"mcpServers": {"a_b": {"command": "x"}}}`,
		`{"mcpServers": {"a": null}}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := mcpjson.Parse(data)
		if err != nil {
			return
		}
		for i, s := range cfg.Servers {
			if i > 0 && cfg.Servers[i-1].Name >= s.Name {
				t.Fatalf("servers not ordered: %q before %q", cfg.Servers[i-1].Name, s.Name)
			}
			if s.Name == "" || len(s.Name) > 64 {
				t.Fatalf("name %q accepted", s.Name)
			}
			if server, tool, _ := mcpjson.Split(s.Name + mcpjson.Separator + "x_y"); server != s.Name || tool != "x_y" {
				t.Fatalf("name %q does not split", s.Name)
			}
			switch s.Type {
			case mcpjson.TypeStdio:
				if s.Command == "" {
					t.Fatalf("stdio server %q without a command", s.Name)
				}
			case mcpjson.TypeHTTP, mcpjson.TypeSSE:
				if s.URL == "" {
					t.Fatalf("%s server %q without a URL", s.Type, s.Name)
				}
			default:
				t.Fatalf("server %q of type %q", s.Name, s.Type)
			}
			if s.Transport() == nil {
				t.Fatalf("server %q has no transport", s.Name)
			}
		}
	})
}

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/cli/serverjson/schemacheck"
)

// TestServerJSON: the server.json mcpchain writes for examples/everything
// validates against the registry's published schema, over stdio and
// HTTP, to stdout and to a file; a missing or bad flag fails with a
// message naming it.
func TestServerJSON(t *testing.T) {
	t.Parallel()
	schema, err := schemacheck.Load(schemacheck.Path())
	require.NoError(t, err)
	url := startEverything(t)
	flags := []string{"server-json", "--name", "io.github.mcpchain/everything", "--description", "A test server with every kind of tool, resource and prompt.",
		"--repository", "https://github.com/mcpchain/mcp", "--subfolder", "examples/everything"}
	dir := t.TempDir()
	file := filepath.Join(dir, "server.json")
	for _, tc := range []struct {
		name string
		args []string
		file bool
	}{
		{"stdio, oci package", append(append([]string{}, flags...), "--package-type", "oci", "--package", "ghcr.io/mcpchain/everything:1.0.0", "--", everything), false},
		{"http, remote", append(append([]string{}, flags...), "--remote", "https://mcp.example.com/mcp", url), false},
		{"to a file, npm and remote", append(append([]string{}, flags...), "--package-type", "npm", "--package", "@mcpchain/everything", "--remote", "https://mcp.example.com/mcp", "-o", file, everything), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", "", tc.args...)
			require.Equal(t, 0, r.code, r.stderr)
			b := []byte(r.stdout)
			if tc.file {
				require.Empty(t, r.stdout)
				require.Contains(t, r.stderr, "wrote "+file+" (io.github.mcpchain/everything 1.0.0)")
				b, err = os.ReadFile(file)
				require.NoError(t, err)
			}
			require.NoError(t, schemacheck.Check(schema, b), "%s", b)
			var d map[string]any
			require.NoError(t, json.Unmarshal(b, &d))
			require.Equal(t, "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json", d["$schema"])
			require.Equal(t, "io.github.mcpchain/everything", d["name"])
			require.Equal(t, "1.0.0", d["version"], "the server's own version")
			require.Equal(t, "https://github.com/mcpchain/mcp", d["websiteUrl"], "the server's own website")
			require.NotContains(t, string(b), "data:", "everything's data: icon is left out")
			require.Contains(t, r.stderr, "icon 1 left out: the registry takes https: icons only")
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"server-json", "--description", "d", everything}, `the server's name "everything" is not a registry name`},
		{"no description", []string{"server-json", "--name", "io.github.a/b", everything}, "--description must have 1 to 100 characters, not 0"},
		{"bad package type", []string{"server-json", "--name", "io.github.a/b", "--description", "d", "--package-type", "cargo", "--package", "x", everything}, `--package-type "cargo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", "", tc.args...)
			require.Equal(t, 1, r.code)
			require.Contains(t, r.stderr, tc.want)
			require.Empty(t, r.stdout)
		})
	}
}

// TestServerCardMatchesInspect: the server card examples/everything
// serves says what inspect --json reports of the same server (version,
// title, icons, website, and the revision the client spoke among the
// remote's), so the card and the surface cannot drift apart unnoticed.
// The card's name is the registry name, which serverInfo cannot carry.
func TestServerCardMatchesInspect(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	resp, err := http.Get(url + "/server-card")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.Equal(t, "application/mcp-server-card+json", resp.Header.Get("Content-Type"))
	var card map[string]any
	require.NoError(t, json.Unmarshal(body, &card))

	r := run(t, "", "", "inspect", "--json", url)
	require.Equal(t, 0, r.code, r.stderr)
	var s struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Server          map[string]any `json:"server"`
		Tools           []any          `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
	require.NotEmpty(t, s.Tools)

	require.Equal(t, "io.github.mcpchain/everything", card["name"])
	require.Equal(t, "everything", s.Server["name"])
	for _, k := range []string{"version", "title", "icons", "websiteUrl"} {
		require.Equal(t, s.Server[k], card[k], "the card's %s is serverInfo's", k)
	}
	require.NotNil(t, card["icons"])
	remotes := card["remotes"].([]any)
	require.Len(t, remotes, 1)
	remote := remotes[0].(map[string]any)
	require.Equal(t, url, remote["url"])
	require.Contains(t, remote["supportedProtocolVersions"], s.ProtocolVersion)
	for _, k := range []string{"tools", "resources", "prompts", "capabilities"} {
		require.NotContains(t, card, k, "the card lists no primitives (SEP-2127 draft)")
	}
}

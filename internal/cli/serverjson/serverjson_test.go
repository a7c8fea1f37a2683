package serverjson_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/cli/serverjson"
	"github.com/mcpchain/mcp/internal/cli/serverjson/schemacheck"
)

// schemaFile is the registry's published schema (testdata/registry/README.md).
const schemaFile = "testdata/registry/server.schema.json"

func loadSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	rs, err := schemacheck.Load(schemaFile)
	require.NoError(t, err)
	return rs
}

// TestSchemaIsThePublishedFile: the shipped schema is byte for byte the
// one the registry published, and the one Build's documents name.
func TestSchemaIsThePublishedFile(t *testing.T) {
	b, err := os.ReadFile(schemaFile)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	require.Equal(t, "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0", hex.EncodeToString(sum[:]))
	var s struct {
		ID string `json:"$id"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, serverjson.Schema, s.ID)
	p, err := filepath.Abs(schemaFile)
	require.NoError(t, err)
	require.Equal(t, p, filepath.Clean(schemacheck.Path()), "schemacheck reads the same file")
}

// TestBuild: every document Build writes validates against the
// registry's schema; every option it refuses is named in the error.
func TestBuild(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	info := mcp.Implementation{
		Name: "everything", Title: "Everything", Version: "1.0.0", WebsiteURL: "https://github.com/mcpchain/mcp",
		Icons: []mcp.Icon{
			{Src: "https://example.com/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}},
			{Src: "data:image/png;base64,AAAA", MIMEType: "image/png"},
			{Src: "https://example.com/i.gif", MIMEType: "image/gif"},
		},
	}
	sha := strings.Repeat("ab", 32)
	base := serverjson.Options{Name: "io.github.mcpchain/everything", Description: "A test server"}
	with := func(f func(*serverjson.Options)) serverjson.Options { o := base; f(&o); return o }
	for _, tc := range []struct {
		name  string
		info  mcp.Implementation
		o     serverjson.Options
		want  string // a member of the document, or the error
		notes int
		err   bool
	}{
		{name: "minimal", info: info, o: base, want: `"name": "io.github.mcpchain/everything"`, notes: 3},
		{name: "remote", info: info, o: with(func(o *serverjson.Options) { o.Remote = "https://mcp.example.com/mcp" }), want: `"type": "streamable-http"`, notes: 2},
		{name: "npm defaults to the server's version", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package = "npm", "@acme/everything" }), want: `"version": "1.0.0",
      "transport"`, notes: 2},
		{name: "pypi with its version", info: info, o: with(func(o *serverjson.Options) {
			o.PackageType, o.Package, o.PackageVersion = "pypi", "everything", "2.0.0"
		}), want: `"version": "2.0.0"`, notes: 2},
		{name: "oci", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package = "oci", "ghcr.io/mcpchain/everything:1.0.0" }), want: `"registryType": "oci"`, notes: 2},
		{name: "mcpb", info: info, o: with(func(o *serverjson.Options) {
			o.PackageType, o.Package, o.SHA256 = "mcpb", "https://github.com/mcpchain/mcp/releases/download/v1.0.0/everything.mcpb", sha
		}), want: `"fileSha256": "` + sha + `"`, notes: 2},
		{name: "repository", info: info, o: with(func(o *serverjson.Options) {
			o.Repository, o.Subfolder = "https://github.com/mcpchain/mcp", "/examples/everything/"
		}), want: `"subfolder": "examples/everything"`, notes: 3},
		{name: "name from the server", info: mcp.Implementation{Name: "io.example/w", Version: "1.0.0"}, o: serverjson.Options{Description: "d"}, want: `"name": "io.example/w"`, notes: 1},
		{name: "data icon only", info: mcp.Implementation{Name: "io.example/w", Version: "1.0.0", Icons: []mcp.Icon{{Src: "data:image/png;base64,AAAA"}}}, o: serverjson.Options{Description: "d"}, want: `"version": "1.0.0"`, notes: 2},

		{name: "server name not a registry name", info: info, o: serverjson.Options{Description: "d"}, want: `the server's name "everything" is not a registry name`, err: true},
		{name: "bad name", info: info, o: with(func(o *serverjson.Options) { o.Name = "a/b/c" }), want: `--name "a/b/c"`, err: true},
		{name: "no description", info: info, o: with(func(o *serverjson.Options) { o.Description = "" }), want: "--description must have 1 to 100 characters, not 0", err: true},
		{name: "long description", info: info, o: with(func(o *serverjson.Options) { o.Description = strings.Repeat("x", 101) }), want: "not 101", err: true},
		{name: "version range", info: mcp.Implementation{Name: "io.example/w", Version: "^1.0.0"}, o: serverjson.Options{Description: "d"}, want: `version "^1.0.0"`, err: true},
		{name: "remote not http", info: info, o: with(func(o *serverjson.Options) { o.Remote = "ftp://x" }), want: `--remote "ftp://x"`, err: true},
		{name: "npm latest", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package, o.PackageVersion = "npm", "x", "latest" }), want: `--package-version "latest"`, err: true},
		{name: "unknown package type", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package = "cargo", "x" }), want: `--package-type "cargo"`, err: true},
		{name: "package without type", info: info, o: with(func(o *serverjson.Options) { o.Package = "x" }), want: "--package needs --package-type", err: true},
		{name: "mcpb without sha", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package = "mcpb", "https://example.com/x.mcpb" }), want: "needs --sha256", err: true},
		{name: "oci with version", info: info, o: with(func(o *serverjson.Options) { o.PackageType, o.Package, o.PackageVersion = "oci", "x:1", "1" }), want: "image tag", err: true},
		{name: "subfolder alone", info: info, o: with(func(o *serverjson.Options) { o.Subfolder = "x" }), want: "--subfolder needs --repository", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, notes, err := serverjson.Build(tc.info, tc.o)
			if tc.err {
				require.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Len(t, notes, tc.notes, "%q", notes)
			b, err := d.JSON()
			require.NoError(t, err)
			require.Contains(t, string(b), tc.want)
			require.NotContains(t, string(b), "data:", "the registry takes https icons only")
			require.NoError(t, schemacheck.Check(schema, b), "%s", b)
		})
	}
}

// TestSchemaRefuses: the validator the tests use does refuse what the
// registry refuses, so a document that passes it means something.
func TestSchemaRefuses(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	for _, doc := range []string{
		`{"name":"bad","description":"d","version":"1"}`,
		`{"name":"a/b","version":"1"}`,
		`{"name":"a/b","description":"d","version":"1","packages":[{"registryType":"npm","identifier":"x","version":"latest","transport":{"type":"stdio"}}]}`,
		`{"name":"a/b","description":"d","version":"1","remotes":[{"type":"streamable-http","url":"ftp://x"}]}`,
		`{"name":"a/b","description":"d","version":"1","icons":[{"src":"https://x/i.png","sizes":["big"]}]}`,
	} {
		require.Error(t, schemacheck.Check(schema, []byte(doc)), doc)
	}
}

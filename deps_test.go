package mcp_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// heavyModules are the modules a server links only by importing the
// package that needs them: the Redis client (session/redisstore,
// providers), OpenTelemetry (middleware/telemetry) and the token-bucket
// limiter (middleware/ratelimit).
var heavyModules = []string{
	"github.com/redis/go-redis/",
	"go.opentelemetry.io/",
	"golang.org/x/time/rate",
	"github.com/getkin/kin-openapi/",
}

// TestLightImportGraph: the smallest server (examples/hello) and the
// packages every server imports link none of the heavy modules, the
// OAuth proxy links the Redis client only through providers/redisstorage
// (its own registration limit needs golang.org/x/time/rate), and
// resourceserver only through resourceserver/redisreplay. A failure
// names the module and the package that imports it.
func TestLightImportGraph(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg   string
		heavy []string
	}{
		{"./examples/hello", heavyModules},
		{"./mcphttp", heavyModules},
		{"./middleware", heavyModules},
		{"./middleware/sizelimit", heavyModules},
		{"./middleware/cache", heavyModules},
		{"./session", heavyModules},
		{"./stdio", heavyModules},
		{"./mcptest", heavyModules},
		{"./providers", heavyModules[:2]},
		{"./client/oauth", heavyModules},
		{"./resourceserver", heavyModules},
		{"./audit", heavyModules},
		{"./accounts", heavyModules[:2]},
		{"./approval", heavyModules[:2]},
		{"./toolsearch", heavyModules},
		{"./devidp", heavyModules},
	} {
		pkg := tc.pkg
		t.Run(strings.TrimPrefix(pkg, "./"), func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", pkg).CombinedOutput()
			require.NoError(t, err, "go list -deps %s: %s", pkg, out)
			var pkgs int
			for line := range strings.Lines(strings.TrimSpace(string(out))) {
				path, imports, _ := strings.Cut(strings.TrimSpace(line), "\t")
				pkgs++
				for _, imp := range strings.Fields(imports) {
					for _, heavy := range tc.heavy {
						if strings.HasPrefix(imp, heavy) && !isHeavy(path) {
							t.Errorf("%s links %s: %s imports %s", pkg, strings.TrimSuffix(heavy, "/"), path, imp)
						}
					}
				}
			}
			require.Positive(t, pkgs, "go list printed no packages")
		})
	}
}

// isHeavy reports whether path is inside one of the heavy modules (their
// imports among themselves are not the finding: the import that brought
// the first of them in is).
func isHeavy(path string) bool {
	for _, heavy := range heavyModules {
		if strings.HasPrefix(path, heavy) {
			return true
		}
	}
	return false
}

// TestImportRule: every package of the repository's modules imports only
// the packages of the module that its line of the import rule in docs/architecture.md
// allows ("internal/*" allows every internal package). Packages without a
// line (internal, examples) are not checked.
func TestImportRule(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/architecture.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "## Import rule")
	require.True(t, ok, "docs/architecture.md has no Import rule section")
	_, block, ok := strings.Cut(rest, "```\n")
	require.True(t, ok, "the Import rule section has no code block")
	block, _, _ = strings.Cut(block, "```")
	const module = "github.com/mcpchain/mcp"
	allowed := map[string][]string{}
	for line := range strings.Lines(block) {
		pkg, deps, ok := strings.Cut(line, "→")
		require.True(t, ok, "rule line without →: %q", line)
		for d := range strings.SplitSeq(deps, ",") {
			allowed[strings.TrimSpace(pkg)] = append(allowed[strings.TrimSpace(pkg)], strings.TrimSpace(d))
		}
	}
	require.Contains(t, allowed, "mcp")
	require.Contains(t, allowed, "mcphttp")

	// module/... in the workspace (go.work) lists the packages of every
	// module of the repository, the nested ones (cmd/mcpchain, openapi,
	// middleware/telemetry, examples) included; ./... would list
	// the root module's alone.
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", module+"/...").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	checked := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		path, imports, _ := strings.Cut(strings.TrimSpace(line), "\t")
		name := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if name == "" {
			name = "mcp"
		}
		rule, ok := allowed[name]
		if !ok {
			continue
		}
		checked++
		for _, imp := range strings.Fields(imports) {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if dep == "" {
				dep = "mcp"
			}
			if !slices.ContainsFunc(rule, func(a string) bool {
				return a == dep || (strings.HasSuffix(a, "/*") && strings.HasPrefix(dep, strings.TrimSuffix(a, "*")))
			}) {
				t.Errorf("%s imports %s, which its import rule (%s) does not allow", name, dep, strings.Join(rule, ", "))
			}
		}
	}
	require.Equal(t, len(allowed), checked, "every package named by the rule exists")
}

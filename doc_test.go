package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/stretchr/testify/require"
)

// docBlock is one ```go code block of a Markdown document.
type docBlock struct {
	file string // the document
	line int    // the document's line of the block's first line of code
	code string
}

// docGoBlocks returns the ```go code blocks of the Markdown file name.
func docGoBlocks(t *testing.T, name string) []docBlock {
	t.Helper()
	doc, err := os.ReadFile(name)
	require.NoError(t, err)
	var blocks []docBlock
	var cur *docBlock
	for i, line := range strings.Split(string(doc), "\n") {
		switch {
		case cur == nil && line == "```go":
			cur = &docBlock{file: name, line: i + 2}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	require.Nil(t, cur, "a ```go block of %s is not closed", name)
	return blocks
}

// docScaffold holds a documentation fragment (a block that is not a
// whole file): the names the fragments use without declaring them.
// A fragment of statements goes in an inner block of main, so it may
// declare these names again; every variable it declares must be used, as
// in real code. A fragment of declarations (its first line of code starts
// with func, type, var or const) goes at file level, before main. The
// verbs are, in order: the imports of docImports the fragment names, a
// use of each, the declarations, the statements.
const docScaffold = `package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpchain/mcp"
%s)

var (
%s)

// newServer is the server a test in the docs tests.
func newServer() *mcp.Server { return mcp.NewServer(mcp.Options{Name: "doc", Version: "1.0.0"}) }

// checkToken is the README's auth function.
func checkToken(r *http.Request) (any, error) { return nil, mcp.ErrUnauthorized }

// Tenant is the README's application middleware.
func Tenant(next http.Handler) http.Handler { return next }

%s

func main() {
	ctx := context.Background()
	logger := slog.Default()
	srv := mcp.NewServer(mcp.Options{Name: "readme", Version: "1.0.0", Logger: logger})
	mux := http.NewServeMux()
	_, _, _, _ = ctx, logger, srv, mux
	{
%s
	}
}
`

// docImports are the packages a fragment may use without importing them,
// each with a name of it. A fragment's file imports those whose package
// name it mentions (the name and a dot), and uses each so that an extra
// one is no error: compiling a block reads the export data of every
// package it imports, and with all of them each block took about two
// CPU-seconds under -race (81 blocks: most of the root package's tests'
// CPU time on a machine with an empty build cache).
var docImports = []struct{ path, use string }{
	{"log", "log.Fatal"},
	{"os", "os.Stdin"},
	{"os/exec", "exec.Command"},
	{"testing", "testing.Short"},
	{"time", "time.Second"},
	{"github.com/justinas/alice", "alice.New"},
	{"github.com/redis/go-redis/v9", "redis.NewClient"},
	{"github.com/mcpchain/mcp/access", "access.Roles"},
	{"github.com/mcpchain/mcp/apps", "apps.MIMEType"},
	{"github.com/mcpchain/mcp/client", "client.Connect"},
	{"github.com/mcpchain/mcp/client/oauth", "oauth.New"},
	{"github.com/mcpchain/mcp/discovery", "discovery.Mount"},
	{"github.com/mcpchain/mcp/elicit", "elicit.NewForm[struct{ A string }]"},
	{"github.com/mcpchain/mcp/mcphttp", "mcphttp.New"},
	{"github.com/mcpchain/mcp/mcptest", "mcptest.NewSession"},
	{"github.com/mcpchain/mcp/middleware", "middleware.Recover"},
	{"github.com/mcpchain/mcp/middleware/cache", "cache.New"},
	{"github.com/mcpchain/mcp/middleware/cache/rediscache", "rediscache.New"},
	{"github.com/mcpchain/mcp/middleware/ratelimit", "ratelimit.New"},
	{"github.com/mcpchain/mcp/middleware/sizelimit", "sizelimit.New"},
	{"github.com/mcpchain/mcp/middleware/telemetry", "telemetry.New"},
	{"github.com/mcpchain/mcp/openapi", "openapi.Register"},
	{"github.com/mcpchain/mcp/openapi/openapitest", "openapitest.NewServer"},
	{"github.com/mcpchain/mcp/providers", "providers.NewProxy"},
	{"github.com/mcpchain/mcp/proxy", "proxy.New"},
	{"github.com/mcpchain/mcp/sampling", "sampling.Create"},
	{"github.com/mcpchain/mcp/state", "state.Caller"},
	{"github.com/mcpchain/mcp/session", "session.NewMemoryStore"},
	{"github.com/mcpchain/mcp/session/redisstore", "redisstore.New"},
	{"github.com/mcpchain/mcp/stdio", "stdio.Serve"},
}

// scaffold returns the file of a fragment: decls at file level, stmts in
// main, with the imports of docImports that either names.
func scaffold(decls, stmts string) string {
	var imports, uses strings.Builder
	for _, im := range docImports {
		name, _, _ := strings.Cut(im.use, ".")
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(decls + "\n" + stmts) {
			fmt.Fprintf(&imports, "\t%q\n", im.path)
			fmt.Fprintf(&uses, "\t_ = %s\n", im.use)
		}
	}
	return fmt.Sprintf(docScaffold, imports.String(), uses.String(), decls, stmts)
}

// TestDocCodeCompiles builds every Go block of the README and of
// docs/*.md against today's API: a block that is a whole file as it
// stands, a fragment inside docScaffold. A compile error names the
// document's own line.
func TestDocCodeCompiles(t *testing.T) {
	t.Parallel()
	root, err := os.Getwd()
	require.NoError(t, err)
	blocks := docGoBlocks(t, "README.md")
	require.GreaterOrEqual(t, len(blocks), 3, "the README's hello world, mount and middleware blocks")
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	for _, d := range docs {
		blocks = append(blocks, docGoBlocks(t, d)...)
	}
	// Every block is overlaid as a package of this module that exists
	// nowhere on disk, so it builds with the module's own code; all of
	// them in one go build, which loads the module once and compiles
	// the blocks in parallel (a go build per block took minutes).
	tmp := t.TempDir()
	replace := map[string]string{}
	pkgs := []string{"build"}
	for i, b := range blocks {
		// A //line directive makes the compiler report the document's lines.
		code := fmt.Sprintf("//line %s:%d\n%s", b.file, b.line, b.code)
		src := code
		if !strings.HasPrefix(b.code, "package ") && !strings.Contains(b.code, "\npackage ") {
			if isDeclarations(b.code) {
				src = scaffold(code, "")
			} else {
				src = scaffold("", code)
			}
		}
		// As a package other than main it is compiled and type-checked but
		// never linked: a link per block is most of the cost.
		src = packageMain.ReplaceAllString(src, "package docblock")
		file := filepath.Join(tmp, fmt.Sprintf("block%d.go", i))
		require.NoError(t, os.WriteFile(file, []byte(src), 0o600))
		pkg := fmt.Sprintf("_doc/block%d", i)
		replace[filepath.Join(root, pkg, "main.go")] = file
		pkgs = append(pkgs, "./"+pkg)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	require.NoError(t, err)
	overlayFile := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlay, 0o600))
	// Several packages and no -o: each is compiled and checked.
	cmd := gotool.Command(pkgs[0], append([]string{"-overlay", overlayFile}, pkgs[1:]...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "Go blocks of the docs do not compile against today's API (file:line of the document):\n%s", out)
}

// packageMain matches a file's package clause naming package main.
var packageMain = regexp.MustCompile(`(?m)^package main\b`)

// isDeclarations reports whether a fragment is file-level declarations:
// its first line that is neither blank nor a comment starts with func,
// type, var or const.
func isDeclarations(code string) bool {
	for _, line := range strings.Split(code, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		for _, kw := range []string{"func ", "type ", "var ", "const "} {
			if strings.HasPrefix(line, kw) {
				return true
			}
		}
		return false
	}
	return false
}

// TestDocLinks: every relative link of the README and of docs/*.md
// names a file or directory of the repository, and a #fragment names a
// heading of the Markdown file it points into (its GitHub anchor).
func TestDocLinks(t *testing.T) {
	t.Parallel()
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(name string) map[string]bool {
		if a, ok := anchors[name]; ok {
			return a
		}
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		anchors[name] = markdownAnchors(string(b))
		return anchors[name]
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	code := regexp.MustCompile("`[^`]*`")
	for _, doc := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				where := fmt.Sprintf("%s:%d: %s", doc, i+1, target)
				file, frag, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), file)
					_, err := os.Stat(path)
					require.NoError(t, err, "%s: no such file", where)
				}
				if frag != "" {
					require.True(t, strings.HasSuffix(path, ".md"), "%s: an anchor into a file that is not Markdown", where)
					require.True(t, anchorsOf(filepath.Clean(path))[frag], "%s: no such heading", where)
				}
			}
		}
	}
}

// markdownAnchors returns the anchors GitHub gives the headings of a
// Markdown document: lowercased, every character but letters, digits,
// spaces, hyphens and underscores dropped, spaces made hyphens, and a
// repeated anchor suffixed -1, -2, ….
func markdownAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(text))
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
// with func, type, var or const) goes at file level, before main.
const docScaffold = `package main

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/justinas/alice"
	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/middleware/ratelimit"
	"github.com/mcpchain/mcp/middleware/telemetry"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/stdio"
)

var (
	_ = alice.New
	_ = mcphttp.New
	_ = middleware.Recover
	_ = stdio.Serve
	_ = providers.NewProxy
	_ = redis.NewClient
	_ = session.NewMemoryStore
	_ = redisstore.New
	_ = telemetry.New
	_ = ratelimit.New
	_ = time.Second
	_ = os.Stdin
	_ = log.Fatal
)

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
	for i, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			// A //line directive makes the compiler report the document's lines.
			code := fmt.Sprintf("//line %s:%d\n%s", b.file, b.line, b.code)
			src := code
			if !strings.HasPrefix(b.code, "package ") && !strings.Contains(b.code, "\npackage ") {
				if isDeclarations(b.code) {
					src = fmt.Sprintf(docScaffold, code, "")
				} else {
					src = fmt.Sprintf(docScaffold, "", code)
				}
			}
			file := filepath.Join(tmp, "main.go")
			require.NoError(t, os.WriteFile(file, []byte(src), 0o600))
			// The block is overlaid as a package of this module that exists
			// nowhere on disk, so it builds with the module's own code.
			pkg := fmt.Sprintf("_doc/block%d", i)
			overlay, err := json.Marshal(map[string]map[string]string{
				"Replace": {filepath.Join(root, pkg, "main.go"): file}})
			require.NoError(t, err)
			overlayFile := filepath.Join(tmp, "overlay.json")
			require.NoError(t, os.WriteFile(overlayFile, overlay, 0o600))
			out, err := exec.Command("go", "build", "-overlay", overlayFile, "-o", filepath.Join(tmp, "bin"), "./"+pkg).CombinedOutput()
			require.NoError(t, err, "the Go block at %s:%d does not compile against today's API:\n%s", b.file, b.line, out)
		})
	}
}

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

package mcp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// interfaceMethods are methods a type has to satisfy a standard
// interface; the interface shows them, not an example.
var interfaceMethods = []string{"Error", "Unwrap", "Is", "As", "String", "MarshalJSON", "UnmarshalJSON", "ServeHTTP", "LogValue"}

// TestEveryExportedNameIsShown: each exported identifier of package mcp
// (funcs, types, vars, consts, and methods of exported types) is used
// where a reader meets it: README.md or a guide in docs/, an example
// program under examples/, or an Example function. A name none of them
// uses is either plumbing that belongs behind internal/engine or a
// feature nobody can find.
func TestEveryExportedNameIsShown(t *testing.T) {
	t.Parallel()
	var corpus strings.Builder
	add := func(path string) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		corpus.Write(b)
		corpus.WriteByte('\n')
	}
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	for _, p := range append([]string{"README.md"}, docs...) {
		add(p)
	}
	require.NoError(t, filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") &&
			(strings.HasPrefix(p, "examples"+string(filepath.Separator)) || strings.HasPrefix(filepath.Base(p), "example")) {
			add(p)
		}
		return nil
	}))
	text := corpus.String()

	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var missing []string
	// One pass over the corpus collects every qualified name (mcp.X) and
	// every selector (.X); a regexp per exported name took minutes under -race.
	qualified, selected := map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`\bmcp\.(\w+)`).FindAllStringSubmatch(text, -1) {
		qualified[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\.(\w+)`).FindAllStringSubmatch(text, -1) {
		selected[m[1]] = true
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					if !qualified[d.Name.Name] {
						missing = append(missing, d.Name.Name)
					}
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if ix, ok := recv.(*ast.IndexExpr); ok {
					recv = ix.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok || !id.IsExported() || slices.Contains(interfaceMethods, d.Name.Name) {
					continue
				}
				if !selected[d.Name.Name] {
					missing = append(missing, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && !qualified[s.Name.Name] {
							missing = append(missing, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && !qualified[n.Name] {
								missing = append(missing, n.Name)
							}
						}
					}
				}
			}
		}
	}
	require.Empty(t, missing, "exported names of package mcp that no README section, guide, example program or Example function uses")
}

package mcp_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateAPI = flag.Bool("update-api", false, "rewrite api/*.txt from the code (TestAPISurface)")

// TestAPISurface: api/<package>.txt lists every exported symbol of every
// public package (top-level funcs, types with their exported fields and
// methods, vars and consts), one per line with its signature, as the Go
// tree's api/ files do. Any difference fails: a name added, removed or
// changed is a decision, recorded by running
//
//	go test -run TestAPISurface -update-api .
//
// in the same commit as a CHANGELOG line (CONTRIBUTING.md).
func TestAPISurface(t *testing.T) {
	t.Parallel()
	got := map[string][]string{} // api file name -> lines
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
			name == "node_modules" || name == "internal" || slices.Contains([]string{"e2e", "examples", "cmd", "perf", "api", "docs", "deploy"}, path)) {
			return filepath.SkipDir
		}
		lines, err := apiOf(path)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			file := "mcp.txt"
			if path != "." {
				file = strings.ReplaceAll(path, string(filepath.Separator), "_") + ".txt"
			}
			got[file] = lines
		}
		return nil
	})
	require.NoError(t, err)
	if *updateAPI {
		require.NoError(t, os.RemoveAll("api"))
		require.NoError(t, os.MkdirAll("api", 0o755))
		for file, lines := range got {
			require.NoError(t, os.WriteFile(filepath.Join("api", file), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		}
		return
	}
	recorded, err := filepath.Glob("api/*.txt")
	require.NoError(t, err)
	for _, path := range recorded {
		file := filepath.Base(path)
		if _, ok := got[file]; !ok {
			t.Errorf("api/%s lists a package that has no exported names now; remove it with -update-api", file)
		}
	}
	for file, lines := range got {
		b, err := os.ReadFile(filepath.Join("api", file))
		if err != nil {
			t.Errorf("api/%s is missing: a new public package's surface is recorded with -update-api", file)
			continue
		}
		want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		var added, removed []string
		for _, l := range lines {
			if !slices.Contains(want, l) {
				added = append(added, "+ "+l)
			}
		}
		for _, l := range want {
			if !slices.Contains(lines, l) {
				removed = append(removed, "- "+l)
			}
		}
		if len(added)+len(removed) > 0 {
			t.Errorf("the public surface of api/%s changed (record it with `go test -run TestAPISurface -update-api .` and a CHANGELOG line):\n%s",
				file, strings.Join(append(removed, added...), "\n"))
		}
	}
}

// apiOf lists the exported symbols of the package in dir, sorted.
func apiOf(dir string) ([]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	show := func(n any) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if af.Name.Name == "main" {
			return nil, nil
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				recv := ""
				if d.Recv != nil {
					t := d.Recv.List[0].Type
					base := t
					if s, ok := base.(*ast.StarExpr); ok {
						base = s.X
					}
					switch b := base.(type) {
					case *ast.IndexExpr:
						base = b.X
					case *ast.IndexListExpr:
						base = b.X
					}
					if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
					recv = "(" + show(t) + ") "
				}
				out = append(out, fmt.Sprintf("func %s%s%s", recv, d.Name.Name, strings.TrimPrefix(show(d.Type), "func")))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						out = append(out, typeLines(s, show)...)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if !id.IsExported() {
								continue
							}
							line := fmt.Sprintf("%s %s", d.Tok, id.Name)
							if s.Type != nil {
								line += " " + show(s.Type)
							}
							out = append(out, line)
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// typeLines lists a type: its kind, and a struct's exported fields or an
// interface's methods one per line.
func typeLines(s *ast.TypeSpec, show func(any) string) []string {
	name := s.Name.Name
	if s.TypeParams != nil {
		name += show(s.TypeParams)
	}
	if s.Assign.IsValid() {
		return []string{fmt.Sprintf("type %s = %s", name, show(s.Type))}
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		lines := []string{fmt.Sprintf("type %s struct", name)}
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 { // embedded
				lines = append(lines, fmt.Sprintf("type %s struct, embedded %s", s.Name.Name, show(f.Type)))
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					lines = append(lines, fmt.Sprintf("type %s struct, %s %s", s.Name.Name, n.Name, show(f.Type)))
				}
			}
		}
		return lines
	case *ast.InterfaceType:
		lines := []string{fmt.Sprintf("type %s interface", name)}
		for _, m := range t.Methods.List {
			if len(m.Names) == 0 {
				lines = append(lines, fmt.Sprintf("type %s interface, %s", s.Name.Name, show(m.Type)))
				continue
			}
			for _, n := range m.Names {
				if n.IsExported() {
					lines = append(lines, fmt.Sprintf("type %s interface, %s%s", s.Name.Name, n.Name, strings.TrimPrefix(show(m.Type), "func")))
				}
			}
		}
		return lines
	}
	return []string{fmt.Sprintf("type %s %s", name, show(s.Type))}
}

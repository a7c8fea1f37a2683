package mcp_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateNumbers = flag.Bool("update-numbers", false, "rewrite the numbers table of docs/architecture.md (TestArchitectureNumbers)")

// numbersAt, when set, is a checkout whose numbers TestArchitectureNumbers
// prints instead of checking this tree's: how the before column of the
// table was measured, with the same counters.
var numbersAt = flag.String("numbers-at", "", "print the numbers of the tree at this directory (TestArchitectureNumbers)")

// The table's markers in docs/architecture.md.
const (
	numbersBegin = "<!-- numbers: begin (written by TestArchitectureNumbers) -->"
	numbersEnd   = "<!-- numbers: end -->"
)

// numbersBefore is the before column: the tree at 30919ad (the review
// that found the surface growing), measured with -numbers-at and the
// same counters as the after column.
var numbersBefore = map[string]string{
	"exported names of `mcp` (top-level and methods)":            "321",
	"methods of `*mcp.Server`":                                   "48",
	"exported names of all public packages":                      "794",
	"public packages":                                            "20",
	"functions of cyclomatic complexity over 15 (non-test code)": "87",
	"functions of cyclomatic complexity over 30":                 "11",
	"the functions over 30": "`jsonrpc.decodeValid` 39, `mcp.newTransformer` 38, `mcphttp.(taskPeer).Inputs` 31, " +
		"`openapi.(generator).operation` 43, `openapi.(operation).plan` 37, `openapi.buildRequest` 59, `openapi.convertAt` 50, " +
		"`openapitest.value` 42, `providers.NewProxy` 36, `resourceserver.New` 32, `stdio.Serve` 32",
	"non-test functions over 80 lines":                              "29",
	"`time.Sleep` calls in tests outside `synctest` (e2e included)": "46",
	"README.md lines": "412",
}

// TestArchitectureNumbers: the table of docs/architecture.md that says
// how large the toolkit is (exported names, *Server's methods,
// complexity, long functions, sleeps in tests, README lines) matches
// this tree. A change that moves a number rewrites the table with
//
//	go test -run TestArchitectureNumbers -update-numbers .
//
// so the document cannot drift from the code.
func TestArchitectureNumbers(t *testing.T) {
	t.Parallel()
	if *numbersAt != "" {
		for _, r := range measureTree(t, *numbersAt) {
			fmt.Printf("%s\t%s\n", r.name, r.value)
		}
		return
	}
	var table strings.Builder
	table.WriteString(numbersBegin + "\n")
	table.WriteString("| measure | before (`30919ad`) | now |\n| --- | ---: | ---: |\n")
	for _, r := range measureTree(t, ".") {
		before := numbersBefore[r.name]
		if before == "" {
			before = "–"
		}
		fmt.Fprintf(&table, "| %s | %s | %s |\n", r.name, before, r.value)
	}
	table.WriteString(numbersEnd)

	const doc = "docs/architecture.md"
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	text := string(b)
	i, j := strings.Index(text, numbersBegin), strings.Index(text, numbersEnd)
	require.True(t, i >= 0 && j > i, "%s has no numbers table between %q and %q", doc, numbersBegin, numbersEnd)
	got := text[i : j+len(numbersEnd)]
	if *updateNumbers {
		require.NoError(t, os.WriteFile(doc, []byte(text[:i]+table.String()+text[j+len(numbersEnd):]), 0o644))
		return
	}
	require.Equal(t, table.String(), got, "%s's numbers differ from the tree: run go test -run TestArchitectureNumbers -update-numbers .", doc)
}

type numberRow struct{ name, value string }

// measureTree counts, over the Go files of the tree at root (tests,
// examples, e2e, perf, testdata, node_modules and generated files left
// out unless a row says otherwise).
func measureTree(t *testing.T, root string) []numberRow {
	t.Helper()
	var (
		exports     = map[string]int{} // package dir -> exported names
		serverMeths int
		over15      int
		over30      int
		over30Names []string
		longFuncs   int
		sleeps      int
	)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "_test.go") {
			n, err := wallSleeps(fset, path, src)
			if err != nil {
				return err
			}
			sleeps += n
			return nil
		}
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		if slices.Contains([]string{"examples", "e2e", "perf"}, top) || generated.Match(src) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		public := !slices.Contains(strings.Split(dir, "/"), "internal") && top != "cmd" && f.Name.Name != "main"
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if public && d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
					exports[dir]++
					if dir == "." && d.Recv != nil && recvName(d.Recv) == "Server" {
						serverMeths++
					}
				}
				if d.Body == nil {
					continue
				}
				if c := complexity(d); c > 15 {
					over15++
					if c > 30 {
						over30++
						over30Names = append(over30Names, fmt.Sprintf("`%s.%s` %d", f.Name.Name, funcName(d), c))
					}
				}
				if fset.Position(d.Body.Rbrace).Line-fset.Position(d.Body.Lbrace).Line-1 > 80 {
					longFuncs++
				}
			case *ast.GenDecl:
				if !public {
					continue
				}
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exports[dir]++
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								exports[dir]++
							}
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)

	total, pkgs := 0, 0
	for _, n := range exports {
		total += n
		pkgs++
	}
	slices.Sort(over30Names)
	worst := "none"
	if len(over30Names) > 0 {
		worst = strings.Join(over30Names, ", ")
	}
	return []numberRow{
		{"exported names of `mcp` (top-level and methods)", fmt.Sprint(exports["."])},
		{"methods of `*mcp.Server`", fmt.Sprint(serverMeths)},
		{"exported names of all public packages", fmt.Sprint(total)},
		{"public packages", fmt.Sprint(pkgs)},
		{"functions of cyclomatic complexity over 15 (non-test code)", fmt.Sprint(over15)},
		{"functions of cyclomatic complexity over 30", fmt.Sprint(over30)},
		{"the functions over 30", worst},
		{"non-test functions over 80 lines", fmt.Sprint(longFuncs)},
		{"`time.Sleep` calls in tests outside `synctest` (e2e included)", fmt.Sprint(sleeps)},
		{"README.md lines", fmt.Sprint(bytes.Count(readme, []byte("\n")))},
	}
}

// generated matches the header of a generated file (go help generate).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// complexity is a function's cyclomatic complexity as gocyclo counts it:
// one, plus one for each if, for, range, non-default case and select
// clause, and && or ||.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

func recvName(fl *ast.FieldList) string {
	e := fl.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.IndexListExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

func exportedRecv(fl *ast.FieldList) bool { return token.IsExported(recvName(fl)) }

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv != nil {
		return "(" + recvName(fn.Recv) + ")." + fn.Name.Name
	}
	return fn.Name.Name
}

// wallSleeps counts the time.Sleep calls of a test file that wait on the
// wall clock: those outside a function given to synctest.Test (or Run),
// whose sleeps advance the bubble's fake clock at once.
func wallSleeps(fset *token.FileSet, path string, src []byte) (int, error) {
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return 0, err
	}
	calls := func(n ast.Node, pkg string, names ...string) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains(names, sel.Sel.Name) {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == pkg
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if calls(node, "time", "Sleep") {
			n++
		}
		return !calls(node, "synctest", "Test", "Run") // a bubble's sleeps are on its fake clock
	})
	return n, nil
}

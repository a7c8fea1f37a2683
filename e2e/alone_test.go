package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAloneListed: the Makefile's E2E_ALONE, the tests make e2e runs in a
// process of their own beside the others, is exactly this package's tests
// that are not parallel. A test is parallel when a statement of its body
// calls t.Parallel, or calls a function of the package (forEachTransport,
// say) one of whose statements calls Parallel on its first parameter.
// TestConformanceAuthorization belongs to make conformance.
func TestAloneListed(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	listed := makeWords(t, string(mk), "E2E_ALONE")

	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var funcs []*ast.FuncDecl
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				funcs = append(funcs, fd)
			}
		}
	}
	// makesParallel: the functions with a statement X.Parallel() where X
	// is their first parameter.
	makesParallel := map[string]bool{}
	for _, fd := range funcs {
		if first := firstParam(fd); first != "" && callsParallel(fd.Body, first, nil) {
			makesParallel[fd.Name.Name] = true
		}
	}
	var alone []string
	for _, fd := range funcs {
		name := fd.Name.Name
		if !strings.HasPrefix(name, "Test") || name == "TestMain" || name == "TestConformanceAuthorization" {
			continue
		}
		if t0 := firstParam(fd); t0 == "" || !callsParallel(fd.Body, t0, makesParallel) {
			alone = append(alone, name)
		}
	}
	require.NotEmpty(t, alone)
	slices.Sort(alone)
	slices.Sort(listed)
	require.Equal(t, alone, listed, "the Makefile's E2E_ALONE lists the e2e tests that do not call t.Parallel")
}

// firstParam is the name of fd's first parameter, "" when it has none.
func firstParam(fd *ast.FuncDecl) string {
	if ps := fd.Type.Params.List; len(ps) > 0 && len(ps[0].Names) > 0 {
		return ps[0].Names[0].Name
	}
	return ""
}

// callsParallel reports whether a statement of body (not of a function
// literal in it) is v.Parallel(), or a call f(v, ...) of a function f of
// helpers.
func callsParallel(body *ast.BlockStmt, v string, helpers map[string]bool) bool {
	for _, st := range body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		switch fn := call.Fun.(type) {
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && x.Name == v && fn.Sel.Name == "Parallel" {
				return true
			}
		case *ast.Ident:
			if helpers[fn.Name] && len(call.Args) > 0 {
				if a, ok := call.Args[0].(*ast.Ident); ok && a.Name == v {
					return true
				}
			}
		}
	}
	return false
}

// makeWords returns the words of a Makefile variable set with := over
// backslash-continued lines.
func makeWords(t *testing.T, mk, name string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(mk, "\n"+name+" := ")
	require.True(t, ok, "the Makefile sets %s", name)
	var words []string
	for line := range strings.Lines(rest) {
		line = strings.TrimRight(line, "\n")
		words = append(words, strings.Fields(strings.TrimSuffix(line, "\\"))...)
		if !strings.HasSuffix(line, "\\") {
			break
		}
	}
	return words
}

package openapi

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// genPackages are the import paths of the generated code by the name it
// uses them under.
var genPackages = map[string]string{
	"bytes": "bytes", "context": "context", "json": "encoding/json", "fmt": "fmt", "io": "io",
	"http": "net/http", "url": "net/url", "strconv": "strconv", "strings": "strings",
	"mcp": "github.com/mcpchain/mcp",
}

// split writes the output of [GenerateDoc] as several files (see
// GenOptions.MaxFileBytes): the head, Register and the helpers in
// opts.FileName; the code of the operations (g.body, whose operations end
// at ends) packed in order into FileName_1.go, FileName_2.go, …, each
// importing only the packages it uses.
func (g *generator) split(reg []byte, ends []int, opts GenOptions) (map[string][]byte, error) {
	files := map[string][]byte{}
	main := append(slices.Clone(g.head.Bytes()), reg...)
	main = append(main, genHelpers...)
	out, err := format.Source(main)
	if err != nil {
		return nil, fmt.Errorf("openapi: the generated source does not parse (a bug): %w", err)
	}
	files[opts.FileName] = out

	// The room the header and the imports of a part take, at most.
	overhead := len(GenHeader) + len(opts.Package) + len(genImports) + 16
	base := strings.TrimSuffix(opts.FileName, ".go")
	body := g.body.Bytes()
	var part bytes.Buffer
	size := 0
	flush := func() error {
		if part.Len() == 0 {
			return nil
		}
		name := fmt.Sprintf("%s_%d.go", base, len(files))
		src, err := partFile(opts.Package, part.Bytes())
		if err != nil {
			return err
		}
		files[name] = src
		part.Reset()
		size = 0
		return nil
	}
	start := 0
	for _, end := range ends {
		chunk := body[start:end]
		start = end
		formatted, err := format.Source(append([]byte("package p\n\n"), chunk...))
		if err != nil {
			return nil, fmt.Errorf("openapi: the generated source does not parse (a bug): %w", err)
		}
		n := len(formatted) - len("package p\n\n")
		if size > 0 && overhead+size+n > opts.MaxFileBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		part.Write(chunk)
		size += n
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return files, nil
}

// partFile is a file of operations: the header, the package clause, the
// imports its code uses (found by parsing it) and the code, formatted.
func partFile(pkg string, code []byte) ([]byte, error) {
	head := GenHeader + "\n\npackage " + pkg + "\n\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", append([]byte(head), code...), 0)
	if err != nil {
		return nil, fmt.Errorf("openapi: the generated source does not parse (a bug): %w", err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && genPackages[id.Name] != "" {
				used[id.Name] = true
			}
		}
		return true
	})
	var std, other []string
	for name := range used {
		path := genPackages[name]
		if strings.Contains(path, ".") {
			other = append(other, path)
		} else {
			std = append(std, path)
		}
	}
	slices.Sort(std)
	slices.Sort(other)
	var b bytes.Buffer
	b.WriteString(head)
	if len(used) > 0 {
		b.WriteString("import (\n")
		for _, p := range std {
			fmt.Fprintf(&b, "%q\n", p)
		}
		if len(std) > 0 && len(other) > 0 {
			b.WriteString("\n")
		}
		for _, p := range other {
			fmt.Fprintf(&b, "%q\n", p)
		}
		b.WriteString(")\n\n")
	}
	b.Write(code)
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("openapi: the generated source does not parse (a bug): %w", err)
	}
	return out, nil
}

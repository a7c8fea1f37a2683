package codemode

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Starlark counts steps but not memory: "s = s + s" doubles a string in
// one step, so thirty steps reach gigabytes. Scripts are compiled with
// their + and * operators (and += and *=) turned into calls of guards
// that refuse a result over maxValueBytes (a string) or maxElems (a list
// or tuple) before it is built. A guard's name ("+") is no identifier,
// so a script can neither call nor shadow it.
const (
	maxValueBytes = 4 << 20
	maxElems      = maxRange
)

// guards are the predeclared guard functions the rewritten operators call.
var guards = starlark.StringDict{
	"+":  starlark.NewBuiltin("+", guardBinary(syntax.PLUS, false)),
	"*":  starlark.NewBuiltin("*", guardBinary(syntax.STAR, false)),
	"+=": starlark.NewBuiltin("+=", guardBinary(syntax.PLUS, true)),
	"*=": starlark.NewBuiltin("*=", guardBinary(syntax.STAR, true)),
}

// guardBinary returns the guard of op: called with x and y, it checks the
// size of x op y, then returns it, or y alone for an augmented
// assignment (which then applies op itself, in place for a list).
func guardBinary(op syntax.Token, aug bool) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 2 {
			return nil, fmt.Errorf("%s: want 2 operands", b.Name())
		}
		x, y := args[0], args[1]
		if err := checkSize(op, x, y); err != nil {
			return nil, err
		}
		if aug {
			return y, nil
		}
		return starlark.Binary(op, x, y)
	}
}

// size is a value's size as the guards count it: bytes of a string,
// elements of a list or tuple; ok is false for other values.
func size(v starlark.Value) (n int64, isString, ok bool) {
	switch x := v.(type) {
	case starlark.String:
		return int64(len(x)), true, true
	case starlark.Bytes:
		return int64(len(x)), true, true
	case *starlark.List:
		return int64(x.Len()), false, true
	case starlark.Tuple:
		return int64(len(x)), false, true
	}
	return 0, false, false
}

func checkSize(op syntax.Token, x, y starlark.Value) error {
	var n int64
	var isString bool
	switch op {
	case syntax.PLUS:
		nx, sx, okx := size(x)
		ny, _, oky := size(y)
		if !okx || !oky {
			return nil // numbers, or a type error Binary reports
		}
		n, isString = nx+ny, sx
	case syntax.STAR:
		seq, count := x, y
		if _, ok := count.(starlark.Int); !ok {
			seq, count = y, x
		}
		ns, s, ok := size(seq)
		c, isInt := count.(starlark.Int)
		if !ok || !isInt || ns == 0 {
			return nil
		}
		k, exact := c.Int64()
		if !exact || k > maxRange*maxValueBytes {
			k = maxRange * maxValueBytes
		}
		n, isString = ns*max(k, 0), s
	}
	switch {
	case isString && n > maxValueBytes:
		return fmt.Errorf("the result would be %d bytes; one value may hold at most %d", n, maxValueBytes)
	case !isString && n > maxElems:
		return fmt.Errorf("the result would have %d elements; one value may hold at most %d", n, maxElems)
	}
	return nil
}

// guardOperators rewrites f's + and * operators, and its += and *=
// assignments, into calls of the guards.
func guardOperators(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			var g string
			switch n.Op {
			case syntax.PLUS_EQ:
				g = "+="
			case syntax.STAR_EQ:
				g = "*="
			}
			if g != "" {
				// lhs op= guard(lhs, rhs): the guard sees both sides and
				// returns rhs. A subscript or field on the left is
				// evaluated twice.
				n.RHS = guardCall(g, n.OpPos, n.LHS, n.RHS)
			}
			n.RHS = guardExpr(n.RHS)
			if n.Op == syntax.EQ {
				n.LHS = guardExpr(n.LHS)
			}
		case *syntax.ExprStmt:
			n.X = guardExpr(n.X)
		case *syntax.ReturnStmt:
			if n.Result != nil {
				n.Result = guardExpr(n.Result)
			}
		case *syntax.IfStmt:
			n.Cond = guardExpr(n.Cond)
		case *syntax.WhileStmt:
			n.Cond = guardExpr(n.Cond)
		case *syntax.ForStmt:
			n.X = guardExpr(n.X)
		case *syntax.DefStmt:
			guardList(n.Params)
		case *syntax.LambdaExpr:
			guardList(n.Params)
			n.Body = guardExpr(n.Body)
		case *syntax.BinaryExpr:
			n.X, n.Y = guardExpr(n.X), guardExpr(n.Y)
		case *syntax.UnaryExpr:
			if n.X != nil {
				n.X = guardExpr(n.X)
			}
		case *syntax.CallExpr:
			n.Fn = guardExpr(n.Fn)
			guardList(n.Args)
		case *syntax.Comprehension:
			n.Body = guardExpr(n.Body)
		case *syntax.ForClause:
			n.X = guardExpr(n.X)
		case *syntax.IfClause:
			n.Cond = guardExpr(n.Cond)
		case *syntax.CondExpr:
			n.Cond, n.True, n.False = guardExpr(n.Cond), guardExpr(n.True), guardExpr(n.False)
		case *syntax.DictEntry:
			n.Key, n.Value = guardExpr(n.Key), guardExpr(n.Value)
		case *syntax.DictExpr:
			guardList(n.List)
		case *syntax.DotExpr:
			n.X = guardExpr(n.X)
		case *syntax.IndexExpr:
			n.X, n.Y = guardExpr(n.X), guardExpr(n.Y)
		case *syntax.ListExpr:
			guardList(n.List)
		case *syntax.TupleExpr:
			guardList(n.List)
		case *syntax.ParenExpr:
			n.X = guardExpr(n.X)
		case *syntax.SliceExpr:
			n.X = guardExpr(n.X)
			for _, p := range []*syntax.Expr{&n.Lo, &n.Hi, &n.Step} {
				if *p != nil {
					*p = guardExpr(*p)
				}
			}
		}
		return true
	})
}

func guardList(l []syntax.Expr) {
	for i := range l {
		l[i] = guardExpr(l[i])
	}
}

// guardExpr turns x + y and x * y into calls of their guards; other
// expressions are left as they are (Walk rewrites their parts).
func guardExpr(e syntax.Expr) syntax.Expr {
	b, ok := e.(*syntax.BinaryExpr)
	if !ok {
		return e
	}
	switch b.Op {
	case syntax.PLUS:
		return guardCall("+", b.OpPos, b.X, b.Y)
	case syntax.STAR:
		return guardCall("*", b.OpPos, b.X, b.Y)
	}
	return e
}

func guardCall(name string, pos syntax.Position, x, y syntax.Expr) syntax.Expr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: name}, Lparen: pos, Args: []syntax.Expr{x, y}, Rparen: pos}
}

package codemode

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Starlark counts steps but not memory: "s = s + s" doubles a string in
// one step, "l.extend(l)" a list, str(l) of a list holding one large
// string a million times builds terabytes. So a script is compiled with
// its +, *, % and << operators (and += and *=) and every attribute it
// reads (x.join, x.extend) turned into calls of guards, and the
// built-ins that build values (str, list, sorted, …) are predeclared
// wrapped: each guard refuses a result over maxValueBytes (a string),
// maxElems (a list, tuple, dict or set) or maxIntBits (an int) before it
// is built, where its size is known from its operands, and charges what
// it built to the script's allocation budget (Options.MaxAllocBytes).
// A guard's name ("+", "·attr") is no identifier, so a script can
// neither call nor shadow it.
const (
	maxValueBytes = 4 << 20
	maxElems      = maxRange
	maxIntBits    = 1 << 16
	// maxIntDigits bounds the string int() parses (Go's conversion is
	// quadratic; Python bounds it to 4,300 digits for the same reason).
	maxIntDigits = 4300
	// refBytes is what the budget charges for an element of a list or
	// tuple, entryBytes for an entry of a dict or set.
	refBytes   = 16
	entryBytes = 64
)

type builtinFunc = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

// guards returns the predeclared guards of one script's run.
func (s *session) guards() starlark.StringDict {
	d := starlark.StringDict{
		"+":     starlark.NewBuiltin("+", s.guardBinary(syntax.PLUS, false)),
		"*":     starlark.NewBuiltin("*", s.guardBinary(syntax.STAR, false)),
		"%":     starlark.NewBuiltin("%", s.guardBinary(syntax.PERCENT, false)),
		"<<":    starlark.NewBuiltin("<<", s.guardBinary(syntax.LTLT, false)),
		"+=":    starlark.NewBuiltin("+=", s.guardBinary(syntax.PLUS, true)),
		"*=":    starlark.NewBuiltin("*=", s.guardBinary(syntax.STAR, true)),
		"·attr": starlark.NewBuiltin("·attr", s.guardAttr),
		"range": starlark.NewBuiltin("range", s.wrap("range", nil)),
		"int":   starlark.NewBuiltin("int", s.wrap("int", checkIntArgs)),
	}
	for _, name := range []string{"str", "repr", "fail", "print"} {
		d[name] = starlark.NewBuiltin(name, s.wrap(name, s.checkRendered))
	}
	for _, name := range []string{"list", "tuple", "sorted", "reversed", "dict", "set", "zip", "enumerate", "bytes", "dir"} {
		d[name] = starlark.NewBuiltin(name, s.wrap(name, nil))
	}
	d["getattr"] = starlark.NewBuiltin("getattr", s.guardGetattr)
	return d
}

// charge counts v, a value just built, against the allocation budget.
func (s *session) charge(v starlark.Value) error {
	var n int64
	switch x := v.(type) {
	case starlark.String:
		n = int64(len(x))
	case starlark.Bytes:
		n = int64(len(x))
	case *starlark.List:
		n = int64(x.Len()) * refBytes
	case starlark.Tuple:
		n = int64(len(x)) * refBytes
	case *starlark.Dict:
		n = int64(x.Len()) * entryBytes
	case *starlark.Set:
		n = int64(x.Len()) * entryBytes
	case starlark.Int:
		n = int64(x.BigInt().BitLen() / 8)
	case starlark.Sequence:
		if l := x.Len(); x.Type() == "range" && l > maxRange {
			return fmt.Errorf("range: %d elements; at most %d are allowed", l, maxRange)
		}
	}
	return s.chargeBytes(n)
}

func (s *session) chargeBytes(n int64) error {
	s.allocated += n
	if s.allocated > s.r.maxAlloc {
		return fmt.Errorf("the script built more than %d bytes of values (MaxAllocBytes)", s.r.maxAlloc)
	}
	return nil
}

// wrap returns the universe built-in name, checked first by check (when
// not nil) and its result charged.
func (s *session) wrap(name string, check func(args starlark.Tuple, kwargs []starlark.Tuple) error) builtinFunc {
	fn := starlark.Universe[name]
	return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if check != nil {
			if err := check(args, kwargs); err != nil {
				return nil, err
			}
		}
		v, err := starlark.Call(thread, fn, args, kwargs)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if err := s.charge(v); err != nil {
				return nil, err
			}
			if err := checkSize(v); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
}

// checkRendered refuses to render args (str, repr, print, fail) when
// their text would exceed one value's bound.
func (s *session) checkRendered(args starlark.Tuple, kwargs []starlark.Tuple) error {
	budget := int64(maxValueBytes)
	var n int64
	for _, a := range args {
		n += rendered(a, budget-n, 0)
	}
	for _, kv := range kwargs {
		n += rendered(kv[1], budget-n, 0)
	}
	if n > budget {
		return fmt.Errorf("its text would exceed %d bytes", budget)
	}
	return nil
}

func checkIntArgs(args starlark.Tuple, _ []starlark.Tuple) error {
	if len(args) > 0 {
		if s, ok := args[0].(starlark.String); ok && len(s) > maxIntDigits {
			return fmt.Errorf("a string of %d characters; at most %d are converted", len(s), maxIntDigits)
		}
	}
	return nil
}

// rendered is about the length of v's text (str or repr), counted until
// it exceeds budget (then it returns more than budget). A value nested
// deeper than maxDepth counts as over budget.
func rendered(v starlark.Value, budget int64, depth int) int64 {
	if depth > maxDepth {
		return budget + 1
	}
	switch x := v.(type) {
	case starlark.String:
		return int64(len(x))*2 + 2 // repr may escape
	case starlark.Bytes:
		return int64(len(x))*4 + 3
	case starlark.Int:
		return int64(x.BigInt().BitLen()/3 + 2)
	case starlark.Iterable:
		var n int64 = 2
		it := x.Iterate()
		defer it.Done()
		var e starlark.Value
		for it.Next(&e) && n <= budget {
			n += 2 + rendered(e, budget-n, depth+1)
			if d, ok := x.(*starlark.Dict); ok {
				if val, found, _ := d.Get(e); found {
					n += 2 + rendered(val, budget-n, depth+1)
				}
			}
		}
		return n
	}
	return 32
}

// sizeOf is a value's size as the bounds count it: bytes of a string,
// elements of a sequence, bits of an int.
func sizeOf(v starlark.Value) (n int64, kind byte) {
	switch x := v.(type) {
	case starlark.String:
		return int64(len(x)), 's'
	case starlark.Bytes:
		return int64(len(x)), 's'
	case *starlark.List:
		return int64(x.Len()), 'l'
	case starlark.Tuple:
		return int64(len(x)), 'l'
	case *starlark.Dict:
		return int64(x.Len()), 'l'
	case *starlark.Set:
		return int64(x.Len()), 'l'
	case starlark.Int:
		return int64(x.BigInt().BitLen()), 'i'
	}
	return 0, 0
}

// checkSize refuses a value over the bounds of one value.
func checkSize(v starlark.Value) error {
	n, kind := sizeOf(v)
	return checkN(n, kind)
}

func checkN(n int64, kind byte) error {
	switch {
	case kind == 's' && n > maxValueBytes:
		return fmt.Errorf("the result would be %d bytes; one value may hold at most %d", n, maxValueBytes)
	case kind == 'l' && n > maxElems:
		return fmt.Errorf("the result would have %d elements; one value may hold at most %d", n, maxElems)
	case kind == 'i' && n > maxIntBits:
		return fmt.Errorf("the result would be an int of %d bits; at most %d are allowed", n, maxIntBits)
	}
	return nil
}

// guardBinary returns the guard of op: called with x and y, it checks the
// size of x op y, then returns it, or y alone for an augmented
// assignment (which then applies op itself, in place for a list).
func (s *session) guardBinary(op syntax.Token, aug bool) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 2 {
			return nil, fmt.Errorf("%s: want 2 operands", b.Name())
		}
		x, y := args[0], args[1]
		n, kind := estimate(op, x, y)
		if err := checkN(n, kind); err != nil {
			return nil, err
		}
		if aug {
			// A string is built anew; a list grows in place.
			charge := n
			if kind == 'l' {
				ny, _ := sizeOf(y)
				charge = ny * refBytes
			}
			if err := s.chargeBytes(charge); err != nil {
				return nil, err
			}
			return y, nil
		}
		v, err := starlark.Binary(op, x, y)
		if err != nil {
			return nil, err
		}
		if err := checkSize(v); err != nil { // % of a format with many verbs
			return nil, err
		}
		return v, s.charge(v)
	}
}

// estimate is the size of x op y, from the operands alone.
func estimate(op syntax.Token, x, y starlark.Value) (int64, byte) {
	nx, kx := sizeOf(x)
	ny, ky := sizeOf(y)
	switch op {
	case syntax.PLUS:
		if kx != 0 && kx == ky && kx != 'i' {
			return nx + ny, kx
		}
	case syntax.STAR:
		return estimateStar(x, y, nx, ny, kx, ky)
	case syntax.PERCENT:
		if kx == 's' {
			if _, isStr := x.(starlark.String); isStr {
				// Each verb renders at most all of y.
				verbs := int64(strings.Count(string(x.(starlark.String)), "%"))
				return nx + verbs*rendered(y, maxValueBytes, 0), 's'
			}
		}
	case syntax.LTLT:
		if kx == 'i' {
			if k, ok := y.(starlark.Int).Int64(); ok {
				return nx + max(k, 0), 'i'
			}
		}
	}
	return 0, 0
}

// estimateStar is the size of x * y, of sizes nx and ny and kinds kx and
// ky: an int's digits for two ints, else a sequence repeated by an int
// (counted as at most maxRange*maxValueBytes times).
func estimateStar(x, y starlark.Value, nx, ny int64, kx, ky byte) (int64, byte) {
	switch {
	case kx == 'i' && ky == 'i':
		return nx + ny, 'i'
	case kx != 'i' && ky != 'i':
		return 0, 0
	}
	seq, kseq, count := nx, kx, y
	if kx == 'i' {
		seq, kseq, count = ny, ky, x
	}
	if kseq == 0 || seq == 0 {
		return 0, 0
	}
	k, exact := count.(starlark.Int).Int64()
	if !exact || k > maxRange*maxValueBytes {
		k = maxRange * maxValueBytes
	}
	return seq * max(k, 0), kseq
}

// guardAttr is x.name: for a method that builds a value (join, replace,
// format, extend…), a function that checks its size first and charges
// its result.
func (s *session) guardAttr(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("·attr: want 2 operands")
	}
	name, _ := args[1].(starlark.String)
	return s.attr(args[0], string(name))
}

func (s *session) guardGetattr(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var name string
	var dflt starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &x, &name, &dflt); err != nil {
		return nil, err
	}
	v, err := s.attr(x, name)
	if err != nil && dflt != nil {
		return dflt, nil
	}
	return v, err
}

func (s *session) attr(x starlark.Value, name string) (starlark.Value, error) {
	ha, ok := x.(starlark.HasAttrs)
	if !ok {
		return nil, fmt.Errorf("%s has no .%s field or method", x.Type(), name)
	}
	v, err := ha.Attr(name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("%s has no .%s field or method", x.Type(), name)
	}
	m, ok := v.(*starlark.Builtin)
	if !ok {
		return v, nil
	}
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if n, kind := estimateMethod(x, name, args, kwargs); kind != 0 {
			if err := checkN(n, kind); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		v, err := starlark.Call(thread, m, args, kwargs)
		if err != nil {
			return nil, err
		}
		if name == "extend" || name == "append" || name == "insert" {
			if l, ok := x.(*starlark.List); ok {
				if err := checkSize(l); err != nil {
					return nil, err
				}
			}
		}
		if err := checkSize(v); err != nil {
			return nil, err
		}
		return v, s.charge(v)
	}), nil
}

// estimateMethod is the size of the value x.name(args) builds, for the
// methods whose result may outgrow their operands.
func estimateMethod(x starlark.Value, name string, args starlark.Tuple, kwargs []starlark.Tuple) (int64, byte) {
	nx, _ := sizeOf(x)
	switch name {
	case "join":
		if len(args) == 1 {
			return estimateJoin(nx, args[0]), 's'
		}
	case "replace":
		if len(args) >= 2 {
			old, _ := sizeOf(args[0])
			nw, _ := sizeOf(args[1])
			if old == 0 {
				return (nx+1)*nw + nx, 's'
			}
			return nx/old*nw + nx, 's'
		}
	case "format":
		var most int64
		for _, a := range args {
			most = max(most, rendered(a, maxValueBytes, 0))
		}
		for _, kv := range kwargs {
			most = max(most, rendered(kv[1], maxValueBytes, 0))
		}
		if sx, ok := x.(starlark.String); ok {
			return nx + int64(strings.Count(string(sx), "{"))*most, 's'
		}
	case "extend":
		if len(args) == 1 {
			if sq, ok := args[0].(starlark.Sequence); ok {
				return nx + int64(sq.Len()), 'l'
			}
		}
	}
	return 0, 0
}

// estimateJoin is the size of a separator of size nx joining the items
// of list (counted until they pass maxValueBytes).
func estimateJoin(nx int64, list starlark.Value) int64 {
	it, ok := list.(starlark.Iterable)
	if !ok {
		return 0
	}
	iter := it.Iterate()
	defer iter.Done()
	var n int64
	var e starlark.Value
	for iter.Next(&e) && n <= maxValueBytes {
		ne, _ := sizeOf(e)
		n += ne + nx
	}
	return n
}

// guardOperators rewrites f's guarded operators, augmented assignments
// and attribute reads into calls of the guards.
func guardOperators(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if !guardStmt(n) {
			guardNode(n)
		}
		return true
	})
}

// guardStmt guards the expressions of n when it is a statement, and
// reports whether it was.
func guardStmt(n syntax.Node) bool {
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
		n.LHS = guardTarget(n.LHS)
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
		n.Vars = guardTarget(n.Vars)
	case *syntax.DefStmt:
		guardList(n.Params)
	default:
		return false
	}
	return true
}

// guardNode guards the operands of n, an expression or a clause.
func guardNode(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.LambdaExpr:
		guardList(n.Params)
		n.Body = guardExpr(n.Body)
	case *syntax.BinaryExpr:
		if n.Op == syntax.EQ { // a keyword argument or a default: its name stays
			n.Y = guardExpr(n.Y)
		} else {
			n.X, n.Y = guardExpr(n.X), guardExpr(n.Y)
		}
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
		n.Vars = guardTarget(n.Vars)
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
}

// guardTarget guards the parts of an assignment's target that are read
// (x in x[i] = v, x.f = v), leaving the target itself assignable.
func guardTarget(e syntax.Expr) syntax.Expr {
	switch t := e.(type) {
	case *syntax.IndexExpr:
		t.X, t.Y = guardExpr(t.X), guardExpr(t.Y)
	case *syntax.DotExpr:
		t.X = guardExpr(t.X)
	case *syntax.ListExpr:
		for i := range t.List {
			t.List[i] = guardTarget(t.List[i])
		}
	case *syntax.TupleExpr:
		for i := range t.List {
			t.List[i] = guardTarget(t.List[i])
		}
	case *syntax.ParenExpr:
		t.X = guardTarget(t.X)
	}
	return e
}

func guardList(l []syntax.Expr) {
	for i := range l {
		l[i] = guardExpr(l[i])
	}
}

// guardExpr turns a guarded operator or an attribute read into a call of
// its guard; other expressions are left as they are (Walk rewrites their
// parts).
func guardExpr(e syntax.Expr) syntax.Expr {
	switch b := e.(type) {
	case *syntax.BinaryExpr:
		switch b.Op {
		case syntax.PLUS, syntax.STAR, syntax.PERCENT, syntax.LTLT:
			return guardCall(b.Op.String(), b.OpPos, b.X, b.Y)
		}
	case *syntax.DotExpr:
		name := &syntax.Literal{Token: syntax.STRING, TokenPos: b.NamePos, Raw: `"` + b.Name.Name + `"`, Value: b.Name.Name}
		return guardCall("·attr", b.Dot, b.X, name)
	}
	return e
}

func guardCall(name string, pos syntax.Position, x, y syntax.Expr) syntax.Expr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: name}, Lparen: pos, Args: []syntax.Expr{x, y}, Rparen: pos}
}

// Package mutate measures how sharply the features reject wrong
// implementations: it enumerates small mutants of the reference
// implementations under impl/ (one operator, condition or statement changed
// by a byte-offset replacement, so the tree is never reformatted), finds the
// scenarios that execute each mutant's line from per-scenario coverage, and
// writes the outcome of running them as a mutation-testing-report-schema
// (version 2) document, the format Stryker writes.
//
// It may import the standard library and anchorage/reports/catalog.
// Building and running test binaries is the job of the command
// reports/cmd/mutate.
package mutate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Mutator names, as the mutation-testing-report-schema's examples name them.
const (
	ConditionalBoundary = "ConditionalBoundary" // < ↔ <=, > ↔ >=
	EqualityOperator    = "EqualityOperator"    // == ↔ !=
	ArithmeticOperator  = "ArithmeticOperator"  // + ↔ -, * ↔ /, += ↔ -=
	LogicalOperator     = "LogicalOperator"     // && ↔ ||
	UpdateOperator      = "UpdateOperator"      // ++ ↔ --
	NegateCondition     = "NegateCondition"     // if c → if !(c)
	RemoveErrorReturn   = "RemoveErrorReturn"   // if err != nil { return … } → if false { … }
	RemoveStatement     = "RemoveStatement"     // a call or an assignment statement deleted
	BooleanLiteral      = "BooleanLiteral"      // true ↔ false
)

// Pos is a 1-based line and byte column, as go/token counts them.
type Pos struct {
	Line, Col int
}

// Less orders positions in a file.
func (p Pos) Less(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Mutant is one small change to one file.
type Mutant struct {
	ID          string // file:line:col:mutator — stable while the line does not move
	Key         string // the code, not the position: see Fingerprint
	File        string // module-relative, slash-separated
	Start, End  Pos    // the replaced text; End is exclusive
	Off, EndOff int    // the same, as byte offsets
	Original    string
	Replacement string
	Mutator     string
}

// Apply returns src with the mutant's replacement in place.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	if m.EndOff > len(src) || m.Off > m.EndOff || string(src[m.Off:m.EndOff]) != m.Original {
		return nil, fmt.Errorf("mutant %s: the source no longer holds %q at offset %d", m.ID, m.Original, m.Off)
	}
	out := make([]byte, 0, len(src)-len(m.Original)+len(m.Replacement))
	out = append(out, src[:m.Off]...)
	out = append(out, m.Replacement...)
	return append(out, src[m.EndOff:]...), nil
}

var swaps = map[token.Token]struct {
	to      token.Token
	mutator string
}{
	token.LSS:        {token.LEQ, ConditionalBoundary},
	token.LEQ:        {token.LSS, ConditionalBoundary},
	token.GTR:        {token.GEQ, ConditionalBoundary},
	token.GEQ:        {token.GTR, ConditionalBoundary},
	token.EQL:        {token.NEQ, EqualityOperator},
	token.NEQ:        {token.EQL, EqualityOperator},
	token.ADD:        {token.SUB, ArithmeticOperator},
	token.SUB:        {token.ADD, ArithmeticOperator},
	token.MUL:        {token.QUO, ArithmeticOperator},
	token.QUO:        {token.MUL, ArithmeticOperator},
	token.ADD_ASSIGN: {token.SUB_ASSIGN, ArithmeticOperator},
	token.SUB_ASSIGN: {token.ADD_ASSIGN, ArithmeticOperator},
	token.LAND:       {token.LOR, LogicalOperator},
	token.LOR:        {token.LAND, LogicalOperator},
	token.INC:        {token.DEC, UpdateOperator},
	token.DEC:        {token.INC, UpdateOperator},
}

// Enumerate returns every mutant of the non-test Go files in the given
// module-relative directories of fsys (the module root), sorted by file and
// position. Files that do not parse are an error: the tree must build.
func Enumerate(fsys fs.FS, dirs []string) ([]Mutant, error) {
	var all []Mutant
	for _, dir := range dirs {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, fmt.Errorf("enumerate %s: %w", dir, err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			file := path.Join(dir, name)
			src, err := fs.ReadFile(fsys, file)
			if err != nil {
				return nil, fmt.Errorf("enumerate: %w", err)
			}
			ms, err := FileMutants(file, src)
			if err != nil {
				return nil, err
			}
			all = append(all, ms...)
		}
	}
	return all, nil
}

// FileMutants returns the mutants of one Go source file.
func FileMutants(file string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("enumerate: %w", err)
	}
	if isGenerated(f) {
		return nil, nil
	}
	tf := fset.File(f.Pos())
	var out []Mutant
	add := func(from, to token.Pos, repl, mutator string) {
		off, end := tf.Offset(from), tf.Offset(to)
		s, e := fset.Position(from), fset.Position(to)
		out = append(out, Mutant{
			ID:   fmt.Sprintf("%s:%d:%d:%s", file, s.Line, s.Column, mutator),
			File: file, Start: Pos{s.Line, s.Column}, End: Pos{e.Line, e.Column},
			Off: off, EndOff: end, Original: string(src[off:end]), Replacement: repl, Mutator: mutator,
		})
	}
	swap := func(pos token.Pos, tok token.Token) {
		if s, ok := swaps[tok]; ok {
			add(pos, pos+token.Pos(len(tok.String())), s.to.String(), s.mutator)
		}
	}
	text := func(n ast.Node) string { return string(src[tf.Offset(n.Pos()):tf.Offset(n.End())]) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			// Constants must stay constant (array lengths, iota blocks).
			if n.Tok == token.CONST || n.Tok == token.IMPORT {
				return false
			}
		case *ast.ArrayType:
			return false
		case *ast.BinaryExpr:
			if n.Op == token.ADD && (isString(n.X) || isString(n.Y)) {
				break // string concatenation: '-' does not compile
			}
			swap(n.OpPos, n.Op)
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN && len(n.Rhs) == 1 && isString(n.Rhs[0]) {
				break
			}
			swap(n.TokPos, n.Tok)
		case *ast.IncDecStmt:
			swap(n.TokPos, n.Tok)
		case *ast.Ident:
			switch n.Name {
			case "true":
				add(n.Pos(), n.End(), "false", BooleanLiteral)
			case "false":
				add(n.Pos(), n.End(), "true", BooleanLiteral)
			}
		case *ast.IfStmt:
			if isErrorReturn(n, text(n.Cond)) {
				add(n.Cond.Pos(), n.Cond.End(), "false", RemoveErrorReturn)
			} else {
				add(n.Cond.Pos(), n.Cond.End(), "!("+text(n.Cond)+")", NegateCondition)
			}
		case *ast.ForStmt:
			if n.Cond != nil {
				add(n.Cond.Pos(), n.Cond.End(), "!("+text(n.Cond)+")", NegateCondition)
			}
		case *ast.BlockStmt:
			for _, st := range n.List {
				if removable(st) {
					add(st.Pos(), st.End(), "", RemoveStatement)
				}
			}
		case *ast.CaseClause:
			for _, st := range n.Body {
				if removable(st) {
					add(st.Pos(), st.End(), "", RemoveStatement)
				}
			}
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Off < out[j].Off })
	out = dedupe(out)
	setKeys(f, tf, src, out)
	return out, nil
}

// setKeys gives each mutant a key that names its code rather than its
// position: the file, the enclosing function, the mutator, the replacement
// and the source line holding the change with the changed text marked, plus
// an ordinal among mutants whose keys are otherwise equal. Lines added or
// removed elsewhere in the file leave the key as it was; editing the line
// itself (or renaming its function) changes it.
func setKeys(f *ast.File, tf *token.File, src []byte, ms []Mutant) {
	type span struct {
		off, end int
		name     string
	}
	var funcs []span
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			name = "(" + string(src[tf.Offset(fd.Recv.List[0].Type.Pos()):tf.Offset(fd.Recv.List[0].Type.End())]) + ")." + name
		}
		funcs = append(funcs, span{tf.Offset(fd.Pos()), tf.Offset(fd.End()), name})
	}
	seen := map[string]int{}
	for i := range ms {
		m := &ms[i]
		fn := "-"
		for _, s := range funcs {
			if m.Off >= s.off && m.Off < s.end {
				fn = s.name
				break
			}
		}
		ls := bytes.LastIndexByte(src[:m.Off], '\n') + 1
		le := bytes.IndexByte(src[m.Off:], '\n')
		if le < 0 {
			le = len(src) - m.Off
		}
		cut := min(m.EndOff, m.Off+le)
		line := strings.Join(strings.Fields(string(src[ls:m.Off])), " ") + "⟦" + string(src[m.Off:cut]) + "⟧" +
			strings.Join(strings.Fields(string(src[cut:m.Off+le])), " ")
		key := m.File + "|" + fn + "|" + m.Mutator + "|" + m.Replacement + "|" + line
		m.Key = fmt.Sprintf("%s|%d", key, seen[key])
		seen[key]++
	}
}

// Fingerprint is a short hash of the mutant's key: it names the mutant in
// reports/equivalent.txt so that an entry follows its code when lines move.
func (m Mutant) Fingerprint() string {
	h := sha256.Sum256([]byte(m.Key))
	return hex.EncodeToString(h[:5])
}

// removable reports whether deleting st leaves code that can still compile:
// a call for its effect, or an assignment to existing variables.
func removable(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ExprStmt:
		c, ok := st.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, isIdent := c.Fun.(*ast.Ident)
		return !isIdent || id.Name != "panic"
	case *ast.AssignStmt:
		return st.Tok == token.ASSIGN
	}
	return false
}

// isErrorReturn: if err != nil { …; return … }.
func isErrorReturn(n *ast.IfStmt, cond string) bool {
	if !strings.Contains(cond, "err") || len(n.Body.List) == 0 {
		return false
	}
	_, ok := n.Body.List[len(n.Body.List)-1].(*ast.ReturnStmt)
	return ok
}

// isString reports whether e is visibly a string (a literal, a conversion,
// a formatting call), where '+' is concatenation.
func isString(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING || e.Kind == token.CHAR
	case *ast.BinaryExpr:
		return isString(e.X) || isString(e.Y)
	case *ast.ParenExpr:
		return isString(e.X)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "fmt" || pkg.Name == "strings" || pkg.Name == "strconv") {
				switch sel.Sel.Name {
				case "Sprint", "Sprintf", "Sprintln", "Repeat", "Join", "Itoa", "Quote", "FormatInt", "TrimSpace", "ToLower", "ToUpper":
					return true
				}
			}
		}
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "string" {
			return true
		}
	}
	return false
}

func isGenerated(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "// Code generated ") && strings.HasSuffix(c.Text, " DO NOT EDIT.") {
				return true
			}
		}
	}
	return false
}

func dedupe(ms []Mutant) []Mutant {
	seen := map[string]bool{}
	out := ms[:0]
	for _, m := range ms {
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	return out
}

package main

// gen.go: a package's exported API, read with go/types and go/doc, written as
// godlpack registration code.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/doc"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type generator struct {
	module, command string
	withMain        bool
	multi           bool              // several packages: the report names each before its lines
	pkg             *types.Package    // the package being bound
	alias           string            // its name in the generated file
	imports         [][2]string       // (alias, path) of the bound packages
	others          map[string]string // path: name of the other packages the code names (time)
	classes         map[*types.TypeName]*classInfo
	enums           map[*types.TypeName]bool
	errorTypes      map[*types.TypeName]string // the type implementing error: "T" or "*T"
	docs            *doc.Package
	fieldDocs       map[string]string // "Type.Field": its comment
	pkgDoc          string
	stmts           []string // the init function's statements before the module's
	members         []string // godlpack.Module's members, as Go expressions
	report          []string
	count, skipped  int
	taken           map[string]string        // module attribute: the import path that took it
	exported        map[*types.TypeName]bool // an IntEnum whose members are module attributes too
}

type classInfo struct {
	named *types.Named
	v     string // the generated variable holding its *godlpack.ClassDef
}

// describe is t as messages and the report spell it (package names, no imports).
func (g *generator) describe(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// typeString is t as the generated code spells it: a package other than the bound
// one is imported.
func (g *generator) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == g.pkg {
			return g.alias
		}
		if g.others == nil {
			g.others = map[string]string{}
		}
		g.others[p.Path()] = p.Name() // imported by source
		return p.Name()
	})
}

func (g *generator) bound(name, what string) {
	g.report = append(g.report, fmt.Sprintf("%s: bound as %s", name, what))
	g.count++
}

func (g *generator) skip(name string, why string) {
	g.report = append(g.report, fmt.Sprintf("%s: skipped: %s", name, why))
	g.count++
	g.skipped++
}

// free reports whether the module attribute name is not taken yet (by an earlier
// package of the module: stat's Bhattacharyya function and distuv's type).
func (g *generator) free(name string) bool {
	_, taken := g.taken[name]
	return !taken
}

// claim takes the module attribute name for the package, or skips the
// identifier when another package took it.
func (g *generator) claim(name string) bool {
	if by, taken := g.taken[name]; taken {
		g.skip(name, "the module attribute "+name+" is "+by+"'s")
		return false
	}
	g.taken[name] = g.pkg.Path()
	return true
}

// bindPackage adds the package path's exported API to the module.
func (g *generator) bindPackage(path string) error {
	fset := token.NewFileSet()
	pkg, err := importer.ForCompiler(fset, "source", nil).Import(path)
	if err != nil {
		return err
	}
	bp, err := build.Import(path, ".", 0)
	if err != nil {
		return err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, bp.Dir+"/"+name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	g.docs, err = doc.NewFromFiles(fset, files, path, doc.PreserveAST)
	if err != nil {
		return err
	}
	g.fieldDocs = fieldDocs(files)
	g.pkg = pkg
	g.alias = g.uniqueAlias(pkg.Name())
	g.imports = append(g.imports, [2]string{g.alias, path})
	if g.pkgDoc == "" {
		g.pkgDoc = strings.TrimSpace(g.docs.Doc)
	}
	g.classes, g.enums = map[*types.TypeName]*classInfo{}, map[*types.TypeName]bool{}
	g.errorTypes = map[*types.TypeName]string{}
	g.exported = map[*types.TypeName]bool{}
	if g.taken == nil {
		g.taken = map[string]string{}
	}
	if g.multi {
		g.report = append(g.report, path+":")
	}
	scope := pkg.Scope()
	names := scope.Names() // sorted
	// Classes and enums first: functions and methods name them.
	for _, name := range names {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || !g.free(name) { // taken: bindType says by whom
			continue
		}
		errType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
		switch {
		case types.Implements(n, errType):
			g.errorTypes[tn] = g.typeString(n)
			continue
		case types.Implements(types.NewPointer(n), errType):
			g.errorTypes[tn] = "*" + g.typeString(n)
			continue
		}
		if _, ok := n.Underlying().(*types.Struct); ok && hasExportedMethods(n) {
			g.classes[tn] = &classInfo{named: n, v: g.alias + name}
		}
		if b, ok := n.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 && len(enumConsts(scope, tn)) > 0 {
			g.enums[tn] = true
			// Its members are module constants too unless another package took one
			// of their names (decided here: the report's lines of them come first).
			g.exported[tn] = true
			for _, c := range enumConsts(scope, tn) {
				g.exported[tn] = g.exported[tn] && g.free(c.Name())
			}
		}
	}
	for _, name := range names {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			g.bindFunc(obj)
		case *types.Const:
			g.bindConst(obj)
		case *types.TypeName:
			g.bindType(obj)
		case *types.Var:
			g.skip(name, "a package variable (only constants are bound)")
		}
	}
	return nil
}

func (g *generator) uniqueAlias(name string) string {
	alias := name
	for i := 2; ; i++ {
		taken := alias == "godlpack" || alias == "constraint" || alias == "slices"
		for _, im := range g.imports {
			taken = taken || im[0] == alias
		}
		if !taken {
			return alias
		}
		alias = name + strconv.Itoa(i)
	}
}

func hasExportedMethods(n *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(n))
	for i := range ms.Len() {
		if ms.At(i).Obj().Exported() {
			return true
		}
	}
	return false
}

// enumConsts are the package's exported constants of type tn, in value order.
func enumConsts(scope *types.Scope, tn *types.TypeName) []*types.Const {
	var out []*types.Const
	for _, name := range scope.Names() {
		if c, ok := scope.Lookup(name).(*types.Const); ok && c.Exported() && c.Type() == tn.Type() {
			if _, exact := constant.Int64Val(c.Val()); exact {
				out = append(out, c)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := constant.Int64Val(out[i].Val())
		b, _ := constant.Int64Val(out[j].Val())
		return a < b
	})
	return out
}

// fieldDocs maps "Type.Field" to each exported struct field's doc comment.
func fieldDocs(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					text := fl.Doc.Text()
					if text == "" {
						text = fl.Comment.Text()
					}
					for _, n := range fl.Names {
						out[ts.Name.Name+"."+n.Name] = strings.TrimSpace(text)
					}
				}
			}
		}
	}
	return out
}

func (g *generator) funcDoc(name string) string {
	for _, f := range g.docs.Funcs {
		if f.Name == name {
			return strings.TrimSpace(f.Doc)
		}
	}
	for _, t := range g.docs.Types {
		for _, f := range t.Funcs {
			if f.Name == name {
				return strings.TrimSpace(f.Doc)
			}
		}
	}
	return ""
}

func (g *generator) typeDoc(name string) (string, *doc.Type) {
	for _, t := range g.docs.Types {
		if t.Name == name {
			return strings.TrimSpace(t.Doc), t
		}
	}
	return "", nil
}

func (g *generator) methodDoc(typeName, name string) string {
	if _, t := g.typeDoc(typeName); t != nil {
		for _, m := range t.Methods {
			if m.Name == name {
				return strings.TrimSpace(m.Doc)
			}
		}
	}
	return ""
}

// A wrapper is the Go function literal that calls a package function or method
// with its arguments converted, as godlpack.Func0..Func4 or godlpack.Func take it.
type wrapper struct {
	lit    string   // the function literal
	names  []string // the Python parameter names
	slices []string // the parameters taken by Slices
	fast   bool     // Func0..Func4 can take it
}

// wrap makes the wrapper of sig, called as call(args) (recv: the receiver's
// wrapper type, "" for a function); copySlices copies slice arguments (a
// method or constructor may keep them past the call, when the tensor's memory is
// no longer lent).
func (g *generator) wrap(sig *types.Signature, recv, call string, copySlices bool) (*wrapper, error) {
	w := &wrapper{fast: recv == "" && sig.Params().Len() <= 4}
	var params, args, pre []string
	if recv != "" {
		params = append(params, "self "+recv)
	}
	seen := map[string]bool{"self": true}
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			return nil, fmt.Errorf("a variadic parameter (%s)", p.Name())
		}
		c, err := g.crossingOf(p.Type(), true)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %v", p.Name(), err)
		}
		name := p.Name()
		if name == "" || name == "_" || seen[name] || !isPyIdent(name) {
			name = "arg" + strconv.Itoa(i)
		}
		seen[name] = true
		w.names = append(w.names, name)
		w.fast = w.fast && c.fast
		v := "p" + strconv.Itoa(i)
		params = append(params, v+" "+c.goType)
		if c.slice != "" {
			w.slices = append(w.slices, name)
			s := "s" + strconv.Itoa(i)
			pre = append(pre, fmt.Sprintf("%s, err := godlpack.GoSlice[%s](%s)\nif err != nil {\nreturn\n}", s, c.slice, v))
			if copySlices {
				pre = append(pre, fmt.Sprintf("%s = slices.Clone(%s)", s, s))
			}
			args = append(args, s)
			continue
		}
		args = append(args, c.in(v))
	}
	res := sig.Results()
	n := res.Len()
	hasErr := n > 0 && types.Identical(res.At(n-1).Type(), types.Universe.Lookup("error").Type())
	if hasErr {
		n--
	}
	var results, outs, got []string
	for i := range n {
		c, err := g.crossingOf(res.At(i).Type(), false)
		if err != nil {
			return nil, fmt.Errorf("result %d: %v", i+1, err)
		}
		w.fast = w.fast && c.fast && n == 1
		r := "r" + strconv.Itoa(i)
		results = append(results, r+" "+c.goType)
		got = append(got, "g"+strconv.Itoa(i))
		outs = append(outs, r+" = "+c.out("g"+strconv.Itoa(i)))
	}
	if n == 0 {
		results = append(results, "r0 godlpack.None")
	}
	results = append(results, "err error")
	var body strings.Builder
	for _, s := range pre {
		body.WriteString(s + "\n")
	}
	lhs := strings.Join(got, ", ")
	if hasErr {
		lhs = strings.Join(append(got, "err"), ", ")
	}
	invoke := call + "(" + strings.Join(args, ", ") + ")"
	switch {
	case lhs == "":
		body.WriteString(invoke + "\n")
	case hasErr && n == 0:
		body.WriteString("err = " + invoke + "\n")
	default:
		body.WriteString(lhs + " := " + invoke + "\n")
		if hasErr {
			body.WriteString("if err != nil {\nreturn\n}\n")
		}
	}
	for _, o := range outs {
		body.WriteString(o + "\n")
	}
	body.WriteString("return\n")
	w.lit = fmt.Sprintf("func(%s) (%s) {\n%s}", strings.Join(params, ", "), strings.Join(results, ", "), body.String())
	return w, nil
}

func isPyIdent(s string) bool {
	switch s { // Python keywords Go allows as names
	case "None", "True", "False", "and", "as", "assert", "async", "await", "class", "def", "del",
		"elif", "except", "finally", "from", "global", "in", "is", "lambda", "nonlocal", "not",
		"or", "pass", "raise", "try", "while", "with", "yield", "self":
		return false
	}
	return true
}

// funcDecl is the godlpack.FuncN or godlpack.Func expression of w, named name.
func funcDecl(name string, w *wrapper, docText string) string {
	quoted := make([]string, len(w.names))
	for i, n := range w.names {
		quoted[i] = strconv.Quote(n)
	}
	head := "godlpack.Func"
	if w.fast {
		head += strconv.Itoa(len(w.names))
	}
	args := append([]string{strconv.Quote(name), w.lit}, quoted...)
	return head + "(" + strings.Join(args, ", ") + ")" + refine(w, docText)
}

// refine is what follows a Function's constructor: Slices and the constraint
// that a slice is one-dimensional, and Doc.
func refine(w *wrapper, docText string) string {
	var b strings.Builder
	for _, s := range w.slices {
		fmt.Fprintf(&b, ".\nSlices(%q).Where(%q, constraint.NDim(1))", s, s)
	}
	if docText != "" {
		fmt.Fprintf(&b, ".\nDoc(%s)", strconv.Quote(docText))
	}
	return b.String()
}

func (g *generator) bindFunc(fn *types.Func) {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 {
		g.skip(fn.Name(), "a generic function")
		return
	}
	w, err := g.wrap(sig, "", g.alias+"."+fn.Name(), false)
	if err != nil {
		g.skip(fn.Name(), err.Error())
		return
	}
	if !g.claim(fn.Name()) {
		return
	}
	g.members = append(g.members, funcDecl(fn.Name(), w, g.funcDoc(fn.Name())))
	g.bound(fn.Name(), fmt.Sprintf("function %s(%s)", fn.Name(), strings.Join(w.names, ", ")))
}

func (g *generator) bindConst(c *types.Const) {
	if n, ok := c.Type().(*types.Named); ok && g.enums[n.Obj()] {
		if g.exported[n.Obj()] {
			g.bound(c.Name(), fmt.Sprintf("member of IntEnum %s, and module constant", n.Obj().Name()))
		} else {
			g.bound(c.Name(), fmt.Sprintf("member of IntEnum %s (a member's name is another package's: not module constants)", n.Obj().Name()))
		}
		return
	}
	b, ok := c.Type().Underlying().(*types.Basic)
	if !ok {
		g.skip(c.Name(), "a constant of no basic type")
		return
	}
	expr := g.alias + "." + c.Name()
	switch {
	case b.Info()&types.IsInteger != 0:
		if _, exact := constant.Int64Val(c.Val()); exact {
			expr = "int64(" + expr + ")"
		} else if _, exact := constant.Uint64Val(c.Val()); exact {
			expr = "uint64(" + expr + ")"
		} else {
			g.skip(c.Name(), "an integer constant beyond uint64")
			return
		}
	case b.Info()&types.IsFloat != 0:
		expr = "float64(" + expr + ")"
	case b.Info()&types.IsBoolean != 0:
		expr = "bool(" + expr + ")"
	case b.Info()&types.IsString != 0:
		expr = "string(" + expr + ")"
	default:
		g.skip(c.Name(), "a complex constant")
		return
	}
	if !g.claim(c.Name()) {
		return
	}
	g.members = append(g.members, fmt.Sprintf("godlpack.Const(%q, %s)", c.Name(), expr))
	g.bound(c.Name(), "module constant")
}

func (g *generator) bindType(tn *types.TypeName) {
	name := tn.Name()
	docText, _ := g.typeDoc(name)
	if by, taken := g.taken[name]; taken {
		g.skip(name, "the module attribute "+name+" is "+by+"'s")
		return
	}
	if g.errorTypes[tn] != "" || g.enums[tn] || g.classes[tn] != nil {
		g.claim(name)
	}
	switch {
	case g.errorTypes[tn] != "":
		// The package's error type: an exception class raised for the errors that
		// errors.As finds one in, instead of ValueError.
		g.members = append(g.members, fmt.Sprintf("godlpack.ExceptionFor[%s](%q, godlpack.ValueError, %s)",
			g.errorTypes[tn], name, strconv.Quote(docText)))
		g.bound(name, "exception class (a ValueError) raised for its errors")
	case g.enums[tn]:
		var b strings.Builder
		fmt.Fprintf(&b, "godlpack.IntEnum(%q, %s)", name, strconv.Quote(docText))
		members := enumConsts(g.pkg.Scope(), tn)
		for _, c := range members {
			fmt.Fprintf(&b, ".\nValue(%q, int64(%s.%s))", c.Name(), g.alias, c.Name())
		}
		if g.exported[tn] {
			for _, c := range members {
				g.claim(c.Name())
			}
			b.WriteString(".\nExport()")
		}
		g.members = append(g.members, b.String())
		g.bound(name, "IntEnum")
	case g.classes[tn] != nil:
		g.bindClass(tn, docText)
	case tn.IsAlias():
		g.skip(name, "a type alias")
	default:
		n, _ := tn.Type().(*types.Named)
		switch {
		case n != nil && n.TypeParams().Len() > 0:
			g.skip(name, "a generic type")
		case n != nil:
			if _, ok := n.Underlying().(*types.Struct); ok {
				g.skip(name, "a struct type with no exported methods")
			} else {
				g.skip(name, kindOf(n)+" (not bound as a class)")
			}
		}
	}
}

func (g *generator) bindClass(tn *types.TypeName, docText string) {
	ci := g.classes[tn]
	name, typ := tn.Name(), g.typeString(ci.named)
	ptr := "*" + typ
	var b strings.Builder
	fmt.Fprintf(&b, "%s := godlpack.Class[%s](%q, %s)\n", ci.v, typ, name, strconv.Quote(docText))
	// The constructor: a NewT function returning T or *T, else keyword arguments
	// naming the exported fields.
	how := ""
	if fn, ok := g.pkg.Scope().Lookup("New" + name).(*types.Func); ok && returnsClass(fn, ci.named) {
		sig := fn.Type().(*types.Signature)
		if w, err := g.wrap(sig, "", g.alias+"."+fn.Name(), true); err == nil {
			quoted := []string{w.lit}
			for _, n := range w.names {
				quoted = append(quoted, strconv.Quote(n))
			}
			fmt.Fprintf(&b, "%s.Init(%s)%s\n", ci.v, strings.Join(quoted, ", "), refine(w, ""))
			how = "constructor New" + name + "(" + strings.Join(w.names, ", ") + ")"
		}
	}
	st := ci.named.Underlying().(*types.Struct)
	var fields []string
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() || f.Embedded() {
			continue
		}
		full := name + "." + f.Name()
		c, err := g.crossingOf(f.Type(), false)
		if err != nil || c.slice != "" || strings.HasPrefix(c.goType, "*") {
			why := "a field of an unsupported type"
			if err != nil {
				why = "a field: " + err.Error()
			}
			g.skip(full, why)
			continue
		}
		in := g.mustCrossing(f.Type())
		fmt.Fprintf(&b, "%s.Property(%q, %s, func(self %s) %s { return %s }, func(self %s, v %s) { self.%s = %s })\n",
			ci.v, f.Name(), strconv.Quote(g.fieldDocs[full]), ptr, c.goType, c.out("self."+f.Name()),
			ptr, c.goType, f.Name(), in.in("v"))
		g.bound(full, "read-write property")
		if _, scalar := f.Type().Underlying().(*types.Basic); scalar {
			fields = append(fields, f.Name())
		}
	}
	if how == "" {
		var params, inits, names []string
		for _, fname := range fields {
			var f *types.Var
			for i := range st.NumFields() {
				if st.Field(i).Name() == fname {
					f = st.Field(i)
				}
			}
			c := g.mustCrossing(f.Type())
			params = append(params, "p_"+fname+" "+c.goType)
			inits = append(inits, fname+": "+c.in("p_"+fname))
			names = append(names, strconv.Quote(fname))
		}
		fmt.Fprintf(&b, "%s.Init(func(%s) (%s, error) { return &%s{%s}, nil }%s)",
			ci.v, strings.Join(params, ", "), ptr, typ, strings.Join(inits, ", "), prefixed(names))
		for _, fname := range fields {
			fmt.Fprintf(&b, ".\nDefault(%q, %s)", fname, zeroLiteral(g.fieldType(st, fname)))
		}
		b.WriteString("\n")
		how = "constructor from keyword arguments " + strings.Join(fields, ", ")
		if len(fields) == 0 {
			how = "constructor with no arguments (the zero value)"
		}
	}
	ms := types.NewMethodSet(types.NewPointer(ci.named))
	for i := range ms.Len() {
		m := ms.At(i).Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		full := name + "." + m.Name()
		w, err := g.wrap(m.Type().(*types.Signature), ptr, "self."+m.Name(), true)
		if err != nil {
			g.skip(full, err.Error())
			continue
		}
		quoted := []string{strconv.Quote(m.Name()), w.lit}
		for _, n := range w.names {
			quoted = append(quoted, strconv.Quote(n))
		}
		fmt.Fprintf(&b, "%s.Def(%s)%s\n", ci.v, strings.Join(quoted, ", "), refine(w, g.methodDoc(name, m.Name())))
		g.bound(full, fmt.Sprintf("method %s(%s)", m.Name(), strings.Join(w.names, ", ")))
	}
	g.stmts = append(g.stmts, b.String())
	g.members = append(g.members, ci.v)
	g.bound(name, "class, "+how)
}

func (g *generator) mustCrossing(t types.Type) crossing {
	c, err := g.crossingOf(t, true)
	if err != nil {
		c, _ = g.crossingOf(t, false)
	}
	if c.slice != "" { // a field set from Python is Go's own copy: a list
		c = crossing{goType: "[]" + c.slice, in: same, out: same}
	}
	return c
}

func (g *generator) fieldType(st *types.Struct, name string) types.Type {
	for i := range st.NumFields() {
		if st.Field(i).Name() == name {
			return st.Field(i).Type()
		}
	}
	return nil
}

func zeroLiteral(t types.Type) string {
	b := t.Underlying().(*types.Basic)
	switch {
	case b.Info()&types.IsFloat != 0:
		return "0.0"
	case b.Info()&types.IsBoolean != 0:
		return "false"
	case b.Info()&types.IsString != 0:
		return `""`
	}
	return "0"
}

func prefixed(quoted []string) string {
	if len(quoted) == 0 {
		return ""
	}
	return ", " + strings.Join(quoted, ", ")
}

// returnsClass reports whether fn returns n or *n, optionally with an error.
func returnsClass(fn *types.Func, n *types.Named) bool {
	sig := fn.Type().(*types.Signature)
	r := sig.Results()
	if r.Len() == 0 || r.Len() > 2 || sig.TypeParams().Len() > 0 {
		return false
	}
	if r.Len() == 2 && !types.Identical(r.At(1).Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	t := r.At(0).Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return types.Identical(t, n)
}

// source is the generated Go file.
func (g *generator) source() ([]byte, error) {
	var body bytes.Buffer
	body.WriteString("func init() {\n")
	for _, s := range g.stmts {
		body.WriteString(s)
	}
	if g.withMain {
		fmt.Fprintf(&body, "godlpack.Module(%q, %s,\n", g.module, strconv.Quote(g.pkgDoc))
	} else {
		fmt.Fprintf(&body, "godlpack.Extend(%q,\n", g.module)
	}
	for _, m := range g.members {
		body.WriteString(m + ",\n")
	}
	body.WriteString(")\n}\n")
	if g.withMain {
		body.WriteString("\n// A c-shared library needs a main function; it never runs.\nfunc main() {}\n")
	}
	used, err := usedPackages(body.Bytes())
	if err != nil {
		return body.Bytes(), err
	}
	// Every package the code names, and only those: a package whose every
	// identifier was skipped, a type named only in a skipped function's message.
	imports := [][2]string{{"", "slices"}, {"", "github.com/godlpack/godlpack"}, {"", "github.com/godlpack/godlpack/constraint"}}
	names := map[string]string{"slices": "slices", "github.com/godlpack/godlpack": "godlpack", "github.com/godlpack/godlpack/constraint": "constraint"}
	for _, im := range g.imports {
		imports, names[im[1]] = append(imports, im), im[0]
	}
	for _, path := range slices.Sorted(maps.Keys(g.others)) {
		if _, ok := names[path]; !ok {
			imports, names[path] = append(imports, [2]string{g.others[path], path}), g.others[path]
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by %q; DO NOT EDIT.\n\n", g.command)
	fmt.Fprintf(&b, "// Registration of the exported API of %s as the Python module %s, written by\n", g.paths(), g.module)
	b.WriteString("// godlpack-bind (docs/binding.md) from the packages' type information.\n\npackage main\n\nimport (\n")
	for _, im := range imports {
		if used[names[im[1]]] {
			fmt.Fprintf(&b, "%s %q\n", im[0], im[1])
		}
	}
	b.WriteString(")\n\n")
	b.Write(body.Bytes())
	src, err := format.Source(b.Bytes())
	if err != nil {
		return b.Bytes(), fmt.Errorf("the generated code does not parse (a bug of godlpack-bind): %v", err)
	}
	return src, nil
}

// usedPackages are the names the code uses as packages (the X of X.Sel).
func usedPackages(body []byte) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", append([]byte("package main\n"), body...), 0)
	if err != nil {
		return nil, fmt.Errorf("the generated code does not parse (a bug of godlpack-bind): %v", err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used, nil
}

func (g *generator) paths() string {
	var ps []string
	for _, im := range g.imports {
		ps = append(ps, im[1])
	}
	return strings.Join(ps, ", ")
}

func (g *generator) reportText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "godlpack-bind: module %s from %s: %d exported identifiers, %d skipped\n",
		g.module, g.paths(), g.count, g.skipped)
	for _, line := range g.report {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

//go:build godlpack_python

package godlpack

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_ext_add(PyObject *m, gd_ext_func *f);
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// A Python extension written in Go is a main package that imports this one and
// defines its module in an init function:
//
//	func init() {
//		godlpack.Module("goext", "Functions over DLPack tensors, in Go.",
//			godlpack.Func2("scale", scale, "x", "k"),
//			godlpack.Func1("sum", sum, "x"),
//		)
//	}
//
//	func main() {} // a c-shared library needs one; it never runs
//
// godlpack's build backend compiles it with -buildmode=c-shared and adds the
// module's PyInit_<name> (PyInitTemplate). Arrays it returns are godlpack.Array
// instances made by the godlpack module itself, which the extension imports.

// modules holds the modules the package's init functions defined, by name.
var modules = map[string]*moduleSpec{}

type moduleSpec struct {
	name, doc  string
	funcs      []*Function
	classes    []*ClassDef
	exceptions []*ExceptionClass
	errs       []string
}

// A Member is what a module holds: a *Function (Func, Func0..Func4), a
// *ClassDef (Class) or an *ExceptionClass (ExceptionFor).
type Member interface{ member() }

func (*Function) member()       {}
func (*ClassDef) member()       {}
func (*ExceptionClass) member() {}

// Module defines the Python module name (the last part of its import name) with
// its docstring and members: functions, classes and exception classes. Call it
// from an init function. Mistakes in the definition (a parameter of an
// unsupported type, names that do not match) are reported as ImportError when
// Python imports the module.
func Module(name, doc string, members ...Member) {
	var funcs []*Function
	var classes []*ClassDef
	var exceptions []*ExceptionClass
	var bad []string
	for _, mb := range members {
		switch mb := mb.(type) {
		case *Function:
			funcs = append(funcs, mb) // nil included: newModuleSpec reports it
		case *ClassDef:
			if mb == nil {
				bad = append(bad, "a nil *ClassDef")
				continue
			}
			classes = append(classes, mb)
		case *ExceptionClass:
			if mb == nil {
				bad = append(bad, "a nil *ExceptionClass")
				continue
			}
			exceptions = append(exceptions, mb)
		default:
			bad = append(bad, "a nil Member")
		}
	}
	m := newModuleSpec(name, doc, funcs)
	m.classes, m.exceptions = classes, exceptions
	m.errs = append(m.errs, bad...)
	m.checkMembers()
	if _, dup := modules[name]; dup {
		m.errs = append(m.errs, fmt.Sprintf("godlpack.Module(%q) is called twice", name))
	}
	modules[name] = m
}

// newModuleSpec checks a module's functions (Module, and the godlpack module's
// own in module_funcs.go): their mistakes are kept for ImportError.
func newModuleSpec(name, doc string, funcs []*Function) *moduleSpec {
	m := &moduleSpec{name: name, doc: doc, funcs: funcs}
	seen := map[string]bool{}
	for _, f := range funcs {
		if f == nil {
			m.errs = append(m.errs, "a nil *Function")
			continue
		}
		m.errs = append(m.errs, f.errs...)
		if seen[f.name] {
			m.errs = append(m.errs, fmt.Sprintf("two functions are named %q", f.name))
		}
		seen[f.name] = true
		m.errs = append(m.errs, f.checkDefaults()...)
	}
	return m
}

// checkMembers adds the mistakes of m's classes and exception classes, and names
// used twice among all its members.
func (m *moduleSpec) checkMembers() {
	seen := map[string]bool{}
	for _, f := range m.funcs {
		if f != nil {
			seen[f.name] = true
		}
	}
	dup := func(name string) {
		if seen[name] {
			m.errs = append(m.errs, fmt.Sprintf("two members are named %q", name))
		}
		seen[name] = true
	}
	for _, c := range m.classes {
		dup(c.name)
		m.errs = append(m.errs, c.errs...)
		methods := map[string]bool{}
		for _, f := range c.functions() {
			m.errs = append(m.errs, f.errs...)
			m.errs = append(m.errs, f.checkDefaults()...)
		}
		for _, f := range c.methods {
			if methods[f.name] {
				m.errs = append(m.errs, fmt.Sprintf("%s: two methods are named %q", c.name, f.name))
			}
			methods[f.name] = true
		}
	}
	for _, e := range m.exceptions {
		dup(e.name)
		m.errs = append(m.errs, e.errs...)
	}
}

// resolveClasses checks, when the module is imported (every init function has
// run, so every Class is known), that the *T types of m's functions are bound
// classes.
func (m *moduleSpec) resolveClasses() {
	fs := append([]*Function(nil), m.funcs...)
	for _, c := range m.classes {
		fs = append(fs, c.functions()...)
	}
	for _, f := range fs {
		for _, t := range f.classTypes {
			if _, ok := boundClasses[t]; !ok {
				m.errs = append(m.errs, fmt.Sprintf("%s(): %v is not a bound class (godlpack.Class[%v])", f.name, t, t.Elem()))
			}
		}
	}
}

// PyInitTemplate is the Go file the build backend adds to an extension's main
// package (through go build -overlay), with {name} replaced by the module's
// name: the C entry point PyInit_{name} that CPython looks up.
const PyInitTemplate = `// Code generated by the godlpack build backend. DO NOT EDIT.

//go:build godlpack_python

package main

/*
#include <Python.h>
PyObject *godlpack_ext_init(const char *name);
PyMODINIT_FUNC PyInit_{name}(void) { return godlpack_ext_init("{name}"); }
*/
import "C"
`

func importError(msg string) {
	cs := C.CString(msg)
	defer C.free(unsafe.Pointer(cs))
	C.PyErr_SetString(C.PyExc_ImportError, cs)
}

// goExtModuleDoc is the docstring of module name (malloc'd, for good), or NULL
// with ImportError set when the extension defines no such module or its
// definition has mistakes.
//
//export goExtModuleDoc
func goExtModuleDoc(name *C.char) *C.char {
	m, ok := modules[C.GoString(name)]
	if !ok {
		names := make([]string, 0, len(modules))
		for n := range modules {
			names = append(names, strconv.Quote(n))
		}
		sort.Strings(names)
		importError(fmt.Sprintf("this extension defines no godlpack.Module(%q, ...) (it defines: %s); the module name must be the one the extension is built as", C.GoString(name), strings.Join(names, ", ")))
		return nil
	}
	m.resolveClasses()
	if len(m.errs) > 0 {
		importError(fmt.Sprintf("godlpack.Module(%q): %s", m.name, strings.Join(m.errs, "; ")))
		return nil
	}
	return C.CString(m.doc)
}

// goExtExec adds module name's functions to the module object mod (module
// exec, GIL held).
//
//export goExtExec
func goExtExec(mod *C.PyObject, name *C.char) C.int {
	markHosted() // Go code of this extension may call back into Python (gil.go)
	m := modules[C.GoString(name)]
	if m == nil {
		importError("godlpack: module " + C.GoString(name) + " vanished")
		return -1
	}
	if m.addTo(mod) < 0 || m.addStubInfo(mod) < 0 {
		return -1
	}
	return registerForkHooks(mod) // this extension's own Go runtime (fork_hooks.go)
}

// addTo adds m's functions to the module object mod (GIL held). Their C tables
// are made once and kept for good: a module imported again shares them.
func (m *moduleSpec) addTo(mod *C.PyObject) C.int {
	for _, e := range m.exceptions {
		if e.addTo(mod, m.name) < 0 {
			return -1
		}
	}
	for _, c := range m.classes {
		if c.addTo(mod, m.name) < 0 {
			return -1
		}
	}
	for _, f := range m.funcs {
		f.makeCTable()
		if C.gd_ext_add(mod, f.cfunc) < 0 {
			return -1
		}
	}
	return 0
}

// makeCTable gives f its id in extFuncs and its C table, the first time (GIL held).
func (f *Function) makeCTable() {
	if f.cfunc == nil {
		f.id = int32(len(extFuncs))
		extFuncs = append(extFuncs, f)
		f.cfunc = f.cTable()
	}
}

// cTable makes the C description of f that ext_call.c reads (C memory, never freed).
func (f *Function) cTable() *C.gd_ext_func {
	c := C.gd_ext_func_new(C.int32_t(len(f.params)))
	if c == nil {
		panic("godlpack: out of memory at module init")
	}
	c.def.ml_name = C.CString(f.name)
	if len(f.overloads) > 0 {
		c.def.ml_doc = C.CString(f.name + "(*args, **kwargs)\n--\n\nOverloaded:\n" + f.overloadSignatures(true) + "\n\n" + f.doc)
		f.overloadTable(c)
	} else {
		c.def.ml_doc = C.CString(f.signature() + "\n--\n\n" + f.doc)
	}
	c.id = C.int32_t(f.id)
	c.nparams = C.int32_t(len(f.params))
	c.npositional, c.fast_nargs = C.int32_t(f.kwOnly), C.int32_t(len(f.params))
	if f.kwOnly < len(f.params) {
		c.fast_nargs = -1
	}
	c.result_fw = f.resultFw
	if f.resultLike >= 0 {
		c.result_fw, c.result_like = C.GD_EXT_FW_LIKE, C.int32_t(f.resultLike)
	}
	c.gil = f.gil
	for i, p := range f.params {
		p.finish()
		cp := &unsafe.Slice(c.params, len(f.params))[i]
		cp.name = C.CString(p.name)
		cp.kind = p.kind
		if c, ok := boundClasses[p.goType]; ok && p.kind == C.GD_EXT_INSTANCE {
			cp.cls = C.int32_t(c.id)
		}
		if p.kind == C.GD_EXT_OBJECT {
			cp.accepts, cp.type_name = acceptsOf(p.goType), C.CString(pyTypeName(p.goType))
		}
		if p.hasDefault {
			cp.has_default = 1
			v := reflect.ValueOf(p.def)
			switch isInt, isFloat := numberKind(p.def); {
			case p.def == nil && (p.kind == C.GD_EXT_TENSOR || p.kind == C.GD_EXT_MUT_TENSOR):
				cp.kind |= C.GD_EXT_OPTIONAL // an optional tensor: ext_call.c's absent_tensor
			case p.kind == C.GD_EXT_OBJECT: // Go keeps it (param.defaultValue); C passes NULL
			case isInt && v.CanInt():
				cp.def_i, cp.def_f = C.int64_t(v.Int()), C.double(v.Int())
			case isInt:
				cp.def_i, cp.def_f = C.int64_t(v.Uint()), C.double(v.Uint()) // a uint64's bits
			case isFloat:
				cp.def_f = C.double(v.Float())
			case v.Kind() == reflect.Bool && v.Bool():
				cp.def_i = 1
			case v.Kind() == reflect.String:
				cp.def_s, cp.def_slen = (*C.char)(cBytes(v.String())), C.Py_ssize_t(v.Len())
			}
		}
	}
	return c
}

// numberKind says whether v is a Go integer or a Go float (any width).
func numberKind(v any) (isInt, isFloat bool) {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true, false
	case reflect.Float32, reflect.Float64:
		return false, true
	}
	return false, false
}

// checkDefaults reports defaults of the wrong type and required parameters after
// optional ones.
func (f *Function) checkDefaults() []string {
	var errs []string
	optional := false
	for i, p := range f.params {
		if !p.hasDefault {
			if optional && i < f.kwOnly { // a keyword-only one may be required anywhere, as in Python
				errs = append(errs, fmt.Sprintf("%s(): parameter %s has no default but follows one that has", f.name, p.name))
			}
			continue
		}
		optional = true
		isInt, isFloat := numberKind(p.def)
		ok := false
		switch p.kind {
		case C.GD_EXT_INT, C.GD_EXT_UINT:
			ok = isInt
		case C.GD_EXT_FLOAT:
			ok = isInt || isFloat
		case C.GD_EXT_BOOL:
			_, ok = p.def.(bool)
		case C.GD_EXT_STR:
			_, ok = p.def.(string)
		case C.GD_EXT_TENSOR, C.GD_EXT_MUT_TENSOR:
			ok = p.def == nil
		case C.GD_EXT_OBJECT:
			ok = defaultSuits(p.def, p.goType)
		case C.GD_EXT_INSTANCE:
			ok = p.def == nil
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("%s(): the default %#v does not suit parameter %s of type %v", f.name, p.def, p.name, p.goType))
		}
	}
	return errs
}

// signature is f's text signature, "scale(x, k=2.0)", for help() and inspect.
func (f *Function) signature() string {
	parts := make([]string, len(f.params))
	for i, p := range f.params {
		parts[i] = p.name
		if p.hasDefault {
			parts[i] += "=" + pyLiteral(p.def)
		}
		if i == f.kwOnly {
			parts[i] = "*, " + parts[i]
		}
	}
	return f.name + "(" + strings.Join(parts, ", ") + ")"
}

func pyLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case float32:
		return pyLiteral(float64(v))
	case float64:
		switch {
		case math.IsInf(v, 1):
			return "float('inf')"
		case math.IsInf(v, -1):
			return "float('-inf')"
		case math.IsNaN(v):
			return "float('nan')"
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

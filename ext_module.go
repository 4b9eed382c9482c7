package godlpack

// ext_module.go: Module, a module's declaration, and the checks of its members
// (the rules import applies and Check reports). No build tag and no C;
// ext_module_cpython.go makes the module object when Python imports it.

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// modules holds the modules the package's init functions defined, by name.
var modules = map[string]*moduleSpec{}

type moduleSpec struct {
	name, doc  string
	funcs      []*Function
	classes    []*ClassDef
	exceptions []*ExceptionClass
	consts     []*Constant
	enums      []*Enum
	errs       []string
}

// A Member is what a module holds: a *Function (Func, Func0..Func4), a
// *ClassDef (Class), an *ExceptionClass (ExceptionFor), a *Constant (Const)
// or an *Enum (IntEnum).
type Member interface{ member() }

func (*Function) member()       {}
func (*ClassDef) member()       {}
func (*ExceptionClass) member() {}
func (*Constant) member()       {}
func (*Enum) member()           {}

// Module defines the Python module name (the last part of its import name) with
// its docstring and members: functions, classes, exception classes, constants
// and enumerations. Call it
// from an init function. Mistakes in the definition (a parameter of an
// unsupported type, names that do not match) are reported as ImportError when
// Python imports the module.
func Module(name, doc string, members ...Member) {
	d := declare(name)
	if d.declared {
		d.twice = true
	}
	d.declared, d.doc = true, doc
	d.members = append(members, d.members...) // Extend's, if it ran first, after Module's own
	d.build(name)
}

// Extend adds members to module name, declared by Module in another file of the
// package (in either order): a project's own functions beside the ones
// godlpack-bind generated for a Go package at build time ([tool.godlpack] bind,
// docs/binding.md).
func Extend(name string, members ...Member) {
	d := declare(name)
	d.members = append(d.members, members...)
	d.build(name)
}

// A declaration is what Module and Extend said of one module so far.
type declaration struct {
	doc      string
	members  []Member
	declared bool // Module was called
	twice    bool // Module was called more than once
}

var declarations = map[string]*declaration{}

func declare(name string) *declaration {
	d := declarations[name]
	if d == nil {
		d = &declaration{}
		declarations[name] = d
	}
	return d
}

// build (re)makes the module's spec from its declaration.
func (d *declaration) build(name string) {
	var funcs []*Function
	var classes []*ClassDef
	var exceptions []*ExceptionClass
	var consts []*Constant
	var enums []*Enum
	var bad []string
	for _, mb := range d.members {
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
		case *Constant:
			if mb == nil {
				bad = append(bad, "a nil *Constant")
				continue
			}
			consts = append(consts, mb)
		case *Enum:
			if mb == nil {
				bad = append(bad, "a nil *Enum")
				continue
			}
			enums = append(enums, mb)
		default:
			bad = append(bad, "a nil Member")
		}
	}
	m := newModuleSpec(name, d.doc, funcs)
	m.classes, m.exceptions = classes, exceptions
	m.consts, m.enums = consts, enums
	m.errs = append(m.errs, bad...)
	m.checkMembers()
	if d.twice {
		m.errs = append(m.errs, fmt.Sprintf("godlpack.Module(%q) is called twice", name))
	}
	if !d.declared {
		m.errs = append(m.errs, fmt.Sprintf("godlpack.Extend(%q) adds to a module no godlpack.Module declares: declare it in the package", name))
	}
	modules[name] = m
}

// newModuleSpec checks a module's functions (Module, and the godlpack module's
// own in internal/arraymodule/module_funcs.go): their mistakes are kept for
// ImportError.
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
		if c.setstate != nil && c.init == nil {
			m.errs = append(m.errs, fmt.Sprintf("%s: Pickle needs Init: unpickling makes the instance as %s.__new__ does, "+
				"which a class without a constructor refuses", c.name, c.name))
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
	for _, c := range m.consts {
		dup(c.name)
		m.errs = append(m.errs, c.errs...)
	}
	for _, e := range m.enums {
		dup(e.name)
		m.errs = append(m.errs, e.errs...)
		if e.export {
			for _, v := range e.members {
				dup(v.name)
			}
		}
	}
}

// Check reports the mistakes in the declaration of module name (Module) that
// importing it would raise as ImportError, with the same message: names used
// twice or not valid Python identifiers, parameters and results of types a
// function cannot take or give, defaults that do not suit their parameter,
// constraints on parameters that are not tensors, overload sets that cannot
// work, unbound classes. nil when the module would import. It needs no Python:
// call it from a go test of the extension's package, whose init functions have
// declared the module.
//
//	func TestModule(t *testing.T) {
//		if err := godlpack.Check("goext"); err != nil {
//			t.Fatal(err)
//		}
//	}
func Check(name string) error {
	_, err := checkedModule(name)
	return err
}

// Lookup returns the function name of module (Module), for a go test to call
// (Function.Call): a module function's name, a class's name for its constructor
// (Init), or "Class.method" for a method or "Class.property" for a property's
// getter. nil if there is none; Call on nil returns an error saying so.
func Lookup(module, name string) *Function {
	m := modules[module]
	if m == nil {
		return nil
	}
	for _, f := range m.funcs {
		if f != nil && f.name == name {
			return f
		}
	}
	class, member, isMember := strings.Cut(name, ".")
	for _, c := range m.classes {
		switch {
		case c.name != class:
		case !isMember:
			return c.init
		default:
			for _, f := range c.methods {
				if f.name == member {
					return f
				}
			}
			for _, p := range c.props {
				if p.name == member {
					return p.get
				}
			}
		}
	}
	return nil
}

// checkedModule is module name, checked as its import does (every init function
// has run by then, so every Class is known); the error is the ImportError's
// message.
func checkedModule(name string) (*moduleSpec, error) {
	m, ok := modules[name]
	if !ok {
		names := make([]string, 0, len(modules))
		for n := range modules {
			names = append(names, strconv.Quote(n))
		}
		sort.Strings(names)
		return nil, fmt.Errorf("this extension defines no godlpack.Module(%q, ...) (it defines: %s); the module name must be the one the extension is built as", name, strings.Join(names, ", "))
	}
	errs := append(m.errs[:len(m.errs):len(m.errs)], m.unboundClasses()...)
	if errs = append(errs, m.enumDefaults()...); len(errs) > 0 {
		return nil, fmt.Errorf("godlpack.Module(%q): %s", m.name, strings.Join(errs, "; "))
	}
	return m, nil
}

// unboundClasses are the *T types of m's functions that are not bound classes
// (godlpack.Class[T]), as mistakes.
func (m *moduleSpec) unboundClasses() (errs []string) {
	fs := append([]*Function(nil), m.funcs...)
	for _, c := range m.classes {
		fs = append(fs, c.functions()...)
	}
	for _, f := range fs {
		for _, t := range f.classTypes {
			if _, ok := boundClasses[t]; !ok {
				errs = append(errs, fmt.Sprintf("%s(): %v is not a bound class (godlpack.Class[%v])", f.name, t, t.Elem()))
			}
		}
	}
	return errs
}

// enumDefaults are the defaults of m's IntEnumFor-typed parameters that are no
// member's value, as mistakes (checked at import: IntEnumFor may come after the
// Func).
func (m *moduleSpec) enumDefaults() (errs []string) {
	fs := append([]*Function(nil), m.funcs...)
	for _, c := range m.classes {
		fs = append(fs, c.functions()...)
	}
	for _, f := range fs {
		for _, a := range append([]*Function{f}, f.overloads...) {
			for _, p := range a.params {
				e := boundEnums[p.goType]
				if e == nil || !p.hasDefault {
					continue
				}
				if isInt, _ := numberKind(p.def); isInt && e.memberName(intOf(reflect.ValueOf(p.def))) == "" {
					errs = append(errs, fmt.Sprintf("%s(): the default %v of parameter %s is not a member of %s", a.name, p.def, p.name, e.describe()))
				}
			}
		}
	}
	return errs
}

// PyInitTemplate is the Go file that defines an extension's PyInit_{name}, the C
// entry point CPython looks up, as the build backend added it to the extension's
// main package when it read it from here. The backend has its own copy now
// (pyext/godlpack_build/extension.py): build plumbing is not this package's API.
//
// Deprecated: nothing reads it; it stays one release for code that named it.
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
		if f.isVar(i) {
			if p.hasDefault {
				errs = append(errs, fmt.Sprintf("%s(): parameter %s is *args or **kwargs: it takes no default (an empty tuple or dict is)", f.name, p.name))
			}
			continue
		}
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
		case extInt, extUint:
			ok = isInt
		case extFloat:
			ok = isInt || isFloat
		case extBool:
			_, ok = p.def.(bool)
		case extStr:
			_, ok = p.def.(string)
		case extTensor, extMutTensor:
			ok = p.def == nil
		case extObject:
			ok = defaultSuits(p.def, p.goType)
		case extInstance:
			ok = p.def == nil
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("%s(): the default %#v does not suit parameter %s of type %v", f.name, p.def, p.name, p.goType))
		}
	}
	return errs
}

// defaultSuits reports whether value may be the default of an object parameter
// of type t: nil for a type that has it, or a value convertible to t (or to
// what t points to).
func defaultSuits(value any, t reflect.Type) bool {
	if value == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return true
		}
		return false
	}
	d := reflect.TypeOf(value)
	return d.ConvertibleTo(t) || (t.Kind() == reflect.Pointer && d.ConvertibleTo(t.Elem()))
}

// defaultValue is the value of an absent argument of an object parameter: its
// Default converted to its type, or the type's zero value (nil).
func (p *param) defaultValue() reflect.Value {
	if p.def == nil {
		return reflect.Zero(p.goType)
	}
	d := reflect.ValueOf(p.def)
	if p.goType.Kind() == reflect.Pointer && !d.Type().ConvertibleTo(p.goType) {
		ptr := reflect.New(p.goType.Elem())
		ptr.Elem().Set(d.Convert(p.goType.Elem()))
		return ptr
	}
	return d.Convert(p.goType)
}

// signature is f's text signature, "scale(x, k=2.0)", for help() and inspect.
func (f *Function) signature() string {
	return f.signatureOf(func(p *param) string {
		if p.hasDefault {
			return p.name + "=" + pyLiteral(p.def)
		}
		return p.name
	})
}

// signatureOf is f's signature as Python orders it (pyOrder), each parameter
// written by part, with "*name" for *args, "**name" for **kwargs and a "*" before
// keyword-only parameters when there is no *args: one order for
// __text_signature__, the overloads' typed signatures (typedSignature) and the
// stubs' defs (funcJSON).
func (f *Function) signatureOf(part func(p *param) string) string {
	var parts []string
	for _, i := range f.pyOrder() {
		s := part(f.params[i])
		switch {
		case i == f.varArgs:
			s = "*" + s
		case i == f.varKw:
			s = "**" + s
		case i == f.kwOnly && f.varArgs < 0:
			parts = append(parts, "*")
		}
		parts = append(parts, s)
	}
	return f.name + "(" + strings.Join(parts, ", ") + ")"
}

// pyOrder is f's parameter indexes in Python's order: the positional ones, *args,
// the keyword-only ones, **kwargs (Go's order is the function's: **kwargs's map
// before a variadic's *args).
func (f *Function) pyOrder() []int {
	order := make([]int, 0, len(f.params))
	for i := range f.params {
		if i < f.kwOnly && !f.isVar(i) {
			order = append(order, i)
		}
	}
	if f.varArgs >= 0 {
		order = append(order, f.varArgs)
	}
	for i := range f.params {
		if i >= f.kwOnly && !f.isVar(i) {
			order = append(order, i)
		}
	}
	if f.varKw >= 0 {
		order = append(order, f.varKw)
	}
	return order
}

func pyLiteral(v any) string {
	if s := enumLiteral(v); s != "" { // an IntEnumFor member: Scale.LINEAR
		return s
	}
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

//go:build godlpack_python

package godlpack

// #include "ext.h"
import "C"

import (
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// stubsAttribute is the module attribute holding, as JSON, what a typed stub of
// an extension module needs (stubInfo): godlpack.build reads it from the freshly
// built module to write its .pyi.
const stubsAttribute = "_godlpack_stubs"

// The Python names of the types a stub's annotations use beyond builtins; the
// stub that godlpack_build/stubs.py writes defines or imports each of them.
const (
	pyTensor = "_Tensor" // a Protocol: __dlpack__ and __dlpack_device__, or a raw DLPack capsule
	pyArray  = "Array"   // godlpack.Array, what a *tensor.Tensor result becomes
)

// frameworkModules are the Python modules of the Frameworks, by Framework: what
// a stub imports to name a result in one (stubs.py's _FRAMEWORK_ARRAYS).
var frameworkModules = [...]string{GodlpackArrays: "godlpack", NumPy: "numpy", PyTorch: "torch", JAX: "jax"}

// frameworkArrays are the Frameworks' array types, by Framework, as a docstring's
// typed signature names an array result (docHead).
var frameworkArrays = [...]string{GodlpackArrays: "godlpack.Array", NumPy: "numpy.ndarray",
	PyTorch: "torch.Tensor", JAX: "jax.Array"}

// docHead is what f's docstring starts with: its text signature in CPython's
// "name(...)\n--\n\n" form (__text_signature__, which inspect.signature reads
// and which refuses annotations; an overload set's is (*args, **kwargs)), then
// the typed signature as the doc's first line, as nanobind's start: "edges(bins:
// int, lo: float, hi: float, scale: Scale = Scale.LINEAR) -> list[float]" (a
// constructor's without its result; an overload set's, a line per alternative).
func (f *Function) docHead(withResult bool) string {
	if len(f.overloads) > 0 {
		lines := make([]string, len(f.overloads))
		for i, a := range f.overloads {
			lines[i] = a.typedLine(true)
		}
		return f.name + "(*args, **kwargs)\n--\n\n" + strings.Join(lines, "\n") + "\n\n"
	}
	return f.signature() + "\n--\n\n" + f.typedLine(withResult) + "\n\n"
}

// typedLine is f's typed signature, with its result: an array result is the
// framework's it is returned in (frameworkArrays).
func (f *Function) typedLine(withResult bool) string {
	typed := f.typedSignature()
	if !withResult {
		return typed
	}
	result := docTypeName(f.result)
	dtype := f.resultDType()
	if f.result == reflect.TypeFor[*tensor.Tensor]() || dtype != "" {
		result = frameworkArrays[f.resultFw]
		if f.resultLike >= 0 { // the argument's framework's, or godlpack's
			result = strings.Join(frameworkArrays[:], " | ")
		}
	}
	if dtype != "" { // a []E's array: its dtype, as nanobind's docstrings show it
		result += "[dtype=" + dtype + ", shape=(*)]"
	}
	return typed + " -> " + result
}

// pyType is pyTypeName (ext_pytype.go, the one Go-to-Python naming rule) as a
// stub spells it: the names the stub defines for a tensor parameter and an Array
// result, and Any where a message would say object; a name the stub cannot
// resolve (a tensor inside a callback's signature) is Any; a bound class's *T is
// the class, which the stub defines.
func pyType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[*tensor.Tensor]():
		return pyArray // a nil *tensor.Tensor is None, an error path by convention
	case t == reflect.TypeFor[Tuple]():
		return "tuple[Any, ...]"
	case t.Implements(reflect.TypeFor[tensorParam]()):
		return pyTensor
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		return "Any"
	}
	if elems := seqElems(t); elems != nil { // a Go iterator: a Python iterator of its items
		return "Iterator[" + seqItemType(elems) + "]"
	}
	if c, ok := boundClasses[t]; ok { // a bound class's *T: the class the stub defines
		return c.name
	}
	if e, ok := boundEnums[t]; ok { // an IntEnumFor type: the enum class the stub defines
		return e.name
	}
	if t.Kind() == reflect.Func {
		return callableType(t)
	}
	name := pyTypeName(t)
	if strings.ContainsAny(name, "*.") || strings.Contains(name, "SupportsDLPack") {
		return "Any"
	}
	return name
}

// callableType is a callback parameter's type as a stub spells it, with
// pyTypeName's rule (func(A, B) (R, error) is Callable[[A, B], R]) and the stub's
// names: the callable receives a *tensor.Tensor argument as a godlpack.Array and
// may return any tensor for a *tensor.Tensor result. A callback of the wrong
// arity is then a type error (tests/test_goext_stubs.py's
// test_mypy_strict_on_every_streamstats_name).
func callableType(t reflect.Type) string {
	ins := make([]string, t.NumIn())
	for i := range ins {
		ins[i] = pyType(t.In(i))
	}
	result := "None"
	if t.NumOut() == 2 {
		if result = pyType(t.Out(0)); t.Out(0) == reflect.TypeFor[*tensor.Tensor]() {
			result = pyTensor
		}
	}
	return "Callable[[" + strings.Join(ins, ", ") + "], " + result + "]"
}

// seqItemType is the Python type of an item of a Go iterator yielding elems, as
// seqItemWriter writes it: a struct's fields or iter.Seq2's pair as a tuple.
func seqItemType(elems []reflect.Type) string {
	if e := elems[0]; len(elems) == 1 && e.Kind() == reflect.Struct && e != reflect.TypeFor[None]() {
		elems = nil
		for i := range e.NumField() {
			elems = append(elems, e.Field(i).Type)
		}
	} else if len(elems) == 1 {
		return pyType(e)
	}
	names := make([]string, len(elems))
	for i, t := range elems {
		names[i] = pyType(t)
	}
	return "tuple[" + strings.Join(names, ", ") + "]"
}

// stubJSON describes m's members for a stub, as the JSON stubsAttribute holds:
// {"module", "doc", "classes", "constants": [{"name", "type"}], "enums"
// (enumJSON), "exceptions": [{"name", "base", "doc"}] (ExceptionFor's), "functions": [{"name", "doc", "overloads" (an overload set's
// alternatives, each a function), "params": [{"name", "type", "default" (a Python
// literal, absent for none), "mutable" (a MutTensor), "dtypes" (a tensor's, by
// name: ["float32"]), "kwonly" (the first
// keyword-only one), "var" ("args", "kwargs": *name, **name, typed per element)}],
// "result", "result_dtype" (a []E result's, returned as an array: sliceArray),
// "result_like" (ResultLike's parameter), "result_in" (ResultIn's
// framework: "numpy", "torch", "jax"), "raises"}]}. Written by hand: encoding/json would link ~100 KB of
// reflection into every extension for this one string.
func (m *moduleSpec) stubJSON() []byte {
	var b []byte
	b = append(b, `{"module":`...)
	b = jsonString(b, m.name)
	b = append(b, `,"doc":`...)
	b = jsonString(b, m.doc)
	b = append(b, `,"functions":`...)
	b = jsonArray(b, m.funcs, func(b []byte, f *Function) []byte { return funcJSON(b, f, 0) })
	b = append(b, `,"classes":`...)
	b = jsonArray(b, m.classes, classJSON)
	b = append(b, `,"constants":`...)
	b = jsonArray(b, m.consts, func(b []byte, c *Constant) []byte {
		b = append(b, `{"name":`...)
		b = jsonString(b, c.name)
		b = append(b, `,"type":`...)
		return append(jsonString(b, c.pyTypeName()), '}')
	})
	b = append(b, `,"enums":`...)
	b = jsonArray(b, m.enums, enumJSON)
	b = append(b, `,"exceptions":`...)
	b = jsonArray(b, m.exceptions, func(b []byte, e *ExceptionClass) []byte {
		b = append(b, `{"name":`...)
		b = jsonString(b, e.name)
		b = append(b, `,"base":`...)
		b = jsonString(b, e.base.String())
		b = append(b, `,"doc":`...)
		return append(jsonString(b, e.doc), '}')
	})
	return append(b, '}')
}

// enumJSON appends an IntEnum's stub description: {"name", "doc", "export",
// "members": [{"name", "value"}]}.
func enumJSON(b []byte, e *Enum) []byte {
	b = append(b, `{"name":`...)
	b = jsonString(b, e.name)
	b = append(b, `,"doc":`...)
	b = jsonString(b, e.doc)
	b = append(b, `,"export":`...)
	b = strconv.AppendBool(b, e.export)
	b = append(b, `,"members":`...)
	b = jsonArray(b, e.members, func(b []byte, v enumMember) []byte {
		b = append(b, `{"name":`...)
		b = jsonString(b, v.name)
		b = append(b, `,"value":`...)
		return append(strconv.AppendInt(b, v.value, 10), '}')
	})
	return append(b, '}')
}

// classJSON appends a bound class's stub description: {"name", "doc", "init"
// (the constructor as a function, or null), "methods", "properties": [{"name",
// "doc", "type", "readonly"}], "buffer" (ClassDef.Buffer's: __buffer__), "pickle" (ClassDef.Pickle's: __setstate__;
// its __getstate__ is among the methods)}; methods and the constructor leave out self (a
// class method its cls: "classmethod" and "staticmethod" say which are).
func classJSON(b []byte, c *ClassDef) []byte {
	b = append(b, `{"name":`...)
	b = jsonString(b, c.name)
	b = append(b, `,"doc":`...)
	b = jsonString(b, c.doc)
	b = append(b, `,"init":`...)
	if c.init != nil {
		b = funcJSON(b, c.init, 0)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"methods":`...)
	b = jsonArray(b, c.methods, func(b []byte, f *Function) []byte {
		if f.methodKind == extStaticMethod { // no self
			return funcJSON(b, f, 0)
		}
		return funcJSON(b, f, 1) // self, or a class method's cls
	})
	b = append(b, `,"properties":`...)
	b = jsonArray(b, c.props, propertyJSON)
	b = append(b, `,"buffer":`...)
	b = strconv.AppendBool(b, c.buffer != nil)
	b = append(b, `,"pickle":`...)
	b = strconv.AppendBool(b, c.setstate != nil)
	return append(b, '}')
}

// propertyJSON appends a property's stub description: {"name", "doc", "type",
// "readonly" (only when it has no setter)}.
func propertyJSON(b []byte, p *property) []byte {
	typ := "Any"
	if p.get.result != nil {
		typ = pyType(p.get.result)
	}
	b = append(b, `{"name":`...)
	b = jsonString(b, p.name)
	b = append(b, `,"doc":`...)
	b = jsonString(b, p.doc)
	b = append(b, `,"type":`...)
	b = jsonString(b, typ)
	if p.set == nil {
		b = append(b, `,"readonly":true`...)
	}
	return append(b, '}')
}

// funcJSON appends f's stub description, its first skip parameters left out (a
// method's self). An overload set's has "overloads", its alternatives' in the
// order a call tries them (the stub's @overload defs), and no parameters.
func funcJSON(b []byte, f *Function, skip int) []byte {
	b = append(b, `{"name":`...)
	b = jsonString(b, f.name)
	b = append(b, `,"doc":`...)
	b = jsonString(b, f.doc)
	if len(f.overloads) > 0 {
		b = append(b, `,"overloads":`...)
		b = jsonArray(b, f.overloads, func(b []byte, a *Function) []byte { return funcJSON(b, a, skip) })
	}
	switch f.methodKind {
	case extStaticMethod:
		b = append(b, `,"staticmethod":true`...)
	case extClassMethod:
		b = append(b, `,"classmethod":true`...)
	}
	b = append(b, `,"params":[`...)
	for j, i := range f.pyOrder()[min(skip, len(f.params)):] { // a method's self is first
		p := f.params[i]
		if j > 0 {
			b = append(b, ',')
		}
		typ := pyType(f.annotated(p))
		if p.slice != "" { // Slices: what a Go slice parameter takes (ext_call.c's slice_arg)
			elem := "float"
			if strings.Contains(p.slice, "int") {
				elem = "int"
			}
			typ += " | list[" + elem + "] | tuple[" + elem + ", ...] | None"
		}
		b = append(b, `{"name":`...)
		b = jsonString(b, p.name)
		if p.hasDefault {
			if p.def == nil && !strings.HasSuffix(typ, " | None") { // an optional tensor or instance
				typ += " | None"
			}
			b = append(b, `,"default":`...)
			b = jsonString(b, pyLiteral(p.def))
		}
		b = append(b, `,"type":`...)
		b = jsonString(b, typ)
		if p.kind == C.GD_EXT_MUT_TENSOR {
			b = append(b, `,"mutable":true`...)
		}
		if (p.kind == C.GD_EXT_TENSOR || p.kind == C.GD_EXT_MUT_TENSOR) && len(p.dtypes) > 0 {
			b = append(b, `,"dtypes":`...) // what tells an overload set's dtype alternatives apart
			b = jsonArray(b, p.dtypes, func(b []byte, d *dlpack.DType) []byte { return jsonString(b, d.Name) })
		}
		switch {
		case i == f.varArgs:
			b = append(b, `,"var":"args"`...)
		case i == f.varKw:
			b = append(b, `,"var":"kwargs"`...)
		case i == f.kwOnly && f.varArgs < 0:
			b = append(b, `,"kwonly":true`...)
		}
		b = append(b, '}')
	}
	result := "Any"
	if f.result != nil {
		result = pyType(f.result)
	}
	dtype := f.resultDType()
	if dtype != "" { // a []E returned as an array
		result = pyArray
	}
	b = append(b, `],"result":`...)
	b = jsonString(b, result)
	if dtype != "" {
		b = append(b, `,"result_dtype":`...)
		b = jsonString(b, dtype)
	}
	switch { // as the call does (ext_module_cpython.go): ResultLike wins over ResultIn
	case f.resultLike >= 0:
		b = append(b, `,"result_like":`...)
		b = jsonString(b, f.params[f.resultLike].name)
	case Framework(f.resultFw) != GodlpackArrays:
		b = append(b, `,"result_in":`...)
		b = jsonString(b, frameworkModules[f.resultFw])
	}
	// What a call may raise beyond TypeError for a wrong argument: the Go
	// error's Exception (ValueError by default), RuntimeError for a panic.
	return append(b, `,"raises":["`+ValueError.String()+`","`+RuntimeError.String()+`"]}`...)
}

// jsonArray appends items to b as a JSON array, each written by item.
func jsonArray[T any](b []byte, items []T, item func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, x)
	}
	return append(b, ']')
}

// jsonString appends s to b as a JSON string.
func jsonString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// addStubInfo sets mod's stubsAttribute (GIL held, at exec).
func (m *moduleSpec) addStubInfo(mod *C.PyObject) C.int {
	js := m.stubJSON()
	name := C.CString(stubsAttribute)
	defer C.free(unsafe.Pointer(name))
	errors := C.CString("replace") // a doc string that is not UTF-8 must not fail the import
	defer C.free(unsafe.Pointer(errors))
	value := C.PyUnicode_DecodeUTF8((*C.char)(unsafe.Pointer(&js[0])), C.Py_ssize_t(len(js)), errors)
	if value == nil {
		return -1
	}
	rc := C.PyModule_AddObjectRef(mod, name, value)
	C.Py_DecRef(value)
	return rc
}

//go:build godlpack_python

package godlpack

// ext_module_cpython.go: a module's import (PyInit's module def and exec, in
// ext_module.c) and the C tables of its functions and exception classes, made
// from the declarations that ext_module.go and ext_func.go checked.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_ext_add(PyObject *m, gd_ext_func *f);
import "C"

import (
	"github.com/godlpack/godlpack/internal/cpython"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/internal/forksafe"
)

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
	m, err := checkedModule(C.GoString(name))
	if err != nil {
		importError(err.Error())
		return nil
	}
	return C.CString(m.doc)
}

// goExtExec adds module name's functions to the module object mod (module
// exec, GIL held): an extension's (its PyInit checked the definition already) or
// the godlpack module's (internal/arraymodule), whose definition is checked here.
//
//export goExtExec
func goExtExec(mod *pyObject, name *C.char) C.int {
	cpython.MarkHosted() // Go code of this extension may call back into Python (gil.go)
	m, err := checkedModule(C.GoString(name))
	if err != nil {
		importError(err.Error())
		return -1
	}
	if m.addTo(mod) < 0 || m.addStubInfo(mod) < 0 {
		return -1
	}
	return C.int(forksafe.Register(unsafe.Pointer(mod))) // this extension's own Go runtime
}

// addTo adds m's functions to the module object mod (GIL held). Their C tables
// are made once and kept for good: a module imported again shares them.
func (m *moduleSpec) addTo(mod *pyObject) C.int {
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
	return m.addConstants(mod)
}

// makeCTable gives f its id in extFuncs and its C table, the first time (GIL held).
func (f *Function) makeCTable() {
	if f.cfunc == nil {
		f.id = int32(len(extFuncs))
		extFuncs = append(extFuncs, f)
		f.cfunc = f.cTable()
		f.makesInstance = f.result != nil && isInstanceType(f.result)
	}
}

// cTable makes the C description of f that ext_call.c reads (C memory, never freed).
func (f *Function) cTable() *cExtFunc {
	c := C.gd_ext_func_new(C.int32_t(len(f.params)))
	if c == nil {
		panic("godlpack: out of memory at module init")
	}
	c.def.ml_name = C.CString(f.name)
	if len(f.overloads) > 0 {
		c.def.ml_doc = C.CString(f.docHead(true) + "Overloaded:\n" + f.overloadSignatures(true) + "\n\n" + f.doc)
		f.overloadTable(c)
	} else {
		c.def.ml_doc = C.CString(f.docHead(true) + f.doc)
	}
	c.id = cInt32(f.id)
	c.nparams = cInt32(len(f.params))
	c.npositional, c.fast_nargs = cInt32(f.kwOnly), cInt32(len(f.params))
	c.varargs, c.varkw = cInt32(f.varArgs), cInt32(f.varKw)
	if f.kwOnly < len(f.params) { // keyword-only parameters, *args or **kwargs: bind always
		c.fast_nargs = -1
	}
	c.result_fw = f.resultFw
	if f.resultLike >= 0 {
		c.result_fw, c.result_like = extFwLike, cInt32(f.resultLike)
	}
	c.gil = f.gil
	c.cls_result = C.int32_t(boolInt(f.methodKind == extClassMethod))
	if f.gil == extGilAuto && f.lends() {
		// Its Go code may call back, or use an *Object, from goroutines of its own,
		// which need the GIL while the function waits for them (ext_lend_cpython.go).
		c.gil = extGilRelease
	}
	for i, p := range f.params {
		p.finish()
		cp := &unsafe.Slice(c.params, len(f.params))[i]
		cp.name = C.CString(p.name)
		cp.kind = p.kind
		if c, ok := boundClasses[p.goType]; ok && p.kind == extInstance {
			cp.cls = cInt32(c.id)
		}
		if p.kind == extObject {
			cp.accepts, cp.type_name = acceptsOf(p.goType), C.CString(pyTypeName(p.goType))
		}
		if p.slice != "" { // ext_call.c's slice_arg: None, a list or a tuple too
			cp.accepts, cp.type_name = extAcceptSeq|extAcceptNone, C.CString(p.slice)
		}
		if p.kind == extInt {
			if e := boundEnums[p.goType]; e != nil { // ext_call.c's int64_arg: its ValueError
				cp.type_name, cp.is_enum = C.CString(e.describe()), 1
			} else if name := narrowIntName(p.goType); name != "" {
				cp.type_name = C.CString(name)
			}
		}
		if p.hasDefault {
			cp.has_default = 1
			v := reflect.ValueOf(p.def)
			switch isInt, isFloat := numberKind(p.def); {
			case p.def == nil && (p.kind == extTensor || p.kind == extMutTensor):
				cp.kind |= extOptional // an optional tensor: ext_call.c's absent_tensor
			case p.kind == extObject: // Go keeps it (param.defaultValue); C passes NULL
			case isInt && v.CanInt():
				cp.def_i, cp.def_f = cInt64(v.Int()), cDouble(v.Int())
			case isInt:
				cp.def_i, cp.def_f = cInt64(v.Uint()), cDouble(v.Uint()) // a uint64's bits
			case isFloat:
				cp.def_f = cDouble(v.Float())
			case v.Kind() == reflect.Bool && v.Bool():
				cp.def_i = 1
			case v.Kind() == reflect.String:
				cp.def_s, cp.def_slen = (*C.char)(cBytes(v.String())), C.Py_ssize_t(v.Len())
				p.defStr, p.defGo = (*byte)(unsafe.Pointer(cp.def_s)), v.String()
			}
		}
	}
	return c
}

// overloadTable fills c, the C table of an overload set, with its alternatives'.
func (f *Function) overloadTable(c *cExtFunc) {
	n := len(f.overloads)
	alts := (**cExtFunc)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*cExtFunc)(nil)))))
	if alts == nil {
		panic("godlpack: out of memory at module init")
	}
	for i, a := range f.overloads {
		a.makeCTable()
		unsafe.Slice(alts, n)[i] = a.cfunc
	}
	c.overloads, c.noverloads = alts, cInt32(n)
	c.overload_sigs = C.CString(f.overloadSignatures(false))
}

// addTo makes the class (once: a module imported again shares it) and adds it to
// module mod (GIL held).
func (e *ExceptionClass) addTo(mod *pyObject, module string) C.int {
	slot := &C.gd_ext_exceptions[e.index]
	if *slot == nil {
		qual, doc := C.CString(module+"."+e.name), C.CString(e.doc)
		defer C.free(unsafe.Pointer(qual))
		defer C.free(unsafe.Pointer(doc))
		*slot = C.PyErr_NewExceptionWithDoc(qual, doc, C.gd_ext_exc_type(cInt32(e.base)), nil)
		if *slot == nil {
			return -1
		}
	}
	name := C.CString(e.name)
	defer C.free(unsafe.Pointer(name))
	return C.PyModule_AddObjectRef(mod, name, *slot)
}

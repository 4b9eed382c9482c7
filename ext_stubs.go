//go:build godlpack_python

package godlpack

// #include "ext.h"
import "C"

import (
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// stubsAttribute is the module attribute holding, as JSON, what a typed stub of
// an extension module needs (stubInfo): godlpack.build reads it from the freshly
// built module to write its .pyi.
const stubsAttribute = "_godlpack_stubs"

// The Python names of the types a stub's annotations use beyond builtins; the
// stub that godlpack's _stubgen.py writes defines or imports each of them.
const (
	pyTensor = "_Tensor" // a Protocol: __dlpack__ and __dlpack_device__, or a raw DLPack capsule
	pyArray  = "Array"   // godlpack.Array, what a *tensor.Tensor result becomes
)

// pyType is the Python type a Go parameter or result type stands for in a stub:
// the one place that maps the Go types the extension API accepts to Python's.
// "" for a type the API does not accept (the module fails to import anyway).
func pyType(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[int64](), reflect.TypeFor[int]():
		return "int"
	case reflect.TypeFor[float64]():
		return "float"
	case reflect.TypeFor[bool]():
		return "bool"
	case reflect.TypeFor[string]():
		return "str"
	case reflect.TypeFor[None]():
		return "None"
	case reflect.TypeFor[Tuple]():
		return "tuple[Any, ...]"
	case reflect.TypeFor[*tensor.Tensor]():
		return pyArray // a nil *tensor.Tensor is None, an error path by convention
	}
	if t.Implements(reflect.TypeFor[tensorParam]()) {
		return pyTensor
	}
	if t.Kind() == reflect.Interface && t.NumMethod() == 0 {
		return "Any"
	}
	return ""
}

// stubInfo is the JSON stubsAttribute holds.
type stubInfo struct {
	Module    string         `json:"module"`
	Doc       string         `json:"doc"`
	Functions []stubFunction `json:"functions"`
}

type stubFunction struct {
	Name   string      `json:"name"`
	Doc    string      `json:"doc"`
	Params []stubParam `json:"params"`
	Result string      `json:"result"`
	// Raises: what a call may raise beyond TypeError for a wrong argument (the Go
	// error's Exception, ValueError by default; RuntimeError for a panic).
	Raises []string `json:"raises"`
}

type stubParam struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default,omitempty"` // a Python literal; "" for none
	// Mutable: a MutTensor, written in place (the producer must allow writes).
	Mutable bool `json:"mutable,omitempty"`
}

// stubJSON describes m's functions for a stub.
func (m *moduleSpec) stubJSON() []byte {
	info := stubInfo{Module: m.name, Doc: m.doc, Functions: []stubFunction{}}
	for _, f := range m.funcs {
		sf := stubFunction{Name: f.name, Doc: f.doc, Params: []stubParam{}, Result: "Any",
			Raises: []string{ValueError.String(), RuntimeError.String()}}
		if f.result != nil {
			sf.Result = pyType(f.result)
		}
		for _, p := range f.params {
			sp := stubParam{Name: p.name, Type: pyType(p.goType), Mutable: p.kind == C.GD_EXT_MUT_TENSOR}
			if p.hasDefault {
				sp.Default = pyLiteral(p.def)
				if p.def == nil {
					sp.Type += " | None"
				}
			}
			sf.Params = append(sf.Params, sp)
		}
		info.Functions = append(info.Functions, sf)
	}
	out, err := json.Marshal(info)
	if err != nil { // plain strings and slices: cannot fail
		return []byte("{}")
	}
	return out
}

// addStubInfo sets mod's stubsAttribute (GIL held, at exec).
func (m *moduleSpec) addStubInfo(mod *C.PyObject) C.int {
	js := m.stubJSON()
	name := C.CString(stubsAttribute)
	defer C.free(unsafe.Pointer(name))
	value := C.PyUnicode_FromStringAndSize((*C.char)(unsafe.Pointer(&js[0])), C.Py_ssize_t(len(js)))
	if value == nil {
		return -1
	}
	rc := C.PyModule_AddObjectRef(mod, name, value)
	C.Py_DecRef(value)
	return rc
}

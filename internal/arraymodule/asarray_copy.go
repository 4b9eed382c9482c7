//go:build godlpack_python

package arraymodule

// asarray_copy.go: asarray's keywords as the array API standard gives them,
// asarray(obj, /, *, dtype=None, device=None, copy=None): memory is shared with a
// godlpack.Array or a DLPack producer whenever the dtype allows; copy=True always copies,
// copy=False never does (ValueError when it would have to). Sequences, scalars and
// buffer-protocol objects are always copied (the conversions of convert.go).

// #include "arraymodule.h"
import "C"

import "github.com/godlpack/godlpack/dlpack"

// parseAsarrayArgs reads asarray's arguments: obj positional only, the rest keywords.
// release drops the references parseArgs holds on them, once the call is done.
func parseAsarrayArgs(args, kwargs *C.PyObject) (obj, dtype *C.PyObject, req importRequest,
	release func(), err error) {
	if args != nil {
		if n := C.PyTuple_Size(args); n > 1 {
			return nil, nil, req, nil, typeErrorf("asarray() takes 1 positional argument (obj) but %d were "+
				"given; dtype, device and copy are keyword-only", n)
		}
	}
	p, release, err := parseArgs("asarray", args, kwargs, []string{"obj", "dtype", "device", "copy"}, 1)
	if err != nil {
		return nil, nil, req, nil, err
	}
	if req, err = parseImportRequest("asarray", p[2], p[3]); err != nil {
		release()
		return nil, nil, req, nil, err
	}
	return p[0], p[1], req, release, nil
}

// goAsarrayConverted is asarray(obj) for a producer whose __dlpack__ raised
// BufferError in constructors_fast.c's gd_asarray: the copy asarray then makes.
//
//export goAsarrayConverted
func goAsarrayConverted(obj *C.PyObject) *C.PyObject {
	if a, err := importMLDtypes(obj); a != nil || err != nil {
		if err != nil {
			return fail(err)
		}
		return asObject(a)
	}
	a, err := arrayFrom(obj, nil)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

// asarrayShared makes the result for what can share memory: a godlpack.Array, or an
// object with __dlpack__. done is false for anything else (the caller copies it), or
// when a producer's __dlpack__ raised BufferError and a copy is allowed (the caller
// then tries the buffer protocol, as asarray did before sharing), unless the refusal
// is final (gd_refusal_is_final: PyTorch's lazy views, requires_grad, sparse...).
func asarrayShared(obj *C.PyObject, dt *dlpack.DType, req importRequest) (a *C.gd_array, done bool, err error) {
	if isArray(obj) {
		src := toArray(obj)
		if dt == nil || int(src.dtype_index) == dt.Index {
			if req.copy == copyAlways {
				a, err = copyArray(src)
				return a, true, err
			}
			C.gd_incref(obj) // like numpy.asarray: the same object
			return src, true, nil
		}
		if req.copy == copyNever {
			return nil, true, noCopyError(arrayDType(src), dt)
		}
		a, err = convertArray(src, dt)
		return a, true, err
	}
	if C.gd_may_share_dlpack(obj) == 0 {
		if req.copy == copyNever {
			return nil, true, valueErrorf("asarray(copy=False): a %s cannot be shared without a copy "+
				"(only a godlpack.Array or an object with __dlpack__ can)", typeName(obj))
		}
		return nil, false, nil
	}
	shared := req // device= and copy=False go to the producer
	if req.copy == copyAlways {
		shared.copy = copyIfNeeded // the copy is made below, in one pass
	}
	imported, err := importObject(obj, shared)
	if err == errPySet && C.gd_error_is_buffer_error() != 0 {
		var typ, val, tb *C.PyObject // the producer's refusal, kept if it stands
		C.PyErr_Fetch(&typ, &val, &tb)
		if imported, err = importMLDtypes(obj); imported == nil && err == nil {
			if req.copy != copyNever && C.gd_converts_after_refusal(obj) != 0 &&
				C.gd_refusal_is_final(obj) == 0 {
				// the buffer protocol copies it, as before sharing
				C.gd_xdecref(typ)
				C.gd_xdecref(val)
				C.gd_xdecref(tb)
				return nil, false, nil
			}
			C.PyErr_Restore(typ, val, tb)
			err = errPySet
		} else {
			C.gd_xdecref(typ)
			C.gd_xdecref(val)
			C.gd_xdecref(tb)
		}
	}
	if err != nil {
		return nil, true, err
	}
	switch {
	case dt != nil && int(imported.dtype_index) != dt.Index:
		if req.copy == copyNever {
			err = noCopyError(arrayDType(imported), dt)
		} else {
			a, err = convertArray(imported, dt)
		}
	case req.copy == copyAlways:
		a, err = copyArray(imported)
	default:
		return imported, true, nil
	}
	releaseForeign(asObject(imported))
	return a, true, err
}

func noCopyError(from, to *dlpack.DType) error {
	return valueErrorf("asarray(copy=False): converting %s to %s needs a copy", from.Name, to.Name)
}

// importMLDtypes is godlpack._numpy.from_ml_dtypes(obj): the zero-copy import of a
// NumPy array whose dtype comes from ml_dtypes (bfloat16, float8...), which NumPy's
// __dlpack__ refuses with BufferError and whose buffer format ('E', 'V1'...) PEP
// 3118 cannot name. nil and no error when obj is not such an array.
func importMLDtypes(obj *C.PyObject) (*C.gd_array, error) {
	mod := C.PyImport_ImportModule(cModNumpyHelpers)
	if mod == nil {
		return nil, errPySet
	}
	defer C.gd_decref(mod)
	fn := C.PyObject_GetAttrString(mod, cFromMLDtypes)
	if fn == nil {
		return nil, errPySet
	}
	defer C.gd_decref(fn)
	r := C.PyObject_CallOneArg(fn, obj)
	if r == nil {
		return nil, errPySet
	}
	if C.gd_is_none(r) != 0 {
		C.gd_decref(r)
		return nil, nil
	}
	return toArray(r), nil // _bits_as's result: a new reference to an Array
}

var (
	cModNumpyHelpers = C.CString("godlpack._numpy")
	cFromMLDtypes    = C.CString("from_ml_dtypes")
)

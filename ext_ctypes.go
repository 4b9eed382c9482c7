//go:build godlpack_python

package godlpack

// ext_ctypes.go: the C types the extension API's untagged files (ext_func.go,
// ext_tensor.go, ext_module.go...) name, as ext.h declares them. Those files hold
// the public API and its rules with no import "C", so go doc, gopls and a plain
// go test see them (docs/decisions/untagged-go-api.md;
// tests/test_goinit.py::test_go_doc_shows_the_api_from_a_plain_checkout);
// ext_ctypes_nopython.go gives the same names Go stand-ins when the package is
// built without Python.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
import "C"

type (
	extArg       = C.gd_ext_arg    // one argument of a call (C memory, the call's)
	extResult    = C.gd_ext_result // what a call returns, for C to build
	cExtFunc     = C.gd_ext_func   // a function's C table (ext_call.c)
	pyObject     = C.PyObject
	pyTypeObject = C.PyTypeObject
	cDLTensor    = C.DLTensor
	cInt32       = C.int32_t
	cInt64       = C.int64_t
	cUint64      = C.uint64_t
	cUintptr     = C.uintptr_t
	cDouble      = C.double
)

// ext_consts.go's values are ext.h's: each index below is 0 when they agree, and
// out of range, a build error, when one drifts.
var (
	_ = [1]struct{}{}[extTensor-C.GD_EXT_TENSOR]
	_ = [1]struct{}{}[extInt-C.GD_EXT_INT]
	_ = [1]struct{}{}[extFloat-C.GD_EXT_FLOAT]
	_ = [1]struct{}{}[extBool-C.GD_EXT_BOOL]
	_ = [1]struct{}{}[extStr-C.GD_EXT_STR]
	_ = [1]struct{}{}[extMutTensor-C.GD_EXT_MUT_TENSOR]
	_ = [1]struct{}{}[extUint-C.GD_EXT_UINT]
	_ = [1]struct{}{}[extObject-C.GD_EXT_OBJECT]
	_ = [1]struct{}{}[extInstance-C.GD_EXT_INSTANCE]
	_ = [1]struct{}{}[extFieldInt64-C.GD_EXT_FIELD_INT64]
	_ = [1]struct{}{}[extFieldUint64-C.GD_EXT_FIELD_UINT64]
	_ = [1]struct{}{}[extFieldInt32-C.GD_EXT_FIELD_INT32]
	_ = [1]struct{}{}[extFieldUint32-C.GD_EXT_FIELD_UINT32]
	_ = [1]struct{}{}[extFieldBool-C.GD_EXT_FIELD_BOOL]
	_ = [1]struct{}{}[extOptional-C.GD_EXT_OPTIONAL]
	_ = [1]struct{}{}[extGilHold-C.GD_EXT_GIL_HOLD]
	_ = [1]struct{}{}[extGilAuto-C.GD_EXT_GIL_AUTO]
	_ = [1]struct{}{}[extGilRelease-C.GD_EXT_GIL_RELEASE]
	_ = [1]struct{}{}[extRNone-C.GD_EXT_R_NONE]
	_ = [1]struct{}{}[extRArray-C.GD_EXT_R_ARRAY]
	_ = [1]struct{}{}[extRInt-C.GD_EXT_R_INT]
	_ = [1]struct{}{}[extRFloat-C.GD_EXT_R_FLOAT]
	_ = [1]struct{}{}[extRBool-C.GD_EXT_R_BOOL]
	_ = [1]struct{}{}[extRStr-C.GD_EXT_R_STR]
	_ = [1]struct{}{}[extRTuple-C.GD_EXT_R_TUPLE]
	_ = [1]struct{}{}[extRError-C.GD_EXT_R_ERROR]
	_ = [1]struct{}{}[extRObject-C.GD_EXT_R_OBJECT]
	_ = [1]struct{}{}[extRInstance-C.GD_EXT_R_INSTANCE]
	_ = [1]struct{}{}[extRRaise-C.GD_EXT_R_RAISE]
	_ = [1]struct{}{}[extREnum-C.GD_EXT_R_ENUM]
	_ = [1]struct{}{}[extRIter-C.GD_EXT_R_ITER]
	_ = [1]struct{}{}[extRNumPySmall-C.GD_EXT_R_NUMPY_SMALL]
	_ = [1]struct{}{}[extClassMethod-C.GD_EXT_CLASS_METHOD]
	_ = [1]struct{}{}[extStaticMethod-C.GD_EXT_STATIC_METHOD]
	_ = [1]struct{}{}[extMaxEnums-C.GD_EXT_MAX_ENUMS]
	_ = [1]struct{}{}[extFwLike-C.GD_EXT_FW_LIKE]
	_ = [1]struct{}{}[extExcCount-C.GD_EXT_EXC_COUNT]
	_ = [1]struct{}{}[extMaxExceptions-C.GD_EXT_MAX_EXCEPTIONS]
	_ = [1]struct{}{}[extAcceptNone-C.GD_EXT_ACCEPT_NONE]
	_ = [1]struct{}{}[extAcceptSeq-C.GD_EXT_ACCEPT_SEQ]
	_ = [1]struct{}{}[extAcceptDict-C.GD_EXT_ACCEPT_DICT]
	_ = [1]struct{}{}[extAcceptBytes-C.GD_EXT_ACCEPT_BYTES]
	_ = [1]struct{}{}[extAcceptNumber-C.GD_EXT_ACCEPT_NUMBER]
	_ = [1]struct{}{}[extAcceptCallable-C.GD_EXT_ACCEPT_CALLABLE]
	_ = [1]struct{}{}[extAcceptStr-C.GD_EXT_ACCEPT_STR]
	_ = [1]struct{}{}[flagReadOnly-C.GD_FLAG_READ_ONLY]
	_ = [1]struct{}{}[flagSubbytePadded-C.GD_FLAG_SUBBYTE_PADDED]
)

package godlpack

// ext_consts.go: ext.h's constants that the extension API's untagged files use,
// as Go constants, so those files need no import "C"
// (docs/decisions/untagged-go-api.md). The values are ext.h's and dlpack_abi.h's;
// ext_ctypes.go checks them against the C ones at compile time.

// Parameter kinds (gd_ext_param.kind), as ext_call.c converts them.
const (
	extTensor = iota + 1
	extInt
	extFloat
	extBool
	extStr
	extMutTensor
	extUint
	extObject
	extInstance
)

// extOptional is or'ed into a tensor kind in the C table: an optional tensor.
const extOptional = 0x10

// What a call does with the GIL (gd_ext_func.gil).
const (
	extGilHold = iota
	extGilAuto
	extGilRelease
)

// Result kinds (gd_ext_result.kind).
const (
	extRNone = iota
	extRArray
	extRInt
	extRFloat
	extRBool
	extRStr
	extRTuple
	extRError
	extRObject
	extRInstance
	extRRaise
	extREnum
	extRIter
	extRNumPySmall
)

// How a class binds a function (gd_ext_class_set_method's how).
const (
	extMethod = iota
	extStaticMethod
	extClassMethod
)

// extFwLike is gd_ext_func.result_fw for ResultLike (after the Framework values).
const extFwLike = 4

// extExcCount is the number of Exception constants; a module's own exception
// classes follow them. extMaxExceptions bounds those classes.
const (
	extExcCount      = 11
	extMaxExceptions = 256
)

// What C checks an object parameter's argument is (gd_ext_param.accepts bits).
const (
	extAcceptNone     = 1
	extAcceptSeq      = 2
	extAcceptDict     = 4
	extAcceptBytes    = 8
	extAcceptNumber   = 16
	extAcceptCallable = 32
	extAcceptStr      = 64
)

// DLPack flags (DLManagedTensorVersioned.flags) the argument checks read.
const (
	flagReadOnly      = 1 << 0
	flagSubbytePadded = 1 << 2
)

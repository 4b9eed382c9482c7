package godlpack

// ext_framework_names.go: the frameworks a function's arrays may be returned in
// (Function.ResultIn). No build tag: go doc shows them from a plain checkout.

// A Framework is an array library whose arrays a function may return
// (Function.ResultIn).
type Framework int32

// The frameworks (ext.h's GD_EXT_FW_*).
const (
	GodlpackArrays Framework = iota // godlpack.Array: the default
	NumPy                           // numpy.ndarray
	PyTorch                         // torch.Tensor
	JAX                             // jax.Array
)

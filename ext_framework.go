package godlpack

// ext_framework.go: the frameworks a function's arrays may be returned in. No build
// tag: go doc shows them from a plain checkout.

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

// ResultIn returns the function's arrays (a *tensor.Tensor result, or those of
// a Tuple) as arrays of fw, made by its from_dlpack from the godlpack.Array:
// zero-copy (JAX may copy memory it cannot use in place), the memory owned by
// the result.
func (f *Function) ResultIn(fw Framework) *Function {
	if fw < GodlpackArrays || fw > JAX {
		f.fail("ResultIn(%d): not a Framework", fw)
	}
	f.resultFw = cInt32(fw)
	return f
}

// ResultLike returns the function's arrays in the framework of the argument of
// parameter name: a numpy.ndarray for NumPy's, a torch.Tensor for PyTorch's, a
// jax.Array for JAX's, else (a godlpack.Array, a capsule, another producer, an
// absent optional one) a godlpack.Array. As ResultIn, zero-copy.
func (f *Function) ResultLike(name string) *Function {
	for i, p := range f.params {
		if p.name == name {
			f.resultLike = i
			return f
		}
	}
	f.fail("ResultLike: no parameter named %q", name)
	return f
}

package godlpack

// capsule.go: a DLPack capsule taken by Go. No build tag and no C: go doc shows it
// from a plain checkout; the body is exchange.go's, with Python.

import "github.com/godlpack/godlpack/dlpack/tensor"

// TensorFromCapsule takes over the tensor of a DLPack capsule (a PyCapsule named
// "dltensor_versioned" or "dltensor", as a producer's __dlpack__() or
// torch.utils.dlpack.to_dlpack returns it) with no copy: the capsule is renamed
// "used_dltensor_versioned" / "used_dltensor", as DLPack's protocol says, and the
// producer's deleter runs once, when the tensor is closed (or collected). A capsule
// already used, or one that is not a DLPack capsule, is an error that leaves it as
// it was; so is a tensor that fails validation, whose deleter then stays the
// capsule's. The tensor is the caller's, from any goroutine, after the interpreter
// too.
func TensorFromCapsule(capsule *Object) (*tensor.Tensor, error) {
	return capsule.pyCapsuleTensor()
}

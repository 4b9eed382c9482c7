package tensor

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// FromManaged takes ownership of m, a DLManagedTensorVersioned* in memory the Go
// collector does not manage (a C producer's), and validates it by the rules of
// dlpack.Validate. On success the Tensor owns m; on failure m's deleter has already
// been called, and the error is the validator's *dlpack.ValidationError naming the
// field at fault. A NULL m returns ErrNil.
func FromManaged(m unsafe.Pointer) (*Tensor, error) {
	if m == nil {
		return nil, ErrNil
	}
	mv := (*dlpack.ManagedTensorVersioned)(m)
	return consume(m, true, dlpack.Foreign{Tensor: &mv.DLTensor, Versioned: true, Version: mv.Version, Flags: mv.Flags})
}

// FromManagedLegacy is FromManaged for a legacy DLManagedTensor*, which has no
// version and no flags: it is never read-only.
func FromManagedLegacy(m unsafe.Pointer) (*Tensor, error) {
	if m == nil {
		return nil, ErrNil
	}
	ml := (*dlpack.ManagedTensor)(m)
	return consume(m, false, dlpack.Foreign{Tensor: &ml.DLTensor})
}

func consume(m unsafe.Pointer, versioned bool, f dlpack.Foreign) (*Tensor, error) {
	// The validator copies shape and strides straight into t.dims when they fit,
	// so that a consume allocates only t. t keeps no slice of its own dims (see
	// Tensor); more dimensions come back in new memory, which it keeps.
	t := &Tensor{managed: m, versioned: versioned}
	var v dlpack.View
	if err := dlpack.ValidateInto(&v, f, t.dims[:inlineDims], t.dims[inlineDims:]); err != nil {
		release(m, versioned)
		return nil, err
	}
	t.produced = isProduced(m, versioned)
	t.dtype, t.data, t.n, t.ndim = v.DType, v.Data, v.NumElements, int32(len(v.Shape))
	t.isCopied, t.padded, t.device = v.IsCopied, v.Padded, v.Device
	if len(v.Shape) > inlineDims {
		t.setExtDims(v.Shape, v.Strides)
	}
	t.readOnly.Store(v.ReadOnly)
	return wrap(t), nil
}

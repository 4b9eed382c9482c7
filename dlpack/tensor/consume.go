package tensor

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// FromManaged takes ownership of m, a DLManagedTensorVersioned* in memory the Go
// collector does not manage (a C producer's), and validates it with
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
	v, err := dlpack.Validate(f)
	if err != nil {
		release(m, versioned)
		return nil, err
	}
	t := &Tensor{
		managed: m, versioned: versioned, produced: isProduced(m, versioned),
		dtype: v.DType, shapeBuf: v.Shape, stridesBuf: v.Strides, data: v.Data, n: v.NumElements, ndim: len(v.Shape),
		isCopied: v.IsCopied, padded: v.Padded, device: v.Device,
	}
	t.readOnly.Store(v.ReadOnly)
	return wrap(t), nil
}

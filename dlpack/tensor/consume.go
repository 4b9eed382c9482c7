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
	return consume(m, true, dlpack.ForeignOf(m, true))
}

// FromManagedLegacy is FromManaged for a legacy DLManagedTensor*, which has no
// version and no flags: it is never read-only.
func FromManagedLegacy(m unsafe.Pointer) (*Tensor, error) {
	if m == nil {
		return nil, ErrNil
	}
	return consume(m, false, dlpack.ForeignOf(m, false))
}

func consume(m unsafe.Pointer, versioned bool, f dlpack.Foreign) (*Tensor, error) {
	t, shape, strides := newConsumed(m, versioned, f)
	var v dlpack.Validated
	if err := dlpack.ValidateInto(&v, f, shape, strides); err != nil {
		releaseForeign(m, versioned)
		return nil, err
	}
	t.managed, t.versioned = addrOf(m), versioned
	t.dt, t.data, t.n, t.ndim = dtIndex(v.DType), addrOf(v.Data), v.NumElements, int8(len(v.Shape))
	t.isCopied, t.padded, t.devType, t.devID = v.IsCopied, v.Padded, uint8(v.Device.Type), v.Device.ID
	if v.ReadOnly {
		t.state |= readOnlyBit // not yet published
	}
	if len(v.Shape) != len(shape) {
		// Not where newConsumed put them: an ndim the producer changed while
		// it was read.
		t = withAllDims(t, v.Shape, v.Strides)
	}
	return wrap(t), nil
}

// newConsumed returns the Tensor for m and the buffers its shape and strides are
// validated into (dlpack.ValidateInto copies them there), so that a consume
// allocates only the Tensor. One of this package's blocks, as fillHeader left
// it, is validated in place, into its own arrays, and its Tensor is 48 bytes (see
// Tensor): nobody else holds the block now. A foreign tensor's copy follows the
// Tensor in one allocation sized by its dimensions (80 bytes up to two, 112 up to
// four, 1072 beyond).
func newConsumed(m unsafe.Pointer, versioned bool, f dlpack.Foreign) (t *Tensor, shape, strides []int64) {
	nd := int(f.Tensor.NDim)
	produced := isProduced(m, versioned)
	if produced && nd >= 0 && nd == int(blockNode(m).ndim) {
		arrays := blockArrays(m, nd)
		if nd == 0 || f.Tensor.Shape == &arrays[0] && (f.Tensor.Strides == nil || f.Tensor.Strides == &arrays[nd]) {
			t = &Tensor{produced: true, state: dimsInBlockBit}
			return t, arrays[:nd], arrays[nd:]
		}
	}
	var d []int64
	switch {
	case nd < 0:
		t = new(Tensor) // the validator refuses it
	case nd <= 2:
		x := new(withDims[[4]int64])
		t, d = &x.t, x.d[:]
	case nd <= 4:
		x := new(withDims[[8]int64])
		t, d = &x.t, x.d[:]
	case nd <= dlpack.MaxNDim:
		x := new(withDims[[2 * dlpack.MaxNDim]int64])
		t, d = &x.t, x.d[:]
	default:
		t = new(Tensor) // the validator refuses it
	}
	t.produced = produced
	if d == nil {
		return t, nil, nil
	}
	return t, d[:nd], d[nd : 2*nd]
}

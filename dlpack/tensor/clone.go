package tensor

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// Clone returns a C-contiguous copy of t in new C memory, with IS_COPIED set; t is
// unchanged and stays open. The copy is writable even when t is read-only.
func (t *Tensor) Clone() (*Tensor, error) {
	c, err := t.open()
	if err != nil {
		return nil, err
	}
	dst, err := newC(c.dtype(), c.shape(), true)
	if err != nil {
		return nil, err
	}
	d := dst
	d.isCopied = true
	(*dlpack.DLManagedTensorVersioned)(d.managed.ptr()).Flags |= dlpack.FlagIsCopied
	if c.dtype().SubByte() {
		// Packed or padded in, padded out: element by element.
		src, base := c.subByteBytes()
		out := unsafe.Slice((*byte)(d.data.ptr()), d.n)
		var i int64
		for off := range offsets(c.shape(), c.strides()) {
			d.dtype().StoreBits(out, i, true, c.dtype().LoadBits(src, off+base, c.padded))
			i++
		}
		return dst, nil
	}
	dlpack.CopyStrided(d.data.ptr(), d.strides(), c.data.ptr(), c.strides(), c.shape(), c.dtype().ItemSize())
	return dst, nil
}

package dlpack

import "unsafe"

// CopyStrided copies the elements of a strided source into a strided destination of
// the same shape, for element types of whole bytes (itemSize >= 1). Strides are in
// elements. The memory behind dst and src belongs to C or a producer; the caller has
// validated that every element address lies inside it. Runs of elements that are
// contiguous in both arrays are copied with one copy() each.
func CopyStrided(dst unsafe.Pointer, dstStrides []int64, src unsafe.Pointer, srcStrides []int64,
	shape []int64, itemSize int) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	nd := len(shape)
	if nd == 0 {
		copy(unsafe.Slice((*byte)(dst), itemSize), unsafe.Slice((*byte)(src), itemSize))
		return
	}
	// Merge trailing dimensions that are contiguous in both arrays into one run.
	run := int64(1)
	inner := nd
	for inner > 0 {
		d := inner - 1
		if shape[d] != 1 && (dstStrides[d] != run || srcStrides[d] != run) {
			break
		}
		run *= shape[d]
		inner = d
	}
	runBytes := int(run) * itemSize
	if inner == 0 {
		copy(unsafe.Slice((*byte)(dst), runBytes), unsafe.Slice((*byte)(src), runBytes))
		return
	}
	// Odometer over the outer dimensions [0, inner).
	idx := make([]int64, inner)
	var dOff, sOff int64
	is := int64(itemSize)
	for {
		d := unsafe.Add(dst, dOff*is)
		s := unsafe.Add(src, sOff*is)
		if runBytes == itemSize {
			copyElem(d, s, itemSize)
		} else {
			copy(unsafe.Slice((*byte)(d), runBytes), unsafe.Slice((*byte)(s), runBytes))
		}
		k := inner - 1
		for ; k >= 0; k-- {
			idx[k]++
			dOff += dstStrides[k]
			sOff += srcStrides[k]
			if idx[k] < shape[k] {
				break
			}
			dOff -= dstStrides[k] * shape[k]
			sOff -= srcStrides[k] * shape[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// copyElem copies one element; fixed sizes avoid the slice set-up of copy().
func copyElem(d, s unsafe.Pointer, itemSize int) {
	switch itemSize {
	case 1:
		*(*uint8)(d) = *(*uint8)(s)
	case 2:
		*(*uint16)(d) = *(*uint16)(s)
	case 4:
		*(*uint32)(d) = *(*uint32)(s)
	case 8:
		*(*uint64)(d) = *(*uint64)(s)
	default:
		copy(unsafe.Slice((*byte)(d), itemSize), unsafe.Slice((*byte)(s), itemSize))
	}
}

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
	if run == 1 {
		copyStridedInner(dst, dstStrides, src, srcStrides, shape, inner, itemSize)
		return
	}
	is := int64(itemSize)
	forEachLine(shape[:inner], dstStrides[:inner], srcStrides[:inner], func(dOff, sOff int64) {
		copy(unsafe.Slice((*byte)(unsafe.Add(dst, dOff*is)), runBytes),
			unsafe.Slice((*byte)(unsafe.Add(src, sOff*is)), runBytes))
	})
}

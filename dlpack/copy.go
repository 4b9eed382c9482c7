package dlpack

import (
	"unsafe"

	"github.com/godlpack/godlpack/internal/walkplan"
)

// CopyStrided copies the elements of a strided source into a strided destination of
// the same shape, for element types of whole bytes (itemSize >= 1). Strides are in
// elements. The memory behind dst and src belongs to C or a producer; the caller has
// validated that every element address lies inside it, and that the two do not
// overlap. The walk goes in the destination's memory order (walkplan.Plan: its
// dimensions sorted by dst's strides, reversed ones flipped, and merged where both
// arrays allow), so that a copy into or out of a transposed or reversed array
// writes dst line by line, not one element a row; runs of elements that are then
// contiguous in both arrays are copied with one copy() each. Where dst's rows read
// a source whose lines are closer together than their elements (a transposed
// source into a C-contiguous dst) the copy goes a square tile at a time
// (copyTiles).
func CopyStrided(dst unsafe.Pointer, dstStrides []int64, src unsafe.Pointer, srcStrides []int64,
	shape []int64, itemSize int) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	is := int64(itemSize)
	// The plan's copies of shape and strides: the caller's stay as they are.
	var onStack [3 * 8]int64
	all := onStack[:]
	if nd := len(shape); 3*nd > len(all) {
		all = make([]int64, 3*nd)
	}
	nd := len(shape)
	sh, ds, ss := all[:nd:nd], all[nd:2*nd:2*nd], all[2*nd:3*nd]
	copy(sh, shape)
	copy(ds, dstStrides)
	copy(ss, srcStrides)
	offs := [2]int64{}
	nd = walkplan.Plan(sh, [][]int64{ds, ss}, offs[:], 0, true)
	dst, src = unsafe.Add(dst, offs[0]*is), unsafe.Add(src, offs[1]*is)
	if nd == 0 { // one element
		copy(unsafe.Slice((*byte)(dst), itemSize), unsafe.Slice((*byte)(src), itemSize))
		return
	}
	last := nd - 1
	if ds[last] == 1 && nd >= 2 && transposedRows(sh[last-1], ss[last-1], ss[last]) {
		copyTiles(dst, ds, src, ss, sh, nd, itemSize)
		return
	}
	if ds[last] != 1 || ss[last] != 1 {
		copyStridedInner(dst, ds, src, ss, sh, nd, itemSize)
		return
	}
	runBytes := int(sh[last]) * itemSize
	forEachLine(sh[:last], ds[:last], ss[:last], func(dOff, sOff int64) {
		copy(unsafe.Slice((*byte)(unsafe.Add(dst, dOff*is)), runBytes),
			unsafe.Slice((*byte)(unsafe.Add(src, sOff*is)), runBytes))
	})
}

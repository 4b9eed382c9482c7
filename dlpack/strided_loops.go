package dlpack

import (
	"unsafe"

	"github.com/godlpack/godlpack/internal/walkplan"
)

// The innermost loops of strided copies and fills. A per-element odometer costs
// ~2 ns an element, 3-4x NumPy's copy of a[:, ::2] (bench/bench_array.py); one
// typed loop over the innermost dimension, with the odometer only stepping the
// outer ones, runs at memory bandwidth. Strides are in elements; the caller has
// checked that every address lies inside the memory.

// copyStridedInner copies a strided array whose innermost dimension (inner-1 after
// merging) is not contiguous in both arrays: the odometer walks [0, inner-1) and
// copyLine copies each line.
func copyStridedInner(dst unsafe.Pointer, dstStrides []int64, src unsafe.Pointer, srcStrides []int64,
	shape []int64, inner, itemSize int) {
	last := inner - 1
	n, ds, ss := shape[last], dstStrides[last], srcStrides[last]
	forEachLine(shape[:last], dstStrides[:last], srcStrides[:last], func(dOff, sOff int64) {
		copyLine(unsafe.Add(dst, dOff*int64(itemSize)), ds, unsafe.Add(src, sOff*int64(itemSize)), ss, n, itemSize)
	})
}

// copyTileSide is the side of copyTiles' tiles, in elements: 32 of a transposed
// source's lines, 32 cache lines at most, stay in cache while dst's 32 rows take
// their elements.
const copyTileSide = 32

// transposedRows is whether the rows (more than one) of a copy into dst's
// contiguous rows read a source whose rows are sNext apart and whose elements
// sStep apart within one, closer together than its elements: a transposed
// source, which copyTiles reads a tile at a time.
func transposedRows(rows, sNext, sStep int64) bool {
	return rows > 1 && sStep != 1 && sNext != 0 && max(sNext, -sNext) < max(sStep, -sStep)
}

// copyTiles is copyStridedInner for a copy whose two inner dimensions are dst's
// contiguous rows from a transposed source (transposedRows): square tiles of
// copyTileSide, a row of a tile at a time, so that each cache line of the
// source is read once while it is in cache, not once a row of dst (a
// 2048x2048 float32 .T into C order: BenchmarkCopyStridedTransposeToC).
func copyTiles(dst unsafe.Pointer, dstStrides []int64, src unsafe.Pointer, srcStrides []int64,
	shape []int64, inner, itemSize int) {
	r, c, is := inner-2, inner-1, int64(itemSize)
	rows, cols, dNext, sNext, sStep := shape[r], shape[c], dstStrides[r], srcStrides[r], srcStrides[c]
	forEachLine(shape[:r], dstStrides[:r], srcStrides[:r], func(dOff, sOff int64) {
		d0, s0 := unsafe.Add(dst, dOff*is), unsafe.Add(src, sOff*is)
		for i := int64(0); i < rows; i += copyTileSide {
			bi := min(copyTileSide, rows-i)
			for j := int64(0); j < cols; j += copyTileSide {
				bj := min(copyTileSide, cols-j)
				for k := i; k < i+bi; k++ {
					copyLine(unsafe.Add(d0, (k*dNext+j)*is), 1, unsafe.Add(s0, (k*sNext+j*sStep)*is), sStep, bj, itemSize)
				}
			}
		}
	})
}

// forEachLine calls line with the element offsets of every index of the outer
// dimensions, in C order (once, with 0, 0, when there are none).
func forEachLine(shape, dstStrides, srcStrides []int64, line func(dOff, sOff int64)) {
	idx := make([]int64, len(shape))
	var dOff, sOff int64
	for {
		line(dOff, sOff)
		k := len(shape) - 1
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

// copyLine copies n elements, dst and src advancing by their own strides.
func copyLine(dst unsafe.Pointer, ds int64, src unsafe.Pointer, ss int64, n int64, itemSize int) {
	is := int64(itemSize)
	switch itemSize {
	case 1:
		copyLineOf[uint8](dst, ds, src, ss, n)
	case 2:
		copyLineOf[uint16](dst, ds*is, src, ss*is, n)
	case 4:
		copyLineOf[uint32](dst, ds*is, src, ss*is, n)
	case 8:
		copyLineOf[uint64](dst, ds*is, src, ss*is, n)
	case 16:
		copyLineOf[[2]uint64](dst, ds*is, src, ss*is, n)
	default:
		for i := int64(0); i < n; i++ {
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, i*ds*is)), itemSize),
				unsafe.Slice((*byte)(unsafe.Add(src, i*ss*is)), itemSize))
		}
	}
}

// element is the Go type of one whole-byte element of each size with a typed loop.
type element interface {
	uint8 | uint16 | uint32 | uint64 | [2]uint64
}

// copyLineOf copies n elements of type T, strides in bytes, unrolled by four (Go
// does not unroll; the loop overhead otherwise costs ~1.4x NumPy's loop). Addresses
// are only ever formed for elements that exist.
func copyLineOf[T element](dst unsafe.Pointer, ds int64, src unsafe.Pointer, ss int64, n int64) {
	i := int64(0)
	for ; i+4 <= n; i += 4 {
		d, s := unsafe.Add(dst, i*ds), unsafe.Add(src, i*ss)
		v0, v1 := *(*T)(s), *(*T)(unsafe.Add(s, ss))
		v2, v3 := *(*T)(unsafe.Add(s, 2*ss)), *(*T)(unsafe.Add(s, 3*ss))
		*(*T)(d) = v0
		*(*T)(unsafe.Add(d, ds)) = v1
		*(*T)(unsafe.Add(d, 2*ds)) = v2
		*(*T)(unsafe.Add(d, 3*ds)) = v3
	}
	for ; i < n; i++ {
		*(*T)(unsafe.Add(dst, i*ds)) = *(*T)(unsafe.Add(src, i*ss))
	}
}

// FillStrided writes elem, one element's encoding (whole bytes), to every element
// of a strided array, in its memory order (walkplan.Plan, as CopyStrided).
// Contiguous runs are filled by copying a block that already holds the pattern
// (store bandwidth; all zero bytes clear memory instead); a strided innermost
// dimension gets a typed store loop.
func FillStrided(dst unsafe.Pointer, strides, shape []int64, elem []byte) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	var onStack [2 * 8]int64
	all := onStack[:]
	if nd := len(shape); 2*nd > len(all) {
		all = make([]int64, 2*nd)
	}
	nd := len(shape)
	sh, st := all[:nd:nd], all[nd:2*nd]
	copy(sh, shape)
	copy(st, strides)
	offs := [1]int64{}
	nd = walkplan.Plan(sh, [][]int64{st}, offs[:], 0, true)
	is := int64(len(elem))
	dst = unsafe.Add(dst, offs[0]*is)
	if nd == 0 || st[nd-1] == 1 {
		run := int64(1)
		if nd > 0 {
			nd--
			run = sh[nd]
		}
		forEachLine(sh[:nd], st[:nd], st[:nd], func(off, _ int64) {
			fillContiguous(unsafe.Slice((*byte)(unsafe.Add(dst, off*is)), run*is), elem)
		})
		return
	}
	last := nd - 1
	n, step := sh[last], st[last]
	forEachLine(sh[:last], st[:last], st[:last], func(off, _ int64) {
		fillLine(unsafe.Add(dst, off*is), step, n, elem)
	})
}

// fillChunk is the block replicated by fillContiguous: small enough to stay in L1,
// big enough that each copy runs at full width; a multiple of every whole-byte
// element size (1, 2, 4, 8, 16).
const fillChunk = 4096

func fillContiguous(buf []byte, elem []byte) {
	if allZero(elem) {
		clear(buf)
		return
	}
	size := len(elem)
	copy(buf, elem)
	chunk := min(len(buf), fillChunk)
	for filled := size; filled < chunk; filled *= 2 {
		copy(buf[filled:chunk], buf[:filled])
	}
	for off := chunk; off < len(buf); off += chunk {
		copy(buf[off:], buf[:chunk])
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// fillLine stores elem into n elements step elements apart.
func fillLine(dst unsafe.Pointer, step, n int64, elem []byte) {
	is := int64(len(elem))
	switch len(elem) {
	case 1:
		fillLineOf(dst, step, n, elem[0])
	case 2:
		fillLineOf(dst, step*is, n, *(*uint16)(unsafe.Pointer(&elem[0])))
	case 4:
		fillLineOf(dst, step*is, n, *(*uint32)(unsafe.Pointer(&elem[0])))
	case 8:
		fillLineOf(dst, step*is, n, *(*uint64)(unsafe.Pointer(&elem[0])))
	case 16:
		fillLineOf(dst, step*is, n, *(*[2]uint64)(unsafe.Pointer(&elem[0])))
	default:
		for i := int64(0); i < n; i++ {
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, i*step*is)), len(elem)), elem)
		}
	}
}

// fillLineOf stores v into n elements step bytes apart, unrolled as copyLineOf.
func fillLineOf[T element](dst unsafe.Pointer, step, n int64, v T) {
	i := int64(0)
	for ; i+4 <= n; i += 4 {
		d := unsafe.Add(dst, i*step)
		*(*T)(d) = v
		*(*T)(unsafe.Add(d, step)) = v
		*(*T)(unsafe.Add(d, 2*step)) = v
		*(*T)(unsafe.Add(d, 3*step)) = v
	}
	for ; i < n; i++ {
		*(*T)(unsafe.Add(dst, i*step)) = v
	}
}

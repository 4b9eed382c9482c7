//go:build goexperiment.simd && amd64

package vec

import (
	"simd/archsimd"
	"unsafe"
)

// The SIMD kernels of the walks' gathers and scatters at step 2 ([:, ::2], the
// real parts of interleaved complex data), and of their gather at step -1: a line's 4- and 8-byte elements move
// as 32-bit lanes (an 8-byte element is two), loaded two vectors at a time and
// permuted into one (gather), or, on AVX-512, permuted out of one into two masked
// stores that write the line's elements only, never the ones between them
// (scatter: another goroutine may own those). Permutes, loads and stores move bits as they are,
// NaN payloads too, so every kernel set gives the same bytes. Each returns how
// many elements it moved: whole vectors whose memory lies inside data; walk.go's
// loops do the rest. Any other element size or step stays in those loops.

// The 32-bit lane indexes of the permutes, for elements of 1 and 2 lanes (w):
// gather16 picks a step-2 element's lanes out of 32; spread16 sends 8 elements'
// lanes to every other element's place in 16 lanes (its upper half's
// indexes are these plus 8).
var (
	gather16 = [2][16]uint32{
		{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30},
		{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29},
	}
	spread16 = [2][16]uint32{
		{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7},
		{0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7},
	}
	// keep16 is the lanes of the line's elements in a spread vector.
	keep16 = [2]uint16{0x5555, 0x3333}
	// reverse16 and reverse8 turn a vector's elements of w lanes end to end
	// (gatherReverse).
	reverse16 = [2][16]uint32{
		{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
		{14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1},
	}
	reverse8 = [2][8]uint32{{7, 6, 5, 4, 3, 2, 1, 0}, {6, 7, 4, 5, 2, 3, 0, 1}}
	// pairOrder8 puts concatPermuteScalarsGrouped's halves [a b | c d] (64 bits each)
	// in order [a c b d].
	pairOrder8 = [8]uint32{0, 1, 4, 5, 2, 3, 6, 7}
)

// lanes32 is s's memory as 32-bit lanes (w of them an element), from its first
// element; nil unless T is 4 or 8 bytes.
func lanes32[T any](s []T) (l []float32, w int) {
	size := unsafe.Sizeof(*new(T))
	if (size != 4 && size != 8) || len(s) == 0 {
		return nil, 0
	}
	w = int(size / 4)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*w), w
}

// gatherStep2 copies buf's first elements from data's at off, off+2, ...;
// it returns how many.
func gatherStep2[T any](buf, data []T, off int) int {
	if level == useGo {
		return 0
	}
	dst, w := lanes32(buf)
	src, _ := lanes32(data)
	if dst == nil || src == nil {
		return 0
	}
	i, s := 0, off*w // lanes of dst and of src: s = off*w + 2*i
	switch level {
	case useAVX512:
		return gatherStep2AVX512(buf, data, off)
	case useAVX2:
		order := loadUint32x8Array(&pairOrder8)
		for ; i+8 <= len(dst) && s+16 <= len(src); i, s = i+8, s+16 {
			a := loadFloat32x8(src[s : s+8])
			b := loadFloat32x8(src[s+8 : s+16])
			var p archsimd.Float32x8
			if w == 1 {
				p = concatPermuteScalarsGroupedFloat32x8(a, 0, 2, 4, 6, b) // [a0 a2 b0 b2 | a4 a6 b4 b6]
			} else {
				p = concatPermuteScalarsGroupedFloat32x8(a, 0, 1, 4, 5, b) // 8-byte elements [a0 b0 | a2 b2]
			}
			storeFloat32x8(p.Permute(order), dst[i:i+8])
		}
	}
	clearUpper()
	return i / w
}

// gatherStep2AVX512 is gatherStep2's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func gatherStep2AVX512[T any](buf, data []T, off int) int {
	dst, w := lanes32(buf)
	src, _ := lanes32(data)
	if dst == nil || src == nil {
		return 0
	}
	i, s := 0, off*w // lanes of dst and of src: s = off*w + 2*i
	idx := loadUint32x16Array(&gather16[w-1])
	for ; i+16 <= len(dst) && s+32 <= len(src); i, s = i+16, s+32 {
		a := loadFloat32x16(src[s : s+16])
		b := loadFloat32x16(src[s+16 : s+32])
		storeFloat32x16(a.ConcatPermute(b, idx), dst[i:i+16])
	}
	clearUpper()
	return i / w
}

// gatherReverse copies buf's first elements from data's at off, off-1, ...
// (a reversed line, step -1, whose dst runs forwards: [::-1] into a new
// array): a vector of data ending at element off, its elements permuted end to
// end; it returns how many.
func gatherReverse[T any](buf, data []T, off int) int {
	if level == useGo {
		return 0
	}
	dst, w := lanes32(buf)
	src, _ := lanes32(data)
	if dst == nil || src == nil {
		return 0
	}
	i, end := 0, (off+1)*w // lanes of dst; lanes of src up to data's element off
	switch level {
	case useAVX512:
		return gatherReverseAVX512(buf, data, off)
	case useAVX2:
		idx := loadUint32x8Array(&reverse8[w-1])
		for ; i+8 <= len(dst) && end-i >= 8; i += 8 {
			storeFloat32x8(loadFloat32x8(src[end-i-8:end-i]).Permute(idx), dst[i:i+8])
		}
	}
	clearUpper()
	return i / w
}

// gatherReverseAVX512 is gatherReverse's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func gatherReverseAVX512[T any](buf, data []T, off int) int {
	dst, w := lanes32(buf)
	src, _ := lanes32(data)
	if dst == nil || src == nil {
		return 0
	}
	i, end := 0, (off+1)*w // lanes of dst; lanes of src up to data's element off
	idx := loadUint32x16Array(&reverse16[w-1])
	for ; i+16 <= len(dst) && end-i >= 16; i += 16 {
		storeFloat32x16(loadFloat32x16(src[end-i-16:end-i]).Permute(idx), dst[i:i+16])
	}
	clearUpper()
	return i / w
}

// scatterStep2 is gatherStep2's inverse: buf's first elements into data at
// off, off+2, ..., the elements between untouched; it returns how many. AVX2
// has none of it: its masked store (VMASKMOVPS, the only store that leaves the
// elements between alone) lost to scatterLine's scalar moves (Zen 4,
// GODLPACK_VEC_KERNELS=avx2, 1024 elements in cache: float32 250-350 against
// 180-260 ns, float64 370-630 against 175-240), as did each lane taken out
// as an integer and stored (220-400, 370-780).
func scatterStep2[T any](data []T, off int, buf []T) int {
	if level != useAVX512 {
		return 0
	}
	return scatterStep2AVX512(data, off, buf)
}

// scatterStep2AVX512 is scatterStep2's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func scatterStep2AVX512[T any](data []T, off int, buf []T) int {
	src, w := lanes32(buf)
	dst, _ := lanes32(data)
	if dst == nil || src == nil {
		return 0
	}
	i, s := 0, off*w
	lo := loadUint32x16Array(&spread16[w-1])
	hi := lo.Add(archsimd.BroadcastUint32x16(8))
	keep := archsimd.Mask32x16FromBits(keep16[w-1])
	for ; i+16 <= len(src) && s+32 <= len(dst); i, s = i+16, s+32 {
		v := loadFloat32x16(src[i : i+16])
		storeFloat32x16ArrayMasked(v.Permute(lo), (*[16]float32)(dst[s:s+16]), keep)
		storeFloat32x16ArrayMasked(v.Permute(hi), (*[16]float32)(dst[s+16:s+32]), keep)
	}
	clearUpper()
	return i / w
}

// The fused step-2 kernels' (kernels_simd_gen.go, fused.go) permutes: the even
// lanes of p and the odd ones of q (loaded one element early), for 32- and
// 64-bit elements.
var (
	step2Pick32x16 = [16]uint32{0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31}
	step2Pick64x8  = [8]uint64{0, 2, 4, 6, 9, 11, 13, 15}
)

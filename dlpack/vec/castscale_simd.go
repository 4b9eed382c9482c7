//go:build goexperiment.simd && amd64

package vec

import (
	"simd/archsimd"
	"unsafe"
)

// castScaleShiftU8F32 is CastScaleShift's uint8 to float32 line (an image's
// pixels): dst[i] = float32(src[off+i*step])*k + c, fused, in one pass and
// whole (it returns len(dst), or 0 without SIMD). Each vector's 16 (AVX2: 8)
// bytes are loaded at step 1, else gathered into registers (bytesAt); then
// widened, converted (exact) and FMA'd, and stored: the last
// vector's lanes through a stack copy, so a 16-element channel plane of a
// 4x4 image is one vector and no tail loop. The copy from the stack runs after
// clearUpper: copy's memmove moves small sizes with SSE instructions, each of
// which waits on the vector registers' upper halves while they are in use.
func castScaleShiftU8F32(dst []float32, src []uint8, off, step int, k, c float32) int {
	n := len(dst)
	if level == useGo || n == 0 {
		return 0
	}
	_ = src[off+(n-1)*step] // the last byte, checked once
	p := unsafe.Pointer(&src[off])
	var tail [16]float32 // (cleared here, before any vector instruction)
	last := n            // where the lanes in tail go
	if level == useAVX512 {
		last = castScaleShiftU8F32AVX512(dst, src, off, step, p, k, c, &tail)
	} else {
		kv, cv := archsimd.BroadcastFloat32x8(k), archsimd.BroadcastFloat32x8(c)
		for i := 0; i < n; i += 8 {
			m := min(n-i, 8)
			x := bytesOf(src, off, p, i, m, step).ExtendLo8ToUint32().AsInt32x8().ConvertToFloat32()
			if y := x.MulAdd(kv, cv); m == 8 {
				storeFloat32x8(y, dst[i:i+8])
			} else {
				storeFloat32x8Array(y, (*[8]float32)(tail[:8]))
				last = i
			}
		}
	}
	clearUpper()
	copy(dst[last:], tail[:n-last])
	return n
}

// castScaleShiftU8F32AVX512 is castScaleShiftU8F32's AVX-512 loop, a function of
// its own (level_simd.go says why): the lanes of a last partial vector go to
// tail, and it returns where they go in dst (len(dst): none).
//
//go:noinline
func castScaleShiftU8F32AVX512(dst []float32, src []uint8, off, step int, p unsafe.Pointer, k, c float32, tail *[16]float32) int {
	n, last := len(dst), len(dst)
	kv, cv := archsimd.BroadcastFloat32x16(k), archsimd.BroadcastFloat32x16(c)
	for i := 0; i < n; i += 16 {
		m := min(n-i, 16)
		x := bytesOf(src, off, p, i, m, step).ExtendToUint32().AsInt32x16().ConvertToFloat32()
		if y := x.MulAdd(kv, cv); m == 16 {
			storeFloat32x16(y, dst[i:i+16])
		} else { // through the stack: a masked store to a short slice fails checkptr
			storeFloat32x16Array(y, tail)
			last = i
		}
	}
	return last
}

// bytesOf is the line's bytes i..i+m-1 (m <= 16) as a vector, the line's
// first at p (src[off]): 16 at step 1 loaded, else packed in registers (a
// partial load or store through archsimd's Part forms converts a short slice
// to a whole vector's array pointer, which checkptr refuses at the end of an
// allocation).
func bytesOf(src []uint8, off int, p unsafe.Pointer, i, m, step int) archsimd.Uint8x16 {
	if step == 1 && m == 16 {
		return loadUint8x16(src[off+i : off+i+16])
	}
	q := unsafe.Add(p, i*step) // never a pointer past the last byte (checkptr)
	lo, hi := bytesAt(q, step, min(m, 8)), uint64(0)
	if m > 8 {
		hi = bytesAt(unsafe.Add(q, 8*step), step, m-8)
	}
	// both halves before the vector: one held across bytesAt's call was
	// spilled with SSE moves (see castScaleShiftU8F32)
	return archsimd.BroadcastUint64x2(lo).SetElem(1, hi).AsUint8x16()
}

// bytesAt packs the m <= 8 bytes at p, step apart, into a uint64, the first
// lowest. In registers: a vector loaded from bytes just stored one by one
// waits for them (no store forwards to a wider load), half the time of a 4x4
// plane's line and two thirds of a long one's.
func bytesAt(p unsafe.Pointer, step, m int) uint64 {
	at := func(j int) uint64 { return uint64(*(*uint8)(unsafe.Add(p, j*step))) }
	if m == 8 { // a whole half: no loop (whose counters the compiler spills)
		return at(0) | at(1)<<8 | at(2)<<16 | at(3)<<24 | at(4)<<32 | at(5)<<40 | at(6)<<48 | at(7)<<56
	}
	var w uint64
	for j := range m {
		w |= at(j) << (8 * j)
	}
	return w
}

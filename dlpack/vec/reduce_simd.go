//go:build goexperiment.simd && amd64

package vec

import "simd/archsimd"

// The reductions' SIMD kernels (reduce.go says the order): each does the whole
// 16-element groups of its slice into the 16 lanes acc and returns how many
// elements it did. AVX-512 holds the lanes in two float64x8 vectors (lanes 0-7,
// 8-15), AVX2 in four float64x4.

// sumLanesF32 widens each float32 to float64 and adds it to its lane.
func sumLanesF32(s []float32, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		return sumLanesF32AVX512(s, acc)
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(s); i += 16 {
			v := loadFloat32x8(s[i : i+8])
			w := loadFloat32x8(s[i+8 : i+16])
			a0 = a0.Add(v.GetLo().ConvertToFloat64())
			a1 = a1.Add(v.GetHi().ConvertToFloat64())
			a2 = a2.Add(w.GetLo().ConvertToFloat64())
			a3 = a3.Add(w.GetHi().ConvertToFloat64())
		}
		store4(acc, a0, a1, a2, a3)
	}
	clearUpper()
	return i
}

// sumLanesF32AVX512 is sumLanesF32's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func sumLanesF32AVX512(s []float32, acc *[16]float64) int {
	i := 0
	var a0, a1 archsimd.Float64x8
	for ; i+16 <= len(s); i += 16 {
		v := loadFloat32x16(s[i : i+16])
		a0 = a0.Add(v.GetLo().ConvertToFloat64())
		a1 = a1.Add(v.GetHi().ConvertToFloat64())
	}
	storeFloat64x8(a0, acc[0:8])
	storeFloat64x8(a1, acc[8:16])
	clearUpper()
	return i
}

// sumBlocksF32 sums s's whole 64-element groups into l in sumLeafF32's order:
// each block's 64 float32 lanes added into its unit's at the block's end, each
// unit's folded into l.acc at its end (f32Lanes.fold's tree), and returns how
// many elements it did, a partial block's lanes left in l.part, a partial
// unit's in l.mid. s starts a unit of l's leaf: its first, or the one after
// the units l holds (sumLeavesF32 passes a leaf a unit at a time). AVX-512
// holds the float32 lanes in four float32x16 (lanes 0-15, 16-31, 32-47,
// 48-63) and the unit's in four more, AVX2 in eight float32x8 and the unit's
// in l.mid (sixteen would not fit its registers).
func sumBlocksF32(s []float32, l *f32Lanes) int {
	i := 0
	switch level {
	case useAVX512:
		return sumBlocksF32AVX512(s, l)
	case useAVX2:
		a0, a1, a2, a3 := loadFloat64x4(l.acc[0:4]), loadFloat64x4(l.acc[4:8]), loadFloat64x4(l.acc[8:12]), loadFloat64x4(l.acc[12:16])
		m := &l.mid
		for len(s)-i >= 64 {
			end := min(len(s), i+block32)
			var p0, p1, p2, p3, p4, p5, p6, p7 archsimd.Float32x8
			blk := s[i:end]
			for len(blk) >= 64 {
				g := (*[64]float32)(blk)
				p0 = p0.Add(loadFloat32x8(g[0:8]))
				p1 = p1.Add(loadFloat32x8(g[8:16]))
				p2 = p2.Add(loadFloat32x8(g[16:24]))
				p3 = p3.Add(loadFloat32x8(g[24:32]))
				p4 = p4.Add(loadFloat32x8(g[32:40]))
				p5 = p5.Add(loadFloat32x8(g[40:48]))
				p6 = p6.Add(loadFloat32x8(g[48:56]))
				p7 = p7.Add(loadFloat32x8(g[56:64]))
				blk = blk[64:]
			}
			i = end - len(blk)
			// (no array of the eight: Go copies one with SSE moves, each of
			// which waits on the vectors' upper halves)
			dst, partial := m, i%block32 != 0
			if partial { // the last block: its rest is the caller's
				dst = &l.part // zero: the sums store the lanes as they are
			}
			storeFloat32x8(loadFloat32x8(dst[0:8]).Add(p0), dst[0:8])
			storeFloat32x8(loadFloat32x8(dst[8:16]).Add(p1), dst[8:16])
			storeFloat32x8(loadFloat32x8(dst[16:24]).Add(p2), dst[16:24])
			storeFloat32x8(loadFloat32x8(dst[24:32]).Add(p3), dst[24:32])
			storeFloat32x8(loadFloat32x8(dst[32:40]).Add(p4), dst[32:40])
			storeFloat32x8(loadFloat32x8(dst[40:48]).Add(p5), dst[40:48])
			storeFloat32x8(loadFloat32x8(dst[48:56]).Add(p6), dst[48:56])
			storeFloat32x8(loadFloat32x8(dst[56:64]).Add(p7), dst[56:64])
			if partial {
				break
			}
			if i%unit32 != 0 {
				continue
			}
			// float64 lane j takes float32 lanes j, j+16, j+32, j+48; each
			// quarter loaded where it is used (held in registers, some spilled
			// with SSE moves, which wait on the vectors' upper halves)
			a0 = a0.Add(fold4(loadFloat32x4(m[0:4]), loadFloat32x4(m[16:20]), loadFloat32x4(m[32:36]), loadFloat32x4(m[48:52])))
			a1 = a1.Add(fold4(loadFloat32x4(m[4:8]), loadFloat32x4(m[20:24]), loadFloat32x4(m[36:40]), loadFloat32x4(m[52:56])))
			a2 = a2.Add(fold4(loadFloat32x4(m[8:12]), loadFloat32x4(m[24:28]), loadFloat32x4(m[40:44]), loadFloat32x4(m[56:60])))
			a3 = a3.Add(fold4(loadFloat32x4(m[12:16]), loadFloat32x4(m[28:32]), loadFloat32x4(m[44:48]), loadFloat32x4(m[60:64])))
			var zero archsimd.Float32x8 // not *m = [64]float32{}: SSE stores
			for k := 0; k < 64; k += 8 {
				storeFloat32x8(zero, m[k:k+8])
			}
		}
		store4(&l.acc, a0, a1, a2, a3)
	}
	clearUpper()
	return i
}

// sumBlocksF32AVX512 is sumBlocksF32's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func sumBlocksF32AVX512(s []float32, l *f32Lanes) int {
	i := 0
	a0, a1 := loadFloat64x8(l.acc[0:8]), loadFloat64x8(l.acc[8:16])
	var q0, q1, q2, q3 archsimd.Float32x16
	for len(s)-i >= 64 {
		end := min(len(s), i+block32)
		var p0, p1, p2, p3 archsimd.Float32x16
		blk := s[i:end]
		for len(blk) >= 64 { // blk's array: no bounds check a load
			g := (*[64]float32)(blk)
			p0 = p0.Add(loadFloat32x16(g[0:16]))
			p1 = p1.Add(loadFloat32x16(g[16:32]))
			p2 = p2.Add(loadFloat32x16(g[32:48]))
			p3 = p3.Add(loadFloat32x16(g[48:64]))
			blk = blk[64:]
		}
		i = end - len(blk)
		if i%block32 != 0 { // the last block, partial: its rest is the caller's
			storeFloat32x16(p0, l.part[0:16])
			storeFloat32x16(p1, l.part[16:32])
			storeFloat32x16(p2, l.part[32:48])
			storeFloat32x16(p3, l.part[48:64])
			break
		}
		q0, q1, q2, q3 = q0.Add(p0), q1.Add(p1), q2.Add(p2), q3.Add(p3)
		if i%unit32 == 0 {
			a0 = a0.Add(q0.GetLo().ConvertToFloat64().Add(q1.GetLo().ConvertToFloat64()).
				Add(q2.GetLo().ConvertToFloat64().Add(q3.GetLo().ConvertToFloat64())))
			a1 = a1.Add(q0.GetHi().ConvertToFloat64().Add(q1.GetHi().ConvertToFloat64()).
				Add(q2.GetHi().ConvertToFloat64().Add(q3.GetHi().ConvertToFloat64())))
			var zero archsimd.Float32x16
			q0, q1, q2, q3 = zero, zero, zero, zero
		}
	}
	storeFloat32x16(q0, l.mid[0:16])
	storeFloat32x16(q1, l.mid[16:32])
	storeFloat32x16(q2, l.mid[32:48])
	storeFloat32x16(q3, l.mid[48:64])
	storeFloat64x8(a0, l.acc[0:8])
	storeFloat64x8(a1, l.acc[8:16])
	clearUpper()
	return i
}

// fold4 is (w+x)+(y+z) of the four widened to float64: f32Lanes.fold's tree.
func fold4(w, x, y, z archsimd.Float32x4) archsimd.Float64x4 {
	return w.ConvertToFloat64().Add(x.ConvertToFloat64()).Add(y.ConvertToFloat64().Add(z.ConvertToFloat64()))
}

// sumLanesF64 adds each float64 to its lane.
func sumLanesF64(s []float64, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		return sumLanesF64AVX512(s, acc)
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(s); i += 16 {
			a0 = a0.Add(loadFloat64x4(s[i : i+4]))
			a1 = a1.Add(loadFloat64x4(s[i+4 : i+8]))
			a2 = a2.Add(loadFloat64x4(s[i+8 : i+12]))
			a3 = a3.Add(loadFloat64x4(s[i+12 : i+16]))
		}
		store4(acc, a0, a1, a2, a3)
	}
	clearUpper()
	return i
}

// sumLanesF64AVX512 is sumLanesF64's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func sumLanesF64AVX512(s []float64, acc *[16]float64) int {
	i := 0
	var a0, a1 archsimd.Float64x8
	for ; i+16 <= len(s); i += 16 {
		a0 = a0.Add(loadFloat64x8(s[i : i+8]))
		a1 = a1.Add(loadFloat64x8(s[i+8 : i+16]))
	}
	storeFloat64x8(a0, acc[0:8])
	storeFloat64x8(a1, acc[8:16])
	clearUpper()
	return i
}

// dotLanesF32 adds each product, in float64, to its lane (FMA).
func dotLanesF32(a, b []float32, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		return dotLanesF32AVX512(a, b, acc)
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(a); i += 16 {
			v := loadFloat32x8(a[i : i+8])
			w := loadFloat32x8(b[i : i+8])
			a0 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a0)
			a1 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a1)
			v = loadFloat32x8(a[i+8 : i+16])
			w = loadFloat32x8(b[i+8 : i+16])
			a2 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a2)
			a3 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a3)
		}
		store4(acc, a0, a1, a2, a3)
	}
	clearUpper()
	return i
}

// dotLanesF32AVX512 is dotLanesF32's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func dotLanesF32AVX512(a, b []float32, acc *[16]float64) int {
	i := 0
	var a0, a1 archsimd.Float64x8
	for ; i+16 <= len(a); i += 16 {
		v := loadFloat32x16(a[i : i+16])
		w := loadFloat32x16(b[i : i+16])
		a0 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a0)
		a1 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a1)
	}
	storeFloat64x8(a0, acc[0:8])
	storeFloat64x8(a1, acc[8:16])
	clearUpper()
	return i
}

// dotLanesF64 adds each product to its lane (FMA).
func dotLanesF64(a, b []float64, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		return dotLanesF64AVX512(a, b, acc)
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(a); i += 16 {
			a0 = loadFloat64x4(a[i:i+4]).MulAdd(loadFloat64x4(b[i:i+4]), a0)
			a1 = loadFloat64x4(a[i+4:i+8]).MulAdd(loadFloat64x4(b[i+4:i+8]), a1)
			a2 = loadFloat64x4(a[i+8:i+12]).MulAdd(loadFloat64x4(b[i+8:i+12]), a2)
			a3 = loadFloat64x4(a[i+12:i+16]).MulAdd(loadFloat64x4(b[i+12:i+16]), a3)
		}
		store4(acc, a0, a1, a2, a3)
	}
	clearUpper()
	return i
}

// dotLanesF64AVX512 is dotLanesF64's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func dotLanesF64AVX512(a, b []float64, acc *[16]float64) int {
	i := 0
	var a0, a1 archsimd.Float64x8
	for ; i+16 <= len(a); i += 16 {
		a0 = loadFloat64x8(a[i:i+8]).MulAdd(loadFloat64x8(b[i:i+8]), a0)
		a1 = loadFloat64x8(a[i+8:i+16]).MulAdd(loadFloat64x8(b[i+8:i+16]), a1)
	}
	storeFloat64x8(a0, acc[0:8])
	storeFloat64x8(a1, acc[8:16])
	clearUpper()
	return i
}

func store4(acc *[16]float64, a0, a1, a2, a3 archsimd.Float64x4) {
	storeFloat64x4(a0, acc[0:4])
	storeFloat64x4(a1, acc[4:8])
	storeFloat64x4(a2, acc[8:12])
	storeFloat64x4(a3, acc[12:16])
}

// extremeLanesF32 folds the 16-element groups of s after the first (already
// in acc) into acc, lane by lane (acc < v ? acc : v for the minimum), and says
// whether one of them held a NaN. A compare and a blend, not Min and Max: the
// compiler takes those as commutative and may swap their operands, and x86's
// MINPS and MAXPS give the second of two equal zeros (Go 1.27 swapped them in
// the AVX2 float64 loop: TestExtremesSameOnEveryKernelSet).
func extremeLanesF32(s []float32, acc *[16]float32, isMax bool) (int, bool) {
	i := 16
	switch level {
	case useAVX512:
		return extremeLanesF32AVX512(s, acc, isMax)
	case useAVX2:
		lo := loadFloat32x8(acc[0:8])
		hi := loadFloat32x8(acc[8:16])
		var nan archsimd.Mask32x8
		for ; i+16 <= len(s); i += 16 {
			v := loadFloat32x8(s[i : i+8])
			w := loadFloat32x8(s[i+8 : i+16])
			nan = nan.Or(v.IsNaN()).Or(w.IsNaN())
			if isMax {
				lo, hi = lo.Merge(v, lo.Greater(v)), hi.Merge(w, hi.Greater(w))
			} else {
				lo, hi = lo.Merge(v, lo.Less(v)), hi.Merge(w, hi.Less(w))
			}
		}
		storeFloat32x8(lo, acc[0:8])
		storeFloat32x8(hi, acc[8:16])
		sawNaN := nan.ToBits() != 0
		clearUpper()
		return i, sawNaN
	}
	return i, false
}

// extremeLanesF32AVX512 is extremeLanesF32's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func extremeLanesF32AVX512(s []float32, acc *[16]float32, isMax bool) (int, bool) {
	i := 16
	a := loadFloat32x16Array(acc)
	var nan archsimd.Mask32x16
	for ; i+16 <= len(s); i += 16 {
		v := loadFloat32x16(s[i : i+16])
		nan = nan.Or(v.IsNaN())
		if isMax {
			a = a.Merge(v, a.Greater(v))
		} else {
			a = a.Merge(v, a.Less(v))
		}
	}
	storeFloat32x16Array(a, acc)
	sawNaN := nan.ToBits() != 0
	clearUpper()
	return i, sawNaN
}

// extremeLanesF64 is extremeLanesF32 for float64.
func extremeLanesF64(s []float64, acc *[16]float64, isMax bool) (int, bool) {
	i := 16
	switch level {
	case useAVX512:
		return extremeLanesF64AVX512(s, acc, isMax)
	case useAVX2:
		var a [4]archsimd.Float64x4
		for k := range a {
			a[k] = loadFloat64x4(acc[4*k : 4*k+4])
		}
		var nan archsimd.Mask64x4
		for ; i+16 <= len(s); i += 16 {
			for k := range a {
				v := loadFloat64x4(s[i+4*k : i+4*k+4])
				nan = nan.Or(v.IsNaN())
				if isMax {
					a[k] = a[k].Merge(v, a[k].Greater(v))
				} else {
					a[k] = a[k].Merge(v, a[k].Less(v))
				}
			}
		}
		for k := range a {
			storeFloat64x4(a[k], acc[4*k:4*k+4])
		}
		sawNaN := nan.ToBits() != 0
		clearUpper()
		return i, sawNaN
	}
	return i, false
}

// extremeLanesF64AVX512 is extremeLanesF64's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func extremeLanesF64AVX512(s []float64, acc *[16]float64, isMax bool) (int, bool) {
	i := 16
	lo := loadFloat64x8(acc[0:8])
	hi := loadFloat64x8(acc[8:16])
	var nan archsimd.Mask64x8
	for ; i+16 <= len(s); i += 16 {
		v := loadFloat64x8(s[i : i+8])
		w := loadFloat64x8(s[i+8 : i+16])
		nan = nan.Or(v.IsNaN()).Or(w.IsNaN())
		if isMax {
			lo, hi = lo.Merge(v, lo.Greater(v)), hi.Merge(w, hi.Greater(w))
		} else {
			lo, hi = lo.Merge(v, lo.Less(v)), hi.Merge(w, hi.Less(w))
		}
	}
	storeFloat64x8(lo, acc[0:8])
	storeFloat64x8(hi, acc[8:16])
	sawNaN := nan.ToBits() != 0
	clearUpper()
	return i, sawNaN
}

// castU8F32 converts the whole 16-byte groups of src (as long as dst) to
// float32 (exact).
func castU8F32(dst []float32, src []uint8) int {
	i := 0
	switch level {
	case useAVX512:
		return castU8F32AVX512(dst, src)
	case useAVX2:
		for ; i+16 <= len(dst); i += 8 { // 16 bytes loaded, the low 8 converted
			v := loadUint8x16(src[i : i+16]).ExtendLo8ToUint32().AsInt32x8()
			storeFloat32x8(v.ConvertToFloat32(), dst[i:i+8])
		}
	}
	clearUpper()
	return i
}

// castU8F32AVX512 is castU8F32's AVX-512 case, a function of its own: one that
// holds a 512-bit value may not hold AVX2 code (level_simd.go says why).
//
//go:noinline
func castU8F32AVX512(dst []float32, src []uint8) int {
	i := 0
	for ; i+16 <= len(dst); i += 16 {
		v := loadUint8x16(src[i : i+16]).ExtendToUint32().AsInt32x16()
		storeFloat32x16(v.ConvertToFloat32(), dst[i:i+16])
	}
	clearUpper()
	return i
}

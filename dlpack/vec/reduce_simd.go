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
		var a0, a1 archsimd.Float64x8
		for ; i+16 <= len(s); i += 16 {
			v := archsimd.LoadFloat32x16Slice(s[i : i+16])
			a0 = a0.Add(v.GetLo().ConvertToFloat64())
			a1 = a1.Add(v.GetHi().ConvertToFloat64())
		}
		a0.StoreSlice(acc[0:8])
		a1.StoreSlice(acc[8:16])
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(s); i += 16 {
			v := archsimd.LoadFloat32x8Slice(s[i : i+8])
			w := archsimd.LoadFloat32x8Slice(s[i+8 : i+16])
			a0 = a0.Add(v.GetLo().ConvertToFloat64())
			a1 = a1.Add(v.GetHi().ConvertToFloat64())
			a2 = a2.Add(w.GetLo().ConvertToFloat64())
			a3 = a3.Add(w.GetHi().ConvertToFloat64())
		}
		store4(acc, a0, a1, a2, a3)
	}
	return i
}

// sumLanesF64 adds each float64 to its lane.
func sumLanesF64(s []float64, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		var a0, a1 archsimd.Float64x8
		for ; i+16 <= len(s); i += 16 {
			a0 = a0.Add(archsimd.LoadFloat64x8Slice(s[i : i+8]))
			a1 = a1.Add(archsimd.LoadFloat64x8Slice(s[i+8 : i+16]))
		}
		a0.StoreSlice(acc[0:8])
		a1.StoreSlice(acc[8:16])
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(s); i += 16 {
			a0 = a0.Add(archsimd.LoadFloat64x4Slice(s[i : i+4]))
			a1 = a1.Add(archsimd.LoadFloat64x4Slice(s[i+4 : i+8]))
			a2 = a2.Add(archsimd.LoadFloat64x4Slice(s[i+8 : i+12]))
			a3 = a3.Add(archsimd.LoadFloat64x4Slice(s[i+12 : i+16]))
		}
		store4(acc, a0, a1, a2, a3)
	}
	return i
}

// dotLanesF32 adds each product, in float64, to its lane (FMA).
func dotLanesF32(a, b []float32, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		var a0, a1 archsimd.Float64x8
		for ; i+16 <= len(a); i += 16 {
			v := archsimd.LoadFloat32x16Slice(a[i : i+16])
			w := archsimd.LoadFloat32x16Slice(b[i : i+16])
			a0 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a0)
			a1 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a1)
		}
		a0.StoreSlice(acc[0:8])
		a1.StoreSlice(acc[8:16])
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(a); i += 16 {
			v := archsimd.LoadFloat32x8Slice(a[i : i+8])
			w := archsimd.LoadFloat32x8Slice(b[i : i+8])
			a0 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a0)
			a1 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a1)
			v = archsimd.LoadFloat32x8Slice(a[i+8 : i+16])
			w = archsimd.LoadFloat32x8Slice(b[i+8 : i+16])
			a2 = v.GetLo().ConvertToFloat64().MulAdd(w.GetLo().ConvertToFloat64(), a2)
			a3 = v.GetHi().ConvertToFloat64().MulAdd(w.GetHi().ConvertToFloat64(), a3)
		}
		store4(acc, a0, a1, a2, a3)
	}
	return i
}

// dotLanesF64 adds each product to its lane (FMA).
func dotLanesF64(a, b []float64, acc *[16]float64) int {
	i := 0
	switch level {
	case useAVX512:
		var a0, a1 archsimd.Float64x8
		for ; i+16 <= len(a); i += 16 {
			a0 = archsimd.LoadFloat64x8Slice(a[i:i+8]).MulAdd(archsimd.LoadFloat64x8Slice(b[i:i+8]), a0)
			a1 = archsimd.LoadFloat64x8Slice(a[i+8:i+16]).MulAdd(archsimd.LoadFloat64x8Slice(b[i+8:i+16]), a1)
		}
		a0.StoreSlice(acc[0:8])
		a1.StoreSlice(acc[8:16])
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		for ; i+16 <= len(a); i += 16 {
			a0 = archsimd.LoadFloat64x4Slice(a[i:i+4]).MulAdd(archsimd.LoadFloat64x4Slice(b[i:i+4]), a0)
			a1 = archsimd.LoadFloat64x4Slice(a[i+4:i+8]).MulAdd(archsimd.LoadFloat64x4Slice(b[i+4:i+8]), a1)
			a2 = archsimd.LoadFloat64x4Slice(a[i+8:i+12]).MulAdd(archsimd.LoadFloat64x4Slice(b[i+8:i+12]), a2)
			a3 = archsimd.LoadFloat64x4Slice(a[i+12:i+16]).MulAdd(archsimd.LoadFloat64x4Slice(b[i+12:i+16]), a3)
		}
		store4(acc, a0, a1, a2, a3)
	}
	return i
}

func store4(acc *[16]float64, a0, a1, a2, a3 archsimd.Float64x4) {
	a0.StoreSlice(acc[0:4])
	a1.StoreSlice(acc[4:8])
	a2.StoreSlice(acc[8:12])
	a3.StoreSlice(acc[12:16])
}

// extremeLanesF32 folds the 16-element groups of s after the first (already
// in acc) into acc, lane by lane (acc < v ? acc : v for the minimum), and says
// whether one of them held a NaN.
func extremeLanesF32(s []float32, acc *[16]float32, isMax bool) (int, bool) {
	i := 16
	switch level {
	case useAVX512:
		a := archsimd.LoadFloat32x16(acc)
		var nan archsimd.Mask32x16
		for ; i+16 <= len(s); i += 16 {
			v := archsimd.LoadFloat32x16Slice(s[i : i+16])
			nan = nan.Or(v.IsNaN())
			if isMax {
				a = a.Max(v)
			} else {
				a = a.Min(v)
			}
		}
		a.Store(acc)
		return i, nan.ToBits() != 0
	case useAVX2:
		lo := archsimd.LoadFloat32x8Slice(acc[0:8])
		hi := archsimd.LoadFloat32x8Slice(acc[8:16])
		var nan archsimd.Mask32x8
		for ; i+16 <= len(s); i += 16 {
			v := archsimd.LoadFloat32x8Slice(s[i : i+8])
			w := archsimd.LoadFloat32x8Slice(s[i+8 : i+16])
			nan = nan.Or(v.IsNaN()).Or(w.IsNaN())
			if isMax {
				lo, hi = lo.Max(v), hi.Max(w)
			} else {
				lo, hi = lo.Min(v), hi.Min(w)
			}
		}
		lo.StoreSlice(acc[0:8])
		hi.StoreSlice(acc[8:16])
		return i, nan.ToBits() != 0
	}
	return i, false
}

// extremeLanesF64 is extremeLanesF32 for float64.
func extremeLanesF64(s []float64, acc *[16]float64, isMax bool) (int, bool) {
	i := 16
	switch level {
	case useAVX512:
		lo := archsimd.LoadFloat64x8Slice(acc[0:8])
		hi := archsimd.LoadFloat64x8Slice(acc[8:16])
		var nan archsimd.Mask64x8
		for ; i+16 <= len(s); i += 16 {
			v := archsimd.LoadFloat64x8Slice(s[i : i+8])
			w := archsimd.LoadFloat64x8Slice(s[i+8 : i+16])
			nan = nan.Or(v.IsNaN()).Or(w.IsNaN())
			if isMax {
				lo, hi = lo.Max(v), hi.Max(w)
			} else {
				lo, hi = lo.Min(v), hi.Min(w)
			}
		}
		lo.StoreSlice(acc[0:8])
		hi.StoreSlice(acc[8:16])
		return i, nan.ToBits() != 0
	case useAVX2:
		var a [4]archsimd.Float64x4
		for k := range a {
			a[k] = archsimd.LoadFloat64x4Slice(acc[4*k : 4*k+4])
		}
		var nan archsimd.Mask64x4
		for ; i+16 <= len(s); i += 16 {
			for k := range a {
				v := archsimd.LoadFloat64x4Slice(s[i+4*k : i+4*k+4])
				nan = nan.Or(v.IsNaN())
				if isMax {
					a[k] = a[k].Max(v)
				} else {
					a[k] = a[k].Min(v)
				}
			}
		}
		for k := range a {
			a[k].StoreSlice(acc[4*k : 4*k+4])
		}
		return i, nan.ToBits() != 0
	}
	return i, false
}

// castU8F32 converts the whole 16-byte groups of src (as long as dst) to
// float32 (exact).
func castU8F32(dst []float32, src []uint8) int {
	i := 0
	switch level {
	case useAVX512:
		for ; i+16 <= len(dst); i += 16 {
			v := archsimd.LoadUint8x16Slice(src[i : i+16]).ExtendToUint32().AsInt32x16()
			v.ConvertToFloat32().StoreSlice(dst[i : i+16])
		}
	case useAVX2:
		for ; i+16 <= len(dst); i += 8 { // 16 bytes loaded, the low 8 converted
			v := archsimd.LoadUint8x16Slice(src[i : i+16]).ExtendLo8ToUint32().AsInt32x8()
			v.ConvertToFloat32().StoreSlice(dst[i : i+8])
		}
	}
	return i
}

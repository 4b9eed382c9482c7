package vec

// The fused walks: an operation over views that runs a strided line in one
// pass where it has a kernel for it, rather than Map's gather, operation and
// scatter through a buffer (three passes in place). Kernels exist at step 2
// ([:, ::2], interleaved complex) for float32 and float64 (kernels_simd_gen.go's
// {op}{T}InStep2 and {op}{T}FromStep2, generated): in place, and from a step-2
// source into a contiguous dst. Every other line, and a line's last elements
// past the kernel's whole vectors, take Map's way with the slice operation, so
// each element's rule stays the one in elementwise.go and the bits are Map's.

// ClipView sets dst = Clip(src, lo, hi) over views of one shape, as
// Map(dst, src, func(d, s []T) error { return Clip(d, s, lo, hi) }) does
// (dst may be src itself: in place), a float32 or float64 line at step 2 in
// one pass. A NaN bound is an error.
func ClipView[T Number](dst, src View[T], lo, hi T) error {
	if lo != lo || hi != hi {
		return errNaNBound
	}
	return mapLinesShort(&dst, &src, func(d, s []T) error { return Clip(d, s, lo, hi) },
		func(d []T, dOff int, s []T, sOff, n int, inPlace bool) int {
			if inPlace {
				return clipInStep2Kernel(d, dOff, n, lo, hi)
			}
			return clipFromStep2Kernel(d[dOff:dOff+n], s, sOff, lo, hi)
		},
		func(d []T, dOff, dStep int, s []T, sOff, sStep, n int) {
			clipLine(d, dOff, dStep, s, sOff, sStep, n, lo, hi)
		},
		func(data []T, off, rows, n, next int) int {
			return clipInStep2RowsKernel(data, off, rows, n, next, lo, hi)
		})
}

// clipLine is Clip of the n elements of s from sOff, sStep apart, into d's from
// dOff, dStep apart, element by element (a short strided line's loop).
func clipLine[T Number](d []T, dOff, dStep int, s []T, sOff, sStep, n int, lo, hi T) {
	for i := range n {
		d[dOff+i*dStep] = clip(s[sOff+i*sStep], lo, hi)
	}
}

// clipStep2Line clips the line of n elements of data at off, off+2, ... in
// place: its whole vectors by the step-2 kernel, the rest (up to 8 float32s or 4
// float64s) by one masked vector where AVX-512 has one, else by clipLine.
func clipStep2Line[T Number](data []T, off, n int, lo, hi T) {
	done := clipInStep2Kernel(data, off, n, lo, hi)
	at := off + 2*done
	if done < n && clipInStep2RowsKernel(data, at, 1, n-done, 0, lo, hi) == 0 {
		clipLine(data, at, 2, data, at, 2, n-done, lo, hi)
	}
}

// ScaleShiftView sets dst = ScaleShift(src, k, c) (src*k + c, fused) over
// views of one shape, as Map with ScaleShift does (dst may be src itself), a
// line at step 2 in one pass.
func ScaleShiftView[T Float](dst, src View[T], k, c T) error {
	return mapLinesShort(&dst, &src, func(d, s []T) error { return ScaleShift(d, s, k, c) },
		func(d []T, dOff int, s []T, sOff, n int, inPlace bool) int {
			if inPlace {
				return scaleShiftInStep2Kernel(d, dOff, n, k, c)
			}
			return scaleShiftFromStep2Kernel(d[dOff:dOff+n], s, sOff, k, c)
		},
		func(d []T, dOff, dStep int, s []T, sOff, sStep, n int) {
			for i := range n {
				d[dOff+i*dStep] = fma(s[sOff+i*sStep], k, c)
			}
		},
		func(data []T, off, rows, n, next int) int {
			return scaleShiftInStep2RowsKernel(data, off, rows, n, next, k, c)
		})
}

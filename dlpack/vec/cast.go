package vec

import "github.com/godlpack/godlpack/dlpack"

// Cast sets dst[i] = src[i] converted to dst's type, as NumPy's astype: a float
// to an integer truncates toward zero (a NaN or out-of-range value gives an
// unspecified integer, as C's cast that NumPy uses); an integer to a narrower
// one wraps around; to a float rounds to nearest, ties to even, once (float32
// sources go to bfloat16/float16 directly, other numbers through float64,
// which holds every integer up to 2**53 exactly); bfloat16 and float16 widen
// exactly. uint8 to float32 (images) runs a SIMD kernel.
func Cast[D, S Castable](dst []D, src []S) error {
	if err := sameLen(len(dst), len(src)); err != nil {
		return err
	}
	src = src[:len(dst)]
	if d, ok := any(dst).([]float32); ok {
		if s, ok := any(src).([]uint8); ok {
			for i := castU8F32(d, s); i < len(d); i++ {
				d[i] = float32(s[i])
			}
			return nil
		}
	}
	switch s := any(src).(type) {
	case []dlpack.BFloat16:
		return castThroughFloat32(dst, s, dlpack.BFloat16.Float32)
	case []dlpack.Float16:
		return castThroughFloat32(dst, s, dlpack.Float16.Float32)
	}
	switch d := any(dst).(type) {
	case []dlpack.BFloat16:
		encode(d, src)
	case []dlpack.Float16:
		encode(d, src)
	default:
		for i, v := range src {
			dst[i] = D(v)
		}
	}
	return nil
}

// castThroughFloat32 widens the 16-bit floats src to float32 (exact) a chunk at
// a time and casts those into dst.
func castThroughFloat32[D Castable, S dlpack.BFloat16 | dlpack.Float16](dst []D, src []S, widen func(S) float32) error {
	var buf [256]float32
	for lo := 0; lo < len(src); lo += len(buf) {
		chunk := buf[:min(len(buf), len(src)-lo)]
		for i := range chunk {
			chunk[i] = widen(src[lo+i])
		}
		if err := Cast(dst[lo:lo+len(chunk)], chunk); err != nil {
			return err
		}
	}
	return nil
}

// encode rounds the numbers src to the 16-bit float F once: from float32
// directly, from anything else through float64.
func encode[F dlpack.BFloat16 | dlpack.Float16, S Castable](dst []F, src []S) {
	if s, ok := any(src).([]float32); ok {
		for i, v := range s {
			dst[i] = dlpack.FromFloat32[F](v)
		}
		return
	}
	for i, v := range src {
		dst[i] = dlpack.FromFloat64[F](float64(v))
	}
}

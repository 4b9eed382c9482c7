// Package vec is the element-wise and reduction loops of a Go extension: what
// NumPy's inner loops and gonum's floats package give, over typed slices and
// over strided views of DLPack tensors (View: any strides, negative and zero
// too), so that a Go function over a tensor runs at the speed of the same
// loop compiled by a C++ compiler with -O3 -march=native.
//
// Go does not vectorize loops: the float32 and float64 operations, and Add,
// Sub, Mul, Minimum, Maximum, AddScalar, Scale and Clip and the reductions
// SumInt, Min and Max of every integer type (but no 8-bit multiply, and 64-bit
// Mul, Minimum, Maximum, Scale, Clip, Min and Max on AVX-512 only: x86 has no
// such instruction below it), run simd/archsimd
// kernels (AVX-512 where the CPU has it, else AVX2 with FMA, chosen at run
// time; Kernels names the set) in a build with GOEXPERIMENT=simd on amd64,
// which godlpack's extension builds ask for by default; portable Go loops
// otherwise, and for the elements past the last whole vector. The experiment's
// API changes between Go releases: the kernels build with Go 1.26 and 1.27
// (archsimd_go126_gen.go, archsimd_go127_gen.go), and a newer release with
// GOEXPERIMENT=simd is a compile error naming this until its API is added
// (tools/gen_vec_kernels.py). Every kernel set
// gives the same bits, by these rules:
//
//   - Element-wise operations are one IEEE operation each, rounded to nearest
//     even: a*k, a+k, a/k, a+b, a-b, a*b, a/b, sqrt (correctly rounded);
//     ScaleShift and MulAdd are fused (a*b+c rounded once, as C's fma; NumPy's
//     a*k+c rounds twice, so they may differ from it in the last bit).
//   - NaN: every operation with a NaN operand gives NaN (Minimum, Maximum, Clip
//     and the Min and Max reductions too, as NumPy's minimum, maximum, clip,
//     min and max). The NaN's payload is not specified.
//   - Signed zeros: Minimum(a, b) is a < b ? a : b and Maximum a > b ? a : b,
//     so of two equal zeros they give b, as x86's MINPS and MAXPS; Clip is
//     Minimum(Maximum(a, lo), hi); Abs clears the sign bit (Abs(-0) = +0).
//     NumPy makes no promise between -0 and +0, and neither does a comparison.
//   - Integers wrap around (two's complement), as in NumPy and C; integer
//     division by zero is an error. SumInt sums in 64 bits modulo 2**64, as
//     NumPy's sum does (int8..int64 in int64, uint8..uint64 in uint64: the
//     same bits), so its lane order does not change the result.
//   - Dot, Norm2 and the float64 Sum run in float64 (a float32 is widened
//     exactly), in 16 lanes (lane j takes elements j, j+16, ... of a
//     256-element block, in order), the lanes added in a balanced tree and the
//     blocks pairwise: the error bound is about (16 + 4 + log2(n/256)) ulps of
//     float64 times the sum of the magnitudes, no worse than NumPy's pairwise
//     sum (blocks of 128 in 8 lanes). The float32 Sum (and SumView,
//     SumParallel) adds in 64 float32 lanes, 4 elements a lane a 256-element
//     block, each block's lanes into its 1024-element unit's, and each unit's
//     lanes, widened exactly, in 16 float64 lanes, the leaves of 16384
//     pairwise: PyTorch's speed (the widening of every element bounds a
//     float64 loop at half of it), an error of at most about 6 float32 ulps
//     of the sum of the magnitudes (plus ~70 float64 ones; NumPy's float32
//     sum: 16 + log2(n/128) float32 ulps). A leaf whose float32 lanes
//     overflow is summed again in float64 lanes. The order does not depend on
//     the kernel set, so neither do the bits.
//   - Exp and Log are one algorithm (explog.go) in Go and in the kernels, step
//     for step (range reduction, a Taylor polynomial by fused steps, exponent
//     bits), so every set gives the same bits; measured against the exact
//     value over 20000 random inputs and the edges, they are within 0.86
//     (exp) and 0.64 (log) ulp in float32 and 1 ulp in float64, and within 2
//     ulps (float32) and 1 (float64) of NumPy's, whose float32 ones are 1.8
//     ulps from exact. Specials as NumPy: exp(-Inf) = +0, exp(+Inf) = +Inf,
//     overflow +Inf, results below the smallest normal subnormal (gradual
//     underflow, one rounding of the approximation) down to +0; log(±0) =
//     -Inf, log of a negative (-Inf too) NaN, log(+Inf) = +Inf, log(1) = +0,
//     a subnormal's log exact in its exponent; NaN gives NaN. Speed (4096
//     elements in cache, ns an element, an AMD EPYC with AVX-512 shared by
//     other work; math's loop 8.5-10): float32 exp 0.5 (AVX2) and 1.3
//     (AVX-512: slower than AVX2 on this CPU, whose 512-bit operations are
//     two 256-bit halves and whose Go kernel spills), float64 exp 1.6 and
//     3.3, float32 log 1.0 and 0.8, float64 log 2.8 and 1.7; on an Intel Xeon
//     with AVX-512: float32 exp 0.68 and 0.44, log 1.4 and 0.83, float64 exp
//     2.0 and 1.3, log 3.8 and 2.0 (each 13-17x faster for log, and exp's
//     float64 ~1.3x, since no SSE instruction runs while the upper halves
//     are in use: sse_transition_test.go). The portable Go
//     loop pays for the float32 FMA's exact rounding: 36-41 (float32) and
//     10-13 (float64), so a build without SIMD is slower than math's loop.
//
// Shapes and strides are int64 at the API, as DLPack's extents and strides
// are (and dlpack/tensor's and godlpack.Tensor's): NewView's and ViewOf's
// shapes and strides, FromPointer's, Shape and Strides, and Slab's indexes
// along the first dimension. What indexes or measures a Go slice is int, as
// Go's own len is: NewView's offset, Len, the index Lines gives a line,
// Parallel's ranges; and so are dimension numbers (Permute's axes, as Dim's i).
//
// Operations on slices take the destination first (dst = a op b), every
// operand as long as dst; dst may be a source itself (in place), never a
// partial overlap of one. They return an error, never panic, for operands
// that do not match. With AVX-512, a long dst that does not start on a 64-byte
// line gets its first and last vectors unaligned and every one between on a
// whole line (a NumPy array starts 16 bytes into one). Map, Map2 and Lines
// walk views: contiguous runs reach the operation as they are, other lines
// through a small buffer gathered and scattered by typed loops (SIMD permutes
// at step 2 for 4- and 8-byte elements, whose scatter writes the line's
// elements only), a buffer the walk takes from
// a pool and gives back when it returns: op may not keep the slices it is
// given. ClipView and ScaleShiftView are Map with Clip and ScaleShift that run
// a float32 or float64 line at step 2 in one pass instead (in place: the op on
// whole vectors, stores of the line's lanes only; into a contiguous dst:
// two loads permuted into one), the same bits, and in place rows of lines too
// short for a vector four at a time, one masked vector each (AVX-512).
// ClipTensor clips a tensor in place with no View where it is 1- or 2-d with
// contiguous or step-2 rows (a View's 128 bytes, copied, cost a 4x4 tensor
// more than its clip), through ClipView otherwise. CastScaleShift and
// CastScaleShiftView are Cast and then ScaleShift in one pass (dst =
// D(src)*k + c, the fma rounded once: an image's uint8 pixels to normalized
// float32): a source whose elements are evenly spaced (an HxWxC image's channel
// is one line at step C) is read with no walk, a uint8 to float32 line of up
// to 64 elements (or any at step 1) in SIMD vectors (the last one stored
// through a stack copy), other lines in blocks converted and then fma'd in
// the cache. CastScaleShiftPlanes gives each plane of the first dimension its
// own k and c (an image's per-channel normalize) in one call, its planes
// passed as lines where they are even, no sub-view made. Parallel splits a
// large walk over goroutines.
//
// Walk order. A walk goes through memory in order, whatever the order of the
// view's axes (internal/walkplan, the rule of NumPy's iterator and PyTorch's
// TensorIterator): Map, Map2, ClipView, ScaleShiftView and CastScaleShiftView
// sort the axes by dst's strides, largest outermost, walk an axis where dst's
// stride is negative backwards, and merge neighbouring axes that every operand
// lays out as one; SumView sorts by its view's. So a transposed, permuted or
// reversed C-contiguous tensor operated on in place, or into a dst of its own
// memory order (StridesLike: NumPy's order="K", the layout NumPy and PyTorch
// give an element-wise result), is one contiguous run: the same time as the
// C-contiguous tensor. What costs more: a source whose memory order is not
// dst's (a transposed source into a C-contiguous dst: its lines are gathered a
// tile of 64 lines at a time, reading the memory in order, 3-5x the
// contiguous time at 4096x2048 float32; CastScaleShiftView converts each
// tile's lines while in cache), a strided line (gathered through a buffer, or
// one fused pass at step 2), and a reversed line of a source whose dst runs
// forwards (gathered a vector at a time, its elements permuted end to end:
// about the contiguous time). Lines keeps C order (its lines are whole and
// numbered), gathering a transposed matrix's rows a tile at a time. Where the
// order could change a result, the walk keeps C order: a dst that overlaps a
// source without being it, and a dst whose indexes reach one element more than
// once.
//
// Long runs. An element-wise kernel over a run of 1 MiB or more, in place or
// into memory apart from its sources, walks it as four quarters at once: the
// hardware prefetcher stops at each 4 KiB page, and four streams keep four
// lines coming. A 32 MiB in-place Scale of a Go slice (4 KiB pages) took ~12%
// less time; over NumPy's arrays (2 MiB pages, NumPy's advice) one stream
// already reaches the cache's bandwidth, and four are no faster.
package vec

//go:generate python3 ../../tools/gen_vec_kernels.py
//go:generate python3 ../../tools/gen_vec_golden.py

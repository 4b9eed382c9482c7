package vec

import "math"

// The reductions. Every one runs in lanes, lane j taking the elements j, j+L,
// j+2L, ... of its block, in order, and ends with the same tree over the lanes
// (lanes), whatever the kernel set: the AVX-512 kernels hold the lanes in
// fewer, wider vectors than the AVX2 ones, the Go loops in an array; so the
// three give the same bits.
//
// float64 sums and all dots run in 16 float64 lanes over blocks of leaf
// elements, and the blocks' sums are added pairwise (NumPy's scheme, its
// blocks 128 elements in 8 lanes): the error is at most about
// (leaf/16 + 4 + log2(n/leaf)) float64 ulps of the sum of |x|.
//
// float32 sums run in 64 float32 lanes over blocks of block32 elements (1 KiB,
// 4 elements a lane), each block's lanes added into the 64 float32 lanes of
// its unit (unit32 elements, 4 blocks), each unit's lanes widened exactly and
// folded into 16 float64 lanes (f32Lanes.fold), leaf32 elements (16 units) a leaf,
// the leaves pairwise (f32Lanes holds a leaf's lanes): float32 additions are
// the speed of PyTorch's float32 sum, twice or more that of widening every
// element (the conversions bound the loop), and a fold a unit, not a block,
// leaves the loads the time (a fold a block took ~20% of an in-cache sum:
// docs/performance.md). The error is at most about 6 float32 ulps (6 * 2**-24:
// an element takes at most 3 roundings in its block's lane and 3 in its
// unit's) of the sum of |x|, plus (70 + log2(n/leaf32)) float64 ulps of it
// from the rest: the float64 lanes' bound is ~1e-14 of it, NumPy's float32
// pairwise sum's (16 + log2(n/128)) float32 ulps. A leaf whose float32 lanes
// overflow (finite elements whose sum leaves float32's range) is summed again
// in float64 lanes (sum64), so the Sum of finite float32s is finite.

// leaf is the block the float64 lanes sum before the pairwise additions.
const leaf = 256

// block32 is the block of the float32 lanes, unit32 the blocks whose lanes
// are added in float32 before they are widened, leaf32 a float32 Sum's leaf.
const block32, unit32, leaf32 = 256, 4 * block32, 16 * unit32

// lanes is the sum of the 16 lanes, in a balanced tree.
func lanes(acc *[16]float64) float64 {
	var l8 [8]float64
	for i := range l8 {
		l8[i] = acc[2*i] + acc[2*i+1]
	}
	return ((l8[0] + l8[1]) + (l8[2] + l8[3])) + ((l8[4] + l8[5]) + (l8[6] + l8[7]))
}

// Sum is the sum of s in float64: float64 elements pairwise over 256-element
// blocks, each in 16 lanes; float32 ones in float32 lanes over 1 KiB blocks,
// the blocks' sums in float64 (reduce.go's top says the order and the error).
// 0 for no elements.
func Sum[T Float](s []T) float64 {
	n := sumLeafLen[T]()
	if len(s) <= n {
		if s, ok := any(s).([]float32); ok {
			return sumLeafF32(s)
		}
		return sumLeaf(s)
	}
	if s, ok := any(s).([]float32); ok && len(s) >= sideBySideFrom {
		return sumSideBySideF32(s)
	}
	h := sumHalf(len(s), n)
	return Sum(s[:h]) + Sum(s[h:])
}

// sideBySideFrom is the float32 elements (8 MiB) from which Sum reads 2 to 4
// leaves side by side (sumLeavesF32): a core reads several streams from memory
// faster than one (a 16-32 MiB sum ~1.25-1.35x faster on Zen 3, where one
// stream left vec's sum behind PyTorch's); in cache the unit-by-unit turns
// cost ~10% more than a leaf at a time.
const sideBySideFrom = 2 << 20

// sumSideBySideF32 is Sum of more than a leaf32 of float32s, the same tree,
// its nodes of up to 4 leaves summed by sumLeavesF32.
func sumSideBySideF32(s []float32) float64 {
	if len(s) <= 4*leaf32 {
		return sumLeavesF32(s)
	}
	h := sumHalf(len(s), leaf32)
	return sumSideBySideF32(s[:h]) + sumSideBySideF32(s[h:])
}

// sumLeavesF32 is Sum of 2 to 4 float32 leaves (leaf32 < len(s) <= 4*leaf32),
// the same bits: each leaf's sum, added in Sum's tree ((0+1)+(2+3), (0+1)+2 or
// 0+1). The whole leaves are summed side by side, a unit of each in turn (a
// turn of more than a unit lost the gain).
func sumLeavesF32(s []float32) float64 {
	var sums [4]float64
	whole := len(s) / leaf32
	var ls [4]f32Lanes
	done := whole > 1
	for u := 0; done && u < leaf32; u += unit32 {
		for k := range whole {
			at := k*leaf32 + u
			done = done && sumBlocksF32(s[at:at+unit32], &ls[k]) == unit32
		}
	}
	for k := range whole {
		leaf := s[k*leaf32 : (k+1)*leaf32]
		if r := lanes(&ls[k].acc); done && !math.IsInf(r, 0) && !math.IsNaN(r) {
			sums[k] = r
		} else { // no kernel, or lanes that overflowed: sumLeafF32's way
			sums[k] = sumLeafF32(leaf)
		}
	}
	n := whole
	if len(s) > whole*leaf32 {
		sums[n] = sumLeafF32(s[whole*leaf32:])
		n++
	}
	switch n {
	case 4:
		return (sums[0] + sums[1]) + (sums[2] + sums[3])
	case 3:
		return (sums[0] + sums[1]) + sums[2]
	}
	return sums[0] + sums[1]
}

// sumLeafLen is the elements Sum adds without splitting them in two.
func sumLeafLen[T Float]() int {
	if _, ok := any(*new(T)).(float32); ok {
		return leaf32
	}
	return leaf
}

// sumHalf is where Sum splits n elements (more than a leaf of leafLen): the
// first half, in whole leaves.
func sumHalf(n, leafLen int) int { return (n + 2*leafLen - 1) / (2 * leafLen) * leafLen }

func sumLeaf[T Float](s []T) float64 {
	var acc [16]float64
	i := 0
	switch s := any(s).(type) {
	case []float32:
		i = sumLanesF32(s, &acc)
	case []float64:
		i = sumLanesF64(s, &acc)
	}
	for ; i < len(s); i++ {
		acc[i&15] += float64(s[i])
	}
	return lanes(&acc)
}

// sumLeafF32 is the sum of a float32 leaf in float32 lanes (the kernels do the
// whole 64-element groups, the caller the rest, in the same order), or, where
// those overflow, Sum of it in float64 lanes (sum64).
func sumLeafF32(s []float32) float64 {
	var l f32Lanes
	i := sumBlocksF32(s, &l)
	for ; i < len(s); i++ {
		l.part[i&63] += s[i]
		if (i+1)%block32 == 0 {
			l.endBlock()
			if (i+1)%unit32 == 0 {
				l.fold()
			}
		}
	}
	if len(s)%block32 != 0 {
		l.endBlock()
	}
	if len(s)%unit32 != 0 {
		l.fold()
	}
	if r := lanes(&l.acc); !math.IsInf(r, 0) && !math.IsNaN(r) {
		return r
	}
	return sum64(s)
}

// f32Lanes is a float32 leaf's lanes as its Sum goes: part the block's 64
// float32 lanes, mid the unit's, acc the 16 float64 lanes. The kernels leave
// theirs in it where they stop (part a partial block's, mid a partial unit's).
type f32Lanes struct {
	acc  [16]float64
	mid  [64]float32
	part [64]float32
}

// endBlock adds the block's lanes into the unit's, lane for lane, and zeroes them.
func (l *f32Lanes) endBlock() {
	for j := range l.mid {
		l.mid[j] += l.part[j]
	}
	l.part = [64]float32{}
}

// sum64 is the float64-lane sum of s: pairwise over 256-element blocks.
func sum64(s []float32) float64 {
	if len(s) <= leaf {
		return sumLeaf(s)
	}
	h := sumHalf(len(s), leaf)
	return sum64(s[:h]) + sum64(s[h:])
}

// fold adds the unit's 64 float32 lanes, widened, into the 16 float64 ones
// (lane j takes lanes j, j+16, j+32 and j+48, in a tree) and zeroes them: the
// kernels' fold, lane for lane.
func (l *f32Lanes) fold() {
	m := &l.mid
	for j := range l.acc {
		l.acc[j] += (float64(m[j]) + float64(m[j+16])) + (float64(m[j+32]) + float64(m[j+48]))
	}
	*m = [64]float32{}
}

// Dot is the sum of a[i]*b[i] (a and b as long), in Sum's order, each product
// added with one rounding (FMA) in float64.
func Dot[T Float](a, b []T) (float64, error) {
	if err := sameLen(len(a), len(b)); err != nil {
		return 0, err
	}
	return dot(a, b[:len(a)]), nil
}

func dot[T Float](a, b []T) float64 {
	if len(a) <= leaf {
		return dotLeaf(a, b)
	}
	h := sumHalf(len(a), leaf)
	return dot(a[:h], b[:h]) + dot(a[h:], b[h:])
}

func dotLeaf[T Float](a, b []T) float64 {
	if len(a) < 16 { // no whole vector; and the kernels' vector stores of acc
		// stalled the scalar loads below (a 4-element row's norm took 3x as long)
		return dotShort(a, b[:len(a)])
	}
	var acc [16]float64
	i := 0
	switch a := any(a).(type) {
	case []float32:
		i = dotLanesF32(a, any(b).([]float32), &acc)
	case []float64:
		i = dotLanesF64(a, any(b).([]float64), &acc)
	}
	for ; i < len(a); i++ {
		acc[i&15] = math.FMA(float64(a[i]), float64(b[i]), acc[i&15])
	}
	return lanes(&acc)
}

// dotShort is dotLeaf of fewer than 16 elements, with no accumulator array:
// the products in lanes' tree, the absent lanes left out. dotLeaf's lanes each
// hold one product, fma(a, b, +0); here a*b + 0, the same bits (one rounding,
// and +0 added turns a -0 into +0 as the fma does; a float32 product is exact
// in float64). A lane left out held +0, and x + +0 is x for every sum the tree
// holds (none is -0: in round-to-nearest only -0 + -0 is), so the bits are
// dotLeaf's (TestDotShortIsTheLanesTree). The array's stores and its fifteen
// additions cost a 4-element row's Norm2 ~26 ns; this ~15.
func dotShort[T Float](a, b []T) float64 {
	switch {
	case len(a) == 0:
		return 0
	case len(a) <= 8:
		return dotOctet(a, b, 0)
	}
	return dotOctet(a, b, 0) + dotOctet(a, b, 8)
}

// dotOctet, dotQuad, dotPair and dotProduct are the tree's sums over the lanes
// from i (i < len(a)): 8, 4, 2 and 1 of them, those past len(a) left out.
func dotOctet[T Float](a, b []T, i int) float64 {
	if i+4 < len(a) {
		return dotQuad(a, b, i) + dotQuad(a, b, i+4)
	}
	return dotQuad(a, b, i)
}

func dotQuad[T Float](a, b []T, i int) float64 {
	if i+2 < len(a) {
		return dotPair(a, b, i) + dotPair(a, b, i+2)
	}
	return dotPair(a, b, i)
}

func dotPair[T Float](a, b []T, i int) float64 {
	if i+1 < len(a) {
		return dotProduct(a, b, i) + dotProduct(a, b, i+1)
	}
	return dotProduct(a, b, i)
}

func dotProduct[T Float](a, b []T, i int) float64 { return float64(a[i])*float64(b[i]) + 0 }

// Norm2 is the L2 norm of s, sqrt(Dot(s, s)), as NumPy's linalg.norm: no
// rescaling, so float64 squares past 1e154 overflow to +Inf (float32 ones,
// squared in float64, do not).
func Norm2[T Float](s []T) float64 { return sqrt(dot(s, s)) }

// SumInt is the sum of integers s in int64, wrapping around modulo 2**64 as
// NumPy's sum does: NumPy sums int8..int64 arrays in int64 and uint8..uint64
// ones in uint64, whose bits these are (int64(uint64 sum)). Modular addition
// is associative, so the SIMD kernels' lane order gives the same bits.
func SumInt[T Integer](s []T) int64 {
	var acc [4]int64
	sum, n := sumIntKernel(s) // its whole vectors: the rest below
	acc[0], s = sum, s[n:]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		c := s[i : i+4 : i+4]
		acc[0] += int64(c[0])
		acc[1] += int64(c[1])
		acc[2] += int64(c[2])
		acc[3] += int64(c[3])
	}
	for ; i < len(s); i++ {
		acc[0] += int64(s[i])
	}
	return acc[0] + acc[1] + acc[2] + acc[3]
}

// Min is the smallest element of s: NaN if any is NaN (as NumPy's min); of
// equal zeros, the sign is that of one of them, the same for every kernel set.
// No elements is an error.
func Min[T Number](s []T) (T, error) { return extreme(s, false) }

// Max is the largest element of s, by Min's rules.
func Max[T Number](s []T) (T, error) { return extreme(s, true) }

func extreme[T Number](s []T, isMax bool) (T, error) {
	var zero T
	if len(s) == 0 {
		return zero, errEmpty
	}
	for _, v := range s[:min(len(s), 16)] {
		if v != v {
			return T(math.NaN()), nil
		}
	}
	if r, n := extremeIntKernel(s, isMax); n == len(s) && n > 0 { // integers: exact, any order
		return r, nil
	} else if n > 0 {
		return step(r, fold(s[n:], isMax), isMax), nil
	}
	if len(s) < 16 {
		return fold(s, isMax), nil
	}
	// 16 lanes, started with the first 16 elements
	var acc [16]T
	copy(acc[:], s)
	i, nan := 16, false
	switch s := any(s).(type) {
	case []float32:
		i, nan = extremeLanesF32(s, any(&acc).(*[16]float32), isMax)
	case []float64:
		i, nan = extremeLanesF64(s, any(&acc).(*[16]float64), isMax)
	}
	for ; i < len(s) && !nan; i++ {
		v := s[i]
		nan = v != v
		acc[i&15] = step(acc[i&15], v, isMax)
	}
	if nan {
		return T(math.NaN()), nil
	}
	var l8 [8]T
	for j := range l8 {
		l8[j] = step(acc[2*j], acc[2*j+1], isMax)
	}
	return step(step(step(l8[0], l8[1], isMax), step(l8[2], l8[3], isMax), isMax),
		step(step(l8[4], l8[5], isMax), step(l8[6], l8[7], isMax), isMax), isMax), nil
}

// fold is the extreme of s (at least one element) by step, in order.
func fold[T Number](s []T, isMax bool) T {
	r := s[0]
	for _, v := range s[1:] {
		r = step(r, v, isMax)
	}
	return r
}

// step is one step of Min (acc < v ? acc : v, x86's MINPS) or Max.
func step[T Number](acc, v T, isMax bool) T {
	if isMax {
		if acc > v {
			return acc
		}
		return v
	}
	if acc < v {
		return acc
	}
	return v
}

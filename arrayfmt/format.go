// Package arrayfmt renders an array the way NumPy 2.x renders repr(ndarray)
// under its default print options (precision=8, floatmode='maxprec',
// threshold=1000, edgeitems=3, linewidth=75, sign='-', legacy=False).
//
// The layout code is a transcription of numpy/_core/arrayprint.py
// (_formatArray, _extendLine, _array_repr_implementation) and the element
// formatters follow its BoolFormat, IntegerFormat, FloatingFormat and
// ComplexFloatingFormat. NumPy's Dragon4 digit generation is reproduced on top
// of strconv's shortest and correctly rounded conversions (see float.go).
//
// The ml_dtypes types (bfloat16 and the float8, float6 and float4 formats) are
// not NumPy floating types, so NumPy prints each element with the scalar's own
// repr, without alignment; ml_dtypes' scalar repr is C++ ostream's default
// formatting of the value as a float ("%g", 6 significant digits, NaN without
// a sign). Repr reproduces that too.
package arrayfmt

import (
	"math"
	"strconv"
	"strings"

	"github.com/godlpack/godlpack/dlpack"
)

// NumPy's default print options.
const (
	lineWidth = 75
	threshold = 1000
	edgeItems = 3
	precision = 8
	summary   = "..."
	separator = ", "
)

// Repr returns NumPy's repr of the array with the class name "array" replaced
// by prefix, e.g. Repr("Array", float32, [2 2], ...) is
// "Array([[1., 2.],\n       [3., 4.]], dtype=float32)". Continuation lines are
// indented by len(prefix)+2 spaces (to align under the first "[" after
// prefix+"("), exactly as NumPy indents them by len("array(")+1.
//
// get(flat) returns element number flat in C order (0 <= flat < the product
// of shape). Only the elements that appear in the output are read: every one
// when the array has at most 1000 elements, otherwise the leading and trailing
// three items of each summarized axis.
func Repr(prefix string, dt *dlpack.DType, shape []int64, get func(flat int64) dlpack.Scalar) string {
	open := prefix + "("
	size := int64(1)
	for _, d := range shape {
		size *= d
	}
	if len(shape) > 0 && hasZero(shape) {
		size = 0
	}

	var lst string
	if size == 0 {
		lst = "[]"
	} else {
		lst = formatArray(dt, shape, size > threshold, len(open), get)
	}

	var extras []string
	if (size == 0 && !(len(shape) == 1 && shape[0] == 0)) || size > threshold {
		extras = append(extras, "shape="+shapeRepr(shape))
	}
	if !dtypeIsImplied(dt) || size == 0 {
		extras = append(extras, "dtype="+dtypeShortRepr(dt))
	}
	if len(extras) == 0 {
		return open + lst + ")"
	}
	arrStr := open + lst + ","
	extraStr := strings.Join(extras, ", ") + ")"
	lastLineLen := len(arrStr) - (strings.LastIndexByte(arrStr, '\n') + 1)
	spacer := " "
	if lastLineLen+len(extraStr)+1 > lineWidth {
		spacer = "\n" + strings.Repeat(" ", len(open))
	}
	return arrStr + spacer + extraStr
}

// Shown returns how many elements Repr reads and prints for shape: all of them
// up to the threshold, else edgeItems at each end of every longer axis. It
// saturates at math.MaxInt64. The count, not the size, bounds Repr's memory:
// a broadcast view of 2**40 elements whose axes are all short shows every one.
func Shown(shape []int64) int64 {
	size := int64(1)
	for _, d := range shape {
		if d == 0 {
			return 0
		}
		if size > math.MaxInt64/d {
			size = math.MaxInt64
			break
		}
		size *= d
	}
	if size <= threshold {
		return size
	}
	shown := int64(1)
	for _, d := range shape {
		if d > 2*edgeItems {
			d = 2 * edgeItems
		}
		if shown > math.MaxInt64/d {
			return math.MaxInt64
		}
		shown *= d
	}
	return shown
}

func hasZero(shape []int64) bool {
	for _, d := range shape {
		if d == 0 {
			return true
		}
	}
	return false
}

// shapeRepr is Python's repr of the shape tuple: "(3,)", "(0, 3)".
func shapeRepr(shape []int64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// dtypeIsImplied: NumPy leaves out ", dtype=..." for the types its literal
// syntax produces by default (_typelessdata: int64, float64, complex128, bool
// on LP64 platforms).
func dtypeIsImplied(dt *dlpack.DType) bool {
	switch dt.Name {
	case "int64", "float64", "complex128", "bool":
		return true
	}
	return false
}

// dtypeShortRepr quotes names that are not Python identifiers-without-
// underscores, as numpy's dtype_short_repr does: dtype='float8_e4m3fn'.
func dtypeShortRepr(dt *dlpack.DType) string {
	n := dt.Name
	ok := n != "" && isAlpha(n[0])
	for i := 0; ok && i < len(n); i++ {
		ok = isAlpha(n[i]) || (n[i] >= '0' && n[i] <= '9')
	}
	if ok {
		return n
	}
	return "'" + n + "'"
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// formatArray is numpy's _array2string + _formatArray for a non-empty array.
func formatArray(dt *dlpack.DType, shape []int64, summarize bool, openLen int, get func(int64) dlpack.Scalar) string {
	// The displayed indices of each axis: all of them, or the leading and
	// trailing edgeItems when the axis is summarized (numpy's
	// _leading_trailing and show_summary use the same test).
	idx := make([][]int64, len(shape))
	for ax, n := range shape {
		if summarize && n > 2*edgeItems {
			for i := int64(0); i < edgeItems; i++ {
				idx[ax] = append(idx[ax], i)
			}
			for i := n - edgeItems; i < n; i++ {
				idx[ax] = append(idx[ax], i)
			}
		} else {
			for i := int64(0); i < n; i++ {
				idx[ax] = append(idx[ax], i)
			}
		}
	}
	strides := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		s *= shape[i]
	}

	// Gather the displayed elements in C order; the formatter is fitted to
	// exactly these, like numpy fits it to the summarized data.
	var vals []dlpack.Scalar
	var walk func(ax int, off int64)
	walk = func(ax int, off int64) {
		if ax == len(shape) {
			vals = append(vals, get(off))
			return
		}
		for _, i := range idx[ax] {
			walk(ax+1, off+i*strides[ax])
		}
	}
	walk(0, 0)

	words := newFormatter(dt, vals, len(shape) == 0)

	next := 0
	nextWord := func() string {
		w := words[next]
		next++
		return w
	}
	var recurse func(ax int, hanging string, width int) string
	recurse = func(ax int, hanging string, width int) string {
		axesLeft := len(shape) - ax
		if axesLeft == 0 {
			return nextWord()
		}
		nextHanging := hanging + " "
		nextWidth := width - 1 // len("]")
		n := len(idx[ax])
		showSummary := int64(n) < shape[ax]
		leading, trailing := 0, n
		if showSummary {
			leading, trailing = edgeItems, edgeItems
		}
		var b strings.Builder
		if axesLeft == 1 {
			elemWidth := width - 1 // max(len(separator.rstrip()), len("]"))
			line := hanging
			for i := 0; i < leading; i++ {
				line = extendLine(&b, line, recurse(ax+1, nextHanging, nextWidth), elemWidth, hanging)
				line += separator
			}
			if showSummary {
				line = extendLine(&b, line, summary, elemWidth, hanging)
				line += separator
			}
			for i := trailing; i > 1; i-- {
				line = extendLine(&b, line, recurse(ax+1, nextHanging, nextWidth), elemWidth, hanging)
				line += separator
			}
			line = extendLine(&b, line, recurse(ax+1, nextHanging, nextWidth), elemWidth, hanging)
			b.WriteString(line)
		} else {
			lineSep := "," + strings.Repeat("\n", axesLeft-1)
			for i := 0; i < leading; i++ {
				b.WriteString(hanging + recurse(ax+1, nextHanging, nextWidth) + lineSep)
			}
			if showSummary {
				b.WriteString(hanging + summary + lineSep)
			}
			for i := trailing; i > 1; i-- {
				b.WriteString(hanging + recurse(ax+1, nextHanging, nextWidth) + lineSep)
			}
			b.WriteString(hanging + recurse(ax+1, nextHanging, nextWidth))
		}
		return "[" + b.String()[len(hanging):] + "]"
	}
	// skip over "[" and over prefix+"("
	return recurse(0, strings.Repeat(" ", openLen+1), lineWidth-len(")"))
}

// extendLine is numpy's _extendLine (legacy=False): words never span lines
// here, so _extendLine_pretty reduces to it.
func extendLine(b *strings.Builder, line, word string, width int, nextLinePrefix string) string {
	needsWrap := len(line)+len(word) > width
	if len(line) <= len(nextLinePrefix) {
		needsWrap = false // don't wrap lines if it won't help
	}
	if needsWrap {
		b.WriteString(strings.TrimRight(line, " \t\n\r\v\f"))
		b.WriteByte('\n')
		line = nextLinePrefix
	}
	return line + word
}

// newFormatter formats vals (the displayed elements in order) and returns the
// words. zeroD tells a 0-d array, where numpy drops the padding of " True".
func newFormatter(dt *dlpack.DType, vals []dlpack.Scalar, zeroD bool) []string {
	out := make([]string, len(vals))
	switch dt.Kind {
	case dlpack.KindBool:
		t := " True"
		if zeroD {
			t = "True"
		}
		for i, v := range vals {
			if v.B {
				out[i] = t
			} else {
				out[i] = "False"
			}
		}
	case dlpack.KindInt, dlpack.KindUint:
		strs := make([]string, len(vals))
		width := 0
		for i, v := range vals {
			if dt.Kind == dlpack.KindInt {
				strs[i] = strconv.FormatInt(v.I, 10)
			} else {
				strs[i] = strconv.FormatUint(v.U, 10)
			}
			// numpy takes the width of str(max) and str(min); the longest
			// string is always one of them.
			width = max(width, len(strs[i]))
		}
		for i, s := range strs {
			out[i] = padLeft(s, width)
		}
	case dlpack.KindFloat:
		bits, numpy := floatBits(dt.Name)
		if !numpy {
			for i, v := range vals {
				out[i] = mlDtypesRepr(v.F)
			}
			break
		}
		fs := make([]float64, len(vals))
		for i, v := range vals {
			fs[i] = v.F
		}
		f := newFloatFormat(fs, bits, '-')
		for i, x := range fs {
			out[i] = f.format(x)
		}
	case dlpack.KindComplex:
		bits := 64
		if dt.Name == "complex64" {
			bits = 32
		}
		re := make([]float64, len(vals))
		im := make([]float64, len(vals))
		for i, v := range vals {
			re[i], im[i] = real(v.C), imag(v.C)
		}
		rf := newFloatFormat(re, bits, '-')
		imf := newFloatFormat(im, bits, '+')
		for i := range vals {
			is := imf.format(im[i])
			sp := len(strings.TrimRight(is, " "))
			out[i] = rf.format(re[i]) + is[:sp] + "j" + is[sp:]
		}
	default:
		for i := range vals {
			out[i] = "?"
		}
	}
	return out
}

// floatBits maps a float dtype to the IEEE width whose shortest repr NumPy
// uses, and reports false for the ml_dtypes types, which NumPy does not format
// itself.
func floatBits(name string) (bits int, numpy bool) {
	switch name {
	case "float16":
		return 16, true
	case "float32":
		return 32, true
	case "float64":
		return 64, true
	}
	return 0, false
}

func padLeft(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return strings.Repeat(" ", width-len(s)) + s
}

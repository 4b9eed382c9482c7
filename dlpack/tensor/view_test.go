package tensor_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

func TestViewErrors(t *testing.T) {
	noLeaks(t)
	tt, _ := tensor.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3)
	var de *tensor.DTypeError
	if _, err := tensor.As[float64](tt); !errors.As(err, &de) || de.Want.Name != "float64" || de.Got.Name != "float32" {
		t.Errorf("As[float64] of float32: %v", err)
	}
	if _, err := tensor.As[dlpack.BFloat16](tt); !errors.As(err, &de) {
		t.Errorf("As[BFloat16] of float32: %v", err)
	}
	v, err := tensor.As[float32](tt)
	if err != nil {
		t.Fatal(err)
	}
	var ie *tensor.IndexError
	for _, idx := range [][]int64{{2, 0}, {0, 3}, {-1, 0}, {0}, {0, 0, 0}} {
		if _, err := v.At(idx...); !errors.As(err, &ie) {
			t.Errorf("At%v: %v", idx, err)
		}
		if err := v.Set(1, idx...); !errors.As(err, &ie) {
			t.Errorf("Set%v: %v", idx, err)
		}
	}
	if x, err := v.At(1, 2); err != nil || x != 5 {
		t.Errorf("At(1, 2) = %v, %v", x, err)
	}
	if err := v.Set(7, 1, 0); err != nil {
		t.Fatal(err)
	}
	if x, _ := v.At(1, 0); x != 7 {
		t.Errorf("Set did not write: %v", x)
	}
	tt.SetReadOnly()
	if err := v.Set(8, 0, 0); !errors.Is(err, tensor.ErrReadOnly) {
		t.Errorf("Set after SetReadOnly: %v", err)
	}
	if _, err := v.Slice(); !errors.Is(err, tensor.ErrReadOnly) {
		t.Errorf("Slice after SetReadOnly: %v", err)
	}
	if s, err := v.ReadSlice(); err != nil || !slices.Equal(s, []float32{0, 1, 2, 7, 4, 5}) {
		t.Errorf("ReadSlice: %v %v", s, err)
	}
	tt.Close()
	if _, err := v.At(0, 0); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("At after Close: %v", err)
	}
	if _, err := v.ReadSlice(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("ReadSlice after Close: %v", err)
	}
	for range v.All() {
		t.Error("All yielded after Close")
	}
	if _, err := tensor.As[float32](tt); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("As after Close: %v", err)
	}
	var zero tensor.Tensor
	if zero.Close() != nil || zero.Len() != 0 || zero.DType() != nil {
		t.Error("the zero Tensor is not a closed one")
	}
	if _, err := tensor.As[int8](&zero); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("As of the zero Tensor: %v", err)
	}
}

// A READ_ONLY tensor from C refuses writes through every view, and its memory
// is unchanged.
func TestReadOnlyFromC(t *testing.T) {
	d := dlpack.DTypeOf[uint16]()
	m, _ := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Flags: dlpack.FlagReadOnly, Device: dlpack.CPU, DType: d.DL, Shape: []int64{3}, Strides: []int64{1}}, []byte{1, 0, 2, 0, 3, 0})
	tt, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	defer tt.Close()
	v, _ := tensor.As[uint16](tt)
	if !v.ReadOnly() || v.Set(9, 0) != tensor.ErrReadOnly {
		t.Error("a READ_ONLY tensor accepted a write")
	}
	if _, err := v.Slice(); err != tensor.ErrReadOnly {
		t.Errorf("Slice: %v", err)
	}
	if s, _ := v.ReadSlice(); !slices.Equal(s, []uint16{1, 2, 3}) {
		t.Errorf("memory: %v", s)
	}
	if err := byDType["uint16"].setFirst(tt, 5); err != tensor.ErrReadOnly {
		t.Errorf("setFirst: %v", err)
	}
}

// Strided and negatively strided views read in logical order and refuse []T.
func TestStridedViews(t *testing.T) {
	d := dlpack.DTypeOf[int32]()
	// Elements 0..5 stored; the tensor starts at the last one and walks backwards
	// with rows of stride -3 and columns of stride -1: logical order 5,4,3,2,1,0.
	data := []byte{}
	for i := range 6 {
		data = append(data, byte(i), 0, 0, 0)
	}
	m, _ := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: d.DL, Shape: []int64{2, 3}, Strides: []int64{-3, -1}, ByteOffset: 20}, data)
	tt, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	defer tt.Close()
	v, _ := tensor.As[int32](tt)
	var got []int32
	for i, x := range v.All() {
		if i != len(got) {
			t.Fatalf("All yielded position %d after %d elements", i, len(got))
		}
		got = append(got, x)
	}
	if !slices.Equal(got, []int32{5, 4, 3, 2, 1, 0}) {
		t.Errorf("All: %v", got)
	}
	if x, _ := v.At(1, 0); x != 2 {
		t.Errorf("At(1, 0) = %d", x)
	}
	if _, err := v.Slice(); !errors.Is(err, tensor.ErrNotContiguous) {
		t.Errorf("Slice of a strided view: %v", err)
	}
	n := 0
	for range v.All() {
		if n++; n == 2 {
			break // an early stop ends the iteration
		}
	}
	if n != 2 {
		t.Errorf("stopped after %d", n)
	}
}

// Bytes other than 0 and 1 in a C producer's bool tensor read as true, and a
// padded sub-byte tensor may be strided.
func TestForeignBoolAndPaddedSubByte(t *testing.T) {
	b := dlpack.DTypeOf[bool]()
	m, _ := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: b.DL, Shape: []int64{3}, Strides: []int64{1}}, []byte{0, 2, 255})
	tt, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tensor.As[bool](tt)
	for i, want := range []bool{false, true, true} {
		if x, _ := v.At(int64(i)); x != want {
			t.Errorf("bool byte %d read as %v", i, x)
		}
	}
	tt.Close()

	f6 := dlpack.DTypeOf[dlpack.Float6E3M2FN]()
	m, _ = ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Flags: dlpack.FlagSubbyteTypePadded, Device: dlpack.CPU, DType: f6.DL, Shape: []int64{3}, Strides: []int64{-2}, ByteOffset: 4}, []byte{0xc1, 9, 0xc2, 9, 0xc3})
	tt, err = tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	defer tt.Close()
	fv, _ := tensor.As[dlpack.Float6E3M2FN](tt)
	var got []dlpack.Float6E3M2FN
	for _, x := range fv.All() {
		got = append(got, x)
	}
	if !slices.Equal(got, []dlpack.Float6E3M2FN{3, 2, 1}) { // the padding bits are not the value's
		t.Errorf("padded fp6: %v", got)
	}
	if err := fv.Set(dlpack.FromFloat64[dlpack.Float6E3M2FN](-0.25), 2); err != nil {
		t.Fatal(err)
	}
	if x, _ := fv.At(2); x.Float64() != -0.25 {
		t.Errorf("fp6 Set/At: %v", x.Float64())
	}
}

// A zero View and a nil Tensor act as closed ones: errors, never a panic.
func TestZeroValues(t *testing.T) {
	var v tensor.View[float32]
	if _, err := v.At(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("At: %v", err)
	}
	if err := v.Set(1); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("Set: %v", err)
	}
	if _, err := v.Slice(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("Slice: %v", err)
	}
	if _, err := v.Raw(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("Raw: %v", err)
	}
	for range v.All() {
		t.Error("All yielded")
	}
	if v.Shape() != nil || v.Len() != 0 || v.ReadOnly() {
		t.Error("zero View has a shape")
	}
	var nilT *tensor.Tensor
	if nilT.Close() != nil || nilT.Shape() != nil || nilT.ReadOnly() || nilT.IsCopied() {
		t.Error("nil Tensor")
	}
	nilT.SetReadOnly()
	if _, err := nilT.Export(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("Export of nil: %v", err)
	}
	if _, err := nilT.Clone(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("Clone of nil: %v", err)
	}
	if _, err := tensor.As[int8](nilT); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("As of nil: %v", err)
	}
}

var globalData = [4]float64{1, 2, 3, 4}

// Slices of memory the collector does not move or free (a global array, another
// tensor's C memory) can be exported too; pinning them is a no-op.
func TestFromSliceOfUnmovableMemory(t *testing.T) {
	noLeaks(t)
	g, err := tensor.FromSlice(globalData[:], 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := g.Export()
	if seen := ctensor.Consume(m, true, false); len(seen.Bytes) != 32 {
		t.Errorf("C read %d bytes", len(seen.Bytes))
	}
	c, _ := tensor.New[float64](4)
	cv, _ := tensor.As[float64](c)
	cs, _ := cv.Slice()
	alias, err := tensor.FromSlice(cs)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = alias.Export()
	ctensor.Consume(m, true, false)
	c.Close()
}

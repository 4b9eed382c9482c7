package tensor_test

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// Tensors Go produces, in C memory and from pinned slices, of every dtype and in
// both forms, reach a C consumer with the right struct and bytes; the C
// consumer's deleter call releases them (blocks and pins back to zero).
func TestProduceEveryDTypeToC(t *testing.T) {
	noLeaks(t)
	shape := []int64{2, 3}
	for _, d := range dlpack.All() {
		ty := byDType[d.Name]
		for _, pinned := range []bool{false, true} {
			for _, legacy := range []bool{false, true} {
				if legacy && d.SubByte() {
					continue // refused: see TestExportLegacyRefusals
				}
				data := pattern(d, 6, byte(d.Index))
				produce := ty.newC
				if pinned {
					produce = ty.fromSlice
				}
				tt, err := produce(data, shape...)
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				var seen ctensor.Seen
				if legacy {
					m, err := tt.ExportLegacy()
					if err != nil {
						t.Fatalf("%s: %v", d, err)
					}
					seen = ctensor.Consume(m, false, false)
				} else {
					m, err := tt.Export()
					if err != nil {
						t.Fatalf("%s: %v", d, err)
					}
					seen = ctensor.Consume(m, true, false)
					wantFlags := uint64(0)
					if d.SubByte() {
						wantFlags = dlpack.FlagSubbyteTypePadded
					}
					if seen.Version != v13 || seen.Flags != wantFlags {
						t.Errorf("%s: version %v flags %#x, want 1.3 and %#x", d, seen.Version, seen.Flags, wantFlags)
					}
				}
				if seen.DType != d.DL || seen.Device != dlpack.CPU || !slices.Equal(seen.Shape, shape) || !slices.Equal(seen.Strides, []int64{3, 1}) {
					t.Errorf("%s: C saw dtype %v device %v shape %v strides %v", d, seen.DType, seen.Device, seen.Shape, seen.Strides)
				}
				if !pinned && seen.DataAlign != 0 {
					t.Errorf("%s: C memory data is %d bytes past a 256-byte boundary", d, seen.DataAlign)
				}
				if !bytes.Equal(seen.Bytes, data) {
					t.Errorf("%s pinned=%v legacy=%v: C read %x, want %x", d, pinned, legacy, seen.Bytes, data)
				}
				if _, err := tt.Export(); !errors.Is(err, tensor.ErrClosed) {
					t.Errorf("%s: a second export: %v", d, err)
				}
			}
		}
	}
	if tensor.LiveBlocks() != 0 || tensor.LivePins() != 0 {
		t.Errorf("after every deleter ran: %d blocks, %d pins live", tensor.LiveBlocks(), tensor.LivePins())
	}
}

// A pinned slice's deleter may run on a thread Go did not create.
func TestPinnedDeleterOnForeignThread(t *testing.T) {
	noLeaks(t)
	for _, legacy := range []bool{false, true} {
		tt, err := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		export := tt.Export
		if legacy {
			export = tt.ExportLegacy
		}
		m, err := export()
		if err != nil {
			t.Fatal(err)
		}
		if tensor.LivePins() != 1 {
			t.Fatalf("%d pins live, want 1", tensor.LivePins())
		}
		if !ctensor.DeleteOnNewThread(m, !legacy) {
			t.Fatal("pthread_create failed")
		}
		if tensor.LivePins() != 0 || tensor.LiveBlocks() != 0 {
			t.Fatalf("after the foreign thread's deleter: %d pins, %d blocks", tensor.LivePins(), tensor.LiveBlocks())
		}
	}
}

// Go -> Go round trip: a produced tensor consumed back shares memory, keeps
// READ_ONLY, and is released once.
func TestRoundTripInGo(t *testing.T) {
	noLeaks(t)
	data := []int32{1, 2, 3, 4, 5, 6}
	src, err := tensor.FromSlice(data, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	src.SetReadOnly()
	m, err := src.Export()
	if err != nil {
		t.Fatal(err)
	}
	back, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	if !back.ReadOnly() || !slices.Equal(back.Shape(), []int64{3, 2}) {
		t.Errorf("read-only %v shape %v", back.ReadOnly(), back.Shape())
	}
	v, _ := tensor.As[int32](back)
	s, err := v.ReadSlice()
	if err != nil || &s[0] != &data[0] {
		t.Errorf("ReadSlice: %v, shares memory %v", err, err == nil && &s[0] == &data[0])
	}
	if err := v.Set(9, 0, 0); !errors.Is(err, tensor.ErrReadOnly) {
		t.Errorf("Set on read-only: %v", err)
	}
	// Re-exporting a consumed tensor in the other form works for our own blocks.
	if _, err := back.ExportLegacy(); err == nil {
		t.Error("legacy export of a read-only tensor succeeded")
	}
	back.Close()
}

// C -> Go -> C: a C producer's tensor re-exported from Go reaches a C consumer,
// and the producer's deleter runs once, from the consumer.
func TestForeignTensorReexported(t *testing.T) {
	f64 := dlpack.DLDataType{Code: dlpack.CodeFloat, Bits: 64, Lanes: 1}
	for _, versioned := range []bool{true, false} {
		m, id := ctensor.Produce(ctensor.Spec{Versioned: versioned, Version: v13, Flags: 0, Device: dlpack.CPU, DType: f64, Shape: []int64{2}, Strides: []int64{1}}, pattern(dlpack.DTypeOf[float64](), 2, 1))
		tt, err := consumeAny(m, versioned)
		if err != nil {
			t.Fatal(err)
		}
		if versioned {
			if _, err := tt.ExportLegacy(); err == nil {
				t.Error("a foreign versioned tensor exported as legacy")
			}
			m, err = tt.Export()
		} else {
			if _, err := tt.Export(); err == nil {
				t.Error("a foreign legacy tensor exported as versioned")
			}
			m, err = tt.ExportLegacy()
		}
		if err != nil {
			t.Fatal(err)
		}
		tt.Close() // no effect: exported
		if ctensor.DeleterCalls(id) != 0 {
			t.Fatal("deleter ran at export")
		}
		ctensor.Consume(m, versioned, false)
		if n := ctensor.DeleterCalls(id); n != 1 {
			t.Errorf("deleter ran %d times", n)
		}
	}
}

func TestExportLegacyRefusals(t *testing.T) {
	noLeaks(t)
	ro, _ := tensor.New[float32](2)
	ro.SetReadOnly()
	fp4, _ := tensor.New[dlpack.Float4E2M1FN](2)
	for name, tt := range map[string]*tensor.Tensor{"read-only": ro, "sub-byte": fp4} {
		if m, err := tt.ExportLegacy(); err == nil || m != nil {
			t.Errorf("%s: ExportLegacy succeeded", name)
		}
		if _, err := tensor.As[float32](tt); name == "read-only" && err != nil {
			t.Errorf("%s: the refusal closed the tensor: %v", name, err)
		}
		tt.Close()
	}
}

func TestProduceBadShapes(t *testing.T) {
	noLeaks(t)
	var se *tensor.ShapeError
	if _, err := tensor.New[int8](-1); !errors.As(err, &se) {
		t.Errorf("negative: %v", err)
	}
	if _, err := tensor.New[int8](make([]int64, 65)...); !errors.As(err, &se) {
		t.Errorf("65-d: %v", err)
	}
	if _, err := tensor.New[int64](1<<40, 1<<40); !errors.As(err, &se) {
		t.Errorf("overflow: %v", err)
	}
	if _, err := tensor.New[int64](1 << 61); err == nil {
		t.Errorf("2^64 bytes: allocated")
	}
	if _, err := tensor.FromSlice([]int8{1, 2, 3}, 2, 2); !errors.As(err, &se) {
		t.Errorf("length mismatch: %v", err)
	}
	// Empty slices get C memory: a non-NULL address, nothing pinned.
	tt, err := tensor.FromSlice([]float32{}, 0, 3)
	if err != nil || tensor.LivePins() != 0 {
		t.Fatalf("empty: %v, %d pins", err, tensor.LivePins())
	}
	m, _ := tt.Export()
	seen := ctensor.Consume(m, true, false)
	if !slices.Equal(seen.Shape, []int64{0, 3}) || seen.DataAlign != 0 {
		t.Errorf("empty: C saw %v", seen)
	}
}

// Clone copies a strided tensor into a contiguous one flagged IS_COPIED.
func TestCloneStrided(t *testing.T) {
	noLeaks(t)
	d := dlpack.DTypeOf[int16]()
	m, id := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Flags: dlpack.FlagReadOnly, Device: dlpack.CPU, DType: d.DL, Shape: []int64{2, 3}, Strides: []int64{1, 2}}, pattern(d, 6, 3))
	want := ctensor.Consume(m, true, true).Bytes
	src, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	c, err := src.Clone()
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
	if ctensor.DeleterCalls(id) != 1 {
		t.Fatal("the source was not released")
	}
	if !c.IsCopied() || c.ReadOnly() || !slices.Equal(c.Strides(), []int64{3, 1}) {
		t.Errorf("clone: copied %v read-only %v strides %v", c.IsCopied(), c.ReadOnly(), c.Strides())
	}
	out, _ := c.Export()
	seen := ctensor.Consume(out, true, false)
	if seen.Flags != dlpack.FlagIsCopied || !bytes.Equal(seen.Bytes, want) {
		t.Errorf("C saw flags %#x bytes %x, want IS_COPIED and %x", seen.Flags, seen.Bytes, want)
	}
}

// Clone of a packed sub-byte tensor unpacks it into the padded layout.
func TestClonePackedSubByte(t *testing.T) {
	noLeaks(t)
	fp4 := dlpack.DTypeOf[dlpack.Float4E2M1FN]()
	m, _ := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: fp4.DL, Shape: []int64{4}, Strides: []int64{1}}, []byte{0x21, 0x43})
	src, err := tensor.FromManaged(m)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sv, _ := tensor.As[dlpack.Float4E2M1FN](src)
	if _, err := sv.ReadSlice(); err == nil {
		t.Error("a []T of packed elements")
	}
	c, err := src.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, _ := tensor.As[dlpack.Float4E2M1FN](c)
	s, err := v.Slice()
	if err != nil || !slices.Equal(s, []dlpack.Float4E2M1FN{1, 2, 3, 4}) {
		t.Errorf("clone: %v %v", s, err)
	}
}

// Produced tensors that are dropped unexported are released by the finalizer:
// their C blocks freed, their slices unpinned.
func TestLeakedProducedTensorsAreReleased(t *testing.T) {
	waitFor(t, "earlier tests' tensors", func() bool { return tensor.LiveBlocks() == 0 && tensor.LivePins() == 0 })
	var held []*tensor.Tensor
	for range 10 {
		a, err := tensor.New[float32](8)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tensor.FromSlice(make([]int64, 8), 2, 4)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, a, b)
	}
	if tensor.LiveBlocks() != 20 || tensor.LivePins() != 10 {
		t.Fatalf("%d blocks, %d pins live", tensor.LiveBlocks(), tensor.LivePins())
	}
	runtime.KeepAlive(held)
	held = nil
	waitFor(t, "the finalizers", func() bool { return tensor.LiveBlocks() == 0 && tensor.LivePins() == 0 })
}

// Many goroutines produce pinned tensors at once while C threads (some Go never
// created) delete them: every pin is released once (run with -race).
func TestConcurrentPinnedExports(t *testing.T) {
	noLeaks(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			data := make([]int32, 16)
			for i := range 100 {
				tt, err := tensor.FromSlice(data, 4, 4)
				if err != nil {
					t.Error(err)
					return
				}
				m, err := tt.Export()
				if err != nil {
					t.Error(err)
					return
				}
				if (g+i)%4 == 0 {
					ctensor.DeleteOnNewThread(m, true)
				} else {
					ctensor.Delete(m, true)
				}
			}
		})
	}
	wg.Wait()
	if n := tensor.LivePins(); n != 0 {
		t.Errorf("%d pins live", n)
	}
}

// Leaked Tensors are released one by one (leaks.go): a Tensor kept open, made in
// the same list as some of them, neither keeps them alive nor is released with
// them, across full lists and the partial one a collection seals.
func TestLeakedBesideHeldTensor(t *testing.T) {
	waitFor(t, "earlier tests' tensors", func() bool { return tensor.LiveBlocks() == 0 && tensor.LivePins() == 0 })
	keep, err := tensor.FromSlice(make([]float32, 4))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 { // more than two full lists of 255
		if _, err := tensor.New[float32](4); err != nil {
			t.Fatal(err)
		}
		if i == 300 {
			keep2, err := tensor.New[int8](2)
			if err != nil {
				t.Fatal(err)
			}
			defer keep2.Close()
		}
	}
	waitFor(t, "the leaked tensors", func() bool { return tensor.LiveBlocks() == 2 })
	v, err := tensor.As[float32](keep)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Set(1.5, 3); err != nil {
		t.Fatalf("the held tensor after the sweeps: %v", err)
	}
	if tensor.LivePins() != 1 {
		t.Fatalf("%d pins live, want the held tensor's", tensor.LivePins())
	}
	keep.Close()
	if tensor.LiveBlocks() != 1 || tensor.LivePins() != 0 {
		t.Fatalf("after Close: %d blocks, %d pins", tensor.LiveBlocks(), tensor.LivePins())
	}
}

// Tensors made, closed and leaked on several goroutines while collections seal
// lists under them (leaks.go): every one is released exactly once (-race).
func TestTrackingRacesCollections(t *testing.T) {
	noLeaks(t)
	stop := collectConstantly()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				tt, err := tensor.New[int16](3)
				if err != nil {
					t.Error(err)
					return
				}
				if (g+i)%3 != 0 { // the rest are leaked
					tt.Close()
				}
			}
		})
	}
	wg.Wait()
	stop()
}

// A slice exported twice is pinned once, counted twice (pins.go): collections do
// not unpin it while either tensor lives, and unpin it after both deleters ran.
func TestSliceExportedTwiceStaysPinned(t *testing.T) {
	noLeaks(t)
	waitFor(t, "earlier tests' pins", func() bool { return tensor.PinnedObjects() == 0 })
	data := []float64{1, 2, 3, 4}
	ms := []unsafe.Pointer{exportSlice(t, data, 2, 2), exportSlice(t, data, 2, 2)}
	if tensor.PinnedObjects() != 1 || tensor.LivePins() != 2 {
		t.Fatalf("%d objects pinned, %d tensors live; want 1 and 2", tensor.PinnedObjects(), tensor.LivePins())
	}
	ctensor.Delete(ms[0], true)
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if tensor.PinnedObjects() != 1 || tensor.LivePins() != 1 {
		t.Fatalf("one tensor left: %d objects pinned, %d tensors live; want 1 and 1", tensor.PinnedObjects(), tensor.LivePins())
	}
	if got := ctensor.Consume(ms[1], true, true); got.GatherFail || len(got.Bytes) != 32 {
		t.Fatalf("the second consumer read %+v", got)
	}
	ctensor.Delete(ms[1], true)
	waitFor(t, "the sweep to unpin the slice", func() bool { return tensor.PinnedObjects() == 0 })
}

// Tensors over the rows of one array (x[i*n:(i+1)*n], each reaching to the
// array's end) pin it once (pins.go's pinKey), and a consumer reads each row's
// own elements; a row whose capacity was cut (x[a:b:b]) pins the array again.
// All are unpinned after their deleters ran.
func TestRowsOfOneArrayPinItOnce(t *testing.T) {
	noLeaks(t)
	waitFor(t, "earlier tests' pins", func() bool { return tensor.PinnedObjects() == 0 })
	const rows, n = 100, 4
	data := make([]int32, rows*n)
	for i := range data {
		data[i] = int32(i)
	}
	var ms []unsafe.Pointer
	for i := range rows {
		ms = append(ms, exportSlice(t, data[i*n:(i+1)*n], n))
	}
	if tensor.PinnedObjects() != 1 || tensor.LivePins() != rows {
		t.Fatalf("%d rows: %d objects pinned, %d tensors live; want 1 and %d", rows, tensor.PinnedObjects(), tensor.LivePins(), rows)
	}
	ms = append(ms, exportSlice(t, data[n:2*n:2*n], n))
	if tensor.PinnedObjects() != 2 {
		t.Fatalf("a row of cut capacity: %d objects pinned, want 2", tensor.PinnedObjects())
	}
	for i, m := range ms {
		got := ctensor.Consume(m, true, true)
		want := unsafe.Slice((*byte)(unsafe.Pointer(&data[(i%rows)*n+n*(i/rows)])), 4*n)
		if got.GatherFail || !bytes.Equal(got.Bytes, want) {
			t.Fatalf("row %d: the consumer read %+v, want %v", i, got, want)
		}
		ctensor.Delete(m, true)
	}
	waitFor(t, "the sweep to unpin the array", func() bool { return tensor.PinnedObjects() == 0 })
	runtime.KeepAlive(data)
}

// exportSlice is the managed tensor of FromSlice(data, shape...), exported.
func exportSlice[T dlpack.Element](t *testing.T, data []T, shape ...int64) unsafe.Pointer {
	t.Helper()
	tt, err := tensor.FromSlice(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tt.Export()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEmptyGivesTheTensorAndItsSlice(t *testing.T) {
	x, s, err := tensor.Empty[float64](3, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if len(s) != 6 || x.Len() != 6 {
		t.Fatalf("len(s) = %d, Len() = %d, want 6", len(s), x.Len())
	}
	s[5] = 7
	v, _ := tensor.As[float64](x)
	if got, _ := v.At(2, 1); got != 7 {
		t.Fatalf("At(2, 1) = %v after s[5] = 7", got)
	}
	if _, _, err := tensor.Empty[float64](-1); err == nil {
		t.Fatal("Empty(-1): no error")
	}
}

// A result made by Uninitialized (or Empty) costs Go one allocation, the Tensor:
// its slice is read from the tensor with no View (an extension's per-call result);
// sub-byte elements and an empty shape take the same path and give their slice.
func TestUninitializedAllocatesOnlyTheTensor(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		x, s, err := tensor.Uninitialized[float32](4, 4)
		if err != nil || len(s) != 16 {
			t.Fatalf("Uninitialized(4, 4): len %d, %v", len(s), err)
		}
		x.Close()
	}); n > 1 {
		t.Errorf("Uninitialized + Close: %v allocations; want 1", n)
	}
	x, s, err := tensor.Empty[dlpack.Float4E2M1FN](3)
	if err != nil || len(s) != 3 {
		t.Fatalf("Empty[Float4E2M1FN](3): len %d, %v", len(s), err)
	}
	s[2] = 5
	v, _ := tensor.As[dlpack.Float4E2M1FN](x)
	if got, _ := v.At(2); got != 5 {
		t.Fatalf("At(2) = %v after s[2] = 5", got)
	}
	x.Close()
	y, e, err := tensor.Empty[float64](2, 0)
	if err != nil || e == nil || len(e) != 0 {
		t.Fatalf("Empty(2, 0): %v (nil: %v), %v", e, e == nil, err)
	}
	y.Close()
}

// UninitializedStrided lays a result out in any dense order of its axes (a
// transposed source's, from vec.StridesLike): its strides are the tensor's, its
// slice is the memory in that order, and strides with a gap, an overlap, a
// negative step or the wrong count are refused with what is wrong, no block made.
func TestUninitializedStridedKeepsADenseOrder(t *testing.T) {
	noLeaks(t)
	x, s, err := tensor.UninitializedStrided[float32]([]int64{3, 4}, []int64{1, 3}) // a .T's layout
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if len(s) != 12 || !slices.Equal(x.Strides(), []int64{1, 3}) || !slices.Equal(x.Shape(), []int64{3, 4}) {
		t.Fatalf("len(s) %d, shape %v, strides %v; want 12, [3 4], [1 3]", len(s), x.Shape(), x.Strides())
	}
	for i := range s {
		s[i] = float32(i)
	}
	v, _ := tensor.As[float32](x)
	if got, _ := v.At(2, 1); got != 2+1*3 {
		t.Fatalf("At(2, 1) = %v, want s[5] = 5", got)
	}
	// An axis of one may have any stride; an empty shape has no elements to lay out.
	for _, c := range []struct{ shape, strides []int64 }{
		{[]int64{2, 1, 3}, []int64{1, 99, 2}},
		{[]int64{2, 0}, []int64{0, 0}},
		{nil, nil},
	} {
		y, _, err := tensor.UninitializedStrided[int8](c.shape, c.strides)
		if err != nil {
			t.Fatalf("%v %v: %v", c.shape, c.strides, err)
		}
		y.Close()
	}
	for _, c := range []struct {
		strides []int64
		want    string
	}{
		{[]int64{8, 1}, "not a dense order"},  // a gap
		{[]int64{1, 1}, "not a dense order"},  // an overlap
		{[]int64{-4, 1}, "not a dense order"}, // reversed
		{[]int64{4}, "1 strides"},
	} {
		_, _, err := tensor.UninitializedStrided[float32]([]int64{3, 4}, c.strides)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("strides %v: %v, want an error naming %q", c.strides, err, c.want)
		}
	}
}

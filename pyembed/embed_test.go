//go:build godlpack_python

package pyembed_test

// Tests of Go calling Python (pyembed, and the root package's object.go, gil.go).
// They need a program linked with libpython: tests/test_embed.py runs them after
// `eval "$(python -m godlpack go-env --embed)"`, with godlpack importable.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/pyembed"
)

var helpers *godlpack.Object

func TestMain(m *testing.M) {
	if err := pyembed.Start(pyembed.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := pyembed.Start(pyembed.Config{}); err == nil {
		fmt.Fprintln(os.Stderr, "a second Start did not fail")
		os.Exit(1)
	}
	dir, _ := filepath.Abs("testdata/embed")
	sys := must(godlpack.Import("sys"))
	path := must(sys.Attr("path"))
	must(path.CallMethod("insert", 0, dir)).Close()
	helpers = must(godlpack.Import("embed_helpers"))
	code := m.Run()
	inc := must(helpers.Attr("inc"))
	helpers.Close()
	if err := pyembed.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		code = 1
	}
	// After Finalize: refused, never a crash.
	if _, err := godlpack.Import("math"); !errors.Is(err, pyembed.ErrNotStarted) {
		fmt.Fprintln(os.Stderr, "Import after Finalize:", err)
		code = 1
	}
	if _, err := inc.CallInt(1); !errors.Is(err, pyembed.ErrNotStarted) {
		fmt.Fprintln(os.Stderr, "CallInt after Finalize:", err)
		code = 1
	}
	ran := false
	if err := godlpack.WithGIL(func(*godlpack.GIL) error { ran = true; return nil }); !errors.Is(err, pyembed.ErrNotStarted) || ran {
		fmt.Fprintln(os.Stderr, "WithGIL after Finalize:", err, "ran:", ran)
		code = 1
	}
	path.Close() // does nothing now
	inc.Close()
	if err := pyembed.Start(pyembed.Config{}); err == nil {
		fmt.Fprintln(os.Stderr, "Start after Finalize did not fail")
		code = 1
	}
	os.Exit(code)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func call(t *testing.T, name string, args ...any) *godlpack.Object {
	t.Helper()
	r, err := must(helpers.Attr(name)).Call(args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func TestCallsAndConversions(t *testing.T) {
	math := must(godlpack.Import("math"))
	defer math.Close()
	r, err := math.CallMethod("sqrt", 2.0)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := r.Float(); err != nil || f != 1.4142135623730951 {
		t.Fatalf("sqrt(2) = %v, %v", f, err)
	}
	builtins := must(godlpack.Import("builtins"))
	n := must(must(builtins.Attr("int")).Call("ff", godlpack.Kw{"base": 16}))
	if v, err := n.Int(); v != 255 || err != nil {
		t.Fatalf("int('ff', base=16) = %v, %v", v, err)
	}
	got := must(call(t, "kinds", nil, true, 1, int8(2), uint64(3), 1.5, float32(2), complex(1, 2), "s", []byte("b"),
		godlpack.Tuple{1}, []any{1}, map[string]any{"a": 1}, godlpack.Kw{"k": "v"}).Go())
	want := "[NoneType bool int int int float float complex str bytes tuple list dict k=str]"
	if fmt.Sprint(got) != want {
		t.Fatalf("kinds: %v, want %v", got, want)
	}
	in := map[string]any{"n": nil, "b": true, "i": int64(-3), "f": 0.5, "s": "héllo", "y": []byte{0, 1},
		"l": []any{int64(1), "x", []any{}}, "d": map[string]any{"k": int64(2)}}
	back := must(call(t, "echo", in).Go())
	if fmt.Sprint(back) != fmt.Sprint(in) {
		t.Fatalf("echo: %v, want %v", back, in)
	}
	if _, err := must(godlpack.FromGo("x")).Int(); err == nil || !strings.Contains(err.Error(), "TypeError") {
		t.Fatalf("Int of a str: %v", err)
	}
	if _, err := must(godlpack.FromGo(1)).Bool(); err == nil {
		t.Fatal("Bool of 1 did not fail")
	}
	if _, err := must(godlpack.FromGo(uint64(1) << 63)).Int(); err == nil || !strings.Contains(err.Error(), "OverflowError") {
		t.Fatalf("Int beyond int64: %v", err)
	}
	if _, err := godlpack.FromGo(struct{}{}); err == nil || !strings.Contains(err.Error(), "cannot pass a Go struct {}") {
		t.Fatalf("FromGo(struct{}{}): %v", err)
	}
	if s := must(godlpack.FromGo([]any{1, "a"})).String(); s != "[1, 'a']" {
		t.Fatalf("String: %q", s)
	}
	o := must(godlpack.FromGo(1))
	o.Close()
	o.Close()
	if _, err := o.Int(); !errors.Is(err, godlpack.ErrClosed) {
		t.Fatalf("Int after Close: %v", err)
	}
}

func TestPythonErrors(t *testing.T) {
	_, err := must(helpers.Attr("fail")).Call("bad input")
	var pe *godlpack.PythonError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T %v, want *PythonError", err, err)
	}
	if pe.Type != "ValueError" || pe.Message != "bad input" || err.Error() != "ValueError: bad input" {
		t.Fatalf("got %+v", pe)
	}
	if !strings.HasPrefix(pe.Traceback, "Traceback (most recent call last):") ||
		!strings.Contains(pe.Traceback, "embed_helpers.py") || !strings.Contains(pe.Traceback, "in fail") ||
		!strings.HasSuffix(pe.Traceback, "ValueError: bad input\n") {
		t.Fatalf("traceback:\n%s", pe.Traceback)
	}
	_, err = must(helpers.Attr("fail_custom")).Call()
	if !errors.As(err, &pe) || pe.Type != "embed_helpers.CustomError" || pe.Message != "outer" ||
		!strings.Contains(pe.Traceback, "ValueError: inner") {
		t.Fatalf("chained: %v\n%s", err, pe.Traceback)
	}
	if _, err := godlpack.Import("no_such_module_xyz"); !errors.As(err, &pe) || pe.Type != "ModuleNotFoundError" {
		t.Fatalf("Import of a missing module: %v", err)
	}
	if _, err := helpers.Attr("nope"); !errors.As(err, &pe) || pe.Type != "AttributeError" {
		t.Fatalf("missing attribute: %v", err)
	}
}

// A Go tensor reaches Python as a godlpack.Array over the same memory.
func TestTensorToPython(t *testing.T) {
	data := []float32{1, 2, 3, 4, 5, 6}
	x := must(tensor.FromSlice(data, 2, 3))
	info := must(call(t, "array_info", x).Go()).([]any)
	addr := int64(uintptr(unsafe.Pointer(&data[0])))
	if info[0] != "Array" || info[1] != addr || info[6] != addr || fmt.Sprint(info[2:6]) != "[[2 3] [3 1] float32 false]" {
		t.Fatalf("array_info: %v (data at %#x)", info, addr)
	}
	if x.Shape() != nil {
		t.Fatal("the passed Tensor is still open: it moves into Python")
	}
	// Writes in Python land in the Go slice.
	y := must(tensor.FromSlice(data, 6))
	call(t, "scale_in_place", y, 10.0).Close()
	if fmt.Sprint(data) != "[10 20 30 40 50 60]" {
		t.Fatalf("after scale_in_place: %v", data)
	}
	// Strides and the read-only flag travel.
	z := must(tensor.FromSliceStrided([]float32{0, 1, 2, 3, 4, 5}, []int64{2, 2}, []int64{3, 2}))
	z.SetReadOnly()
	info = must(call(t, "array_info", z).Go()).([]any)
	if fmt.Sprint(info[2:6]) != "[[2 2] [3 2] float32 true]" {
		t.Fatalf("strided read-only: %v", info)
	}
}

// A Python tensor reaches Go without a copy and keeps its producer alive.
func TestTensorFromPython(t *testing.T) {
	pt := call(t, "strided_torch")
	x := must(pt.Tensor())
	ptr := must(must(pt.CallMethod("data_ptr")).Int())
	v := must(tensor.As[float32](x))
	raw := must(v.Raw())
	if int64(uintptr(unsafe.Pointer(&raw[0]))) != ptr {
		t.Fatalf("torch data at %#x, tensor at %p", ptr, &raw[0])
	}
	if fmt.Sprint(x.Shape(), x.Strides(), x.DType()) != "[3 2] [4 2] float32" {
		t.Fatalf("strided torch: %v %v %v", x.Shape(), x.Strides(), x.DType())
	}
	if e, _ := v.At(2, 1); e != 10 {
		t.Fatalf("x[2, 1] = %v", e)
	}
	x.Close()

	ro := must(call(t, "readonly_numpy").Tensor())
	if !ro.ReadOnly() || ro.DType().Name != "int64" {
		t.Fatalf("read-only numpy: %v %v", ro.ReadOnly(), ro.DType())
	}
	if err := must(tensor.As[int64](ro)).Set(1, 0); err == nil {
		t.Fatal("a read-only tensor accepted a write")
	}
	ro.Close()

	// The Tensor owns the producer: the array lives until Close.
	np := call(t, "tracked_numpy")
	owned := must(np.Tensor())
	np.Close()
	if !must(call(t, "tracked_alive").Bool()) {
		t.Fatal("the NumPy array died while a Tensor held it")
	}
	if e := must(must(tensor.As[float64](owned)).At(3)); e != 3 {
		t.Fatalf("owned[3] = %v", e)
	}
	owned.Close()
	if must(call(t, "tracked_alive").Bool()) {
		t.Fatal("the NumPy array outlived the Tensor's Close")
	}

	if _, err := must(godlpack.FromGo("not a tensor")).Tensor(); err == nil || !strings.Contains(err.Error(), "TypeError") {
		t.Fatalf("Tensor of a str: %v", err)
	}
}

// Every dtype goes to Python and comes back as the same memory and dtype.
func TestEveryDTypeRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	roundTrip[bool](t, seen)
	roundTrip[int8](t, seen)
	roundTrip[int16](t, seen)
	roundTrip[int32](t, seen)
	roundTrip[int64](t, seen)
	roundTrip[uint8](t, seen)
	roundTrip[uint16](t, seen)
	roundTrip[uint32](t, seen)
	roundTrip[uint64](t, seen)
	roundTrip[float32](t, seen)
	roundTrip[float64](t, seen)
	roundTrip[complex64](t, seen)
	roundTrip[complex128](t, seen)
	roundTrip[dlpack.BFloat16](t, seen)
	roundTrip[dlpack.Float16](t, seen)
	roundTrip[dlpack.Float8E3M4](t, seen)
	roundTrip[dlpack.Float8E4M3](t, seen)
	roundTrip[dlpack.Float8E4M3B11FNUZ](t, seen)
	roundTrip[dlpack.Float8E4M3FN](t, seen)
	roundTrip[dlpack.Float8E4M3FNUZ](t, seen)
	roundTrip[dlpack.Float8E5M2](t, seen)
	roundTrip[dlpack.Float8E5M2FNUZ](t, seen)
	roundTrip[dlpack.Float8E8M0FNU](t, seen)
	roundTrip[dlpack.Float6E2M3FN](t, seen)
	roundTrip[dlpack.Float6E3M2FN](t, seen)
	roundTrip[dlpack.Float4E2M1FN](t, seen)
	for _, d := range dlpack.All() {
		if !seen[d.Name] {
			t.Errorf("dtype %s not round-tripped", d.Name)
		}
	}
}

func roundTrip[T dlpack.Element](t *testing.T, seen map[string]bool) {
	t.Helper()
	x := must(tensor.New[T](2, 3))
	name := x.DType().Name
	raw := must(must(tensor.As[T](x)).Raw())
	addr := uintptr(unsafe.Pointer(&raw[0]))
	back := must(call(t, "echo", x).Tensor())
	defer back.Close()
	braw := must(must(tensor.As[T](back)).Raw())
	if back.DType().Name != name || uintptr(unsafe.Pointer(&braw[0])) != addr ||
		fmt.Sprint(back.Shape(), back.Strides()) != "[2 3] [3 1]" {
		t.Errorf("%s: came back as %v %v %v at %p (sent from %#x)", name, back.DType(), back.Shape(), back.Strides(), &braw[0], addr)
	}
	seen[name] = true
}

// Eight goroutines call Python at once, with tensors, and each gets its own answer.
func TestGoroutines(t *testing.T) {
	square := must(helpers.Attr("slow_square"))
	rows := must(helpers.Attr("model_rows"))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				v := float64(g*100 + i)
				r, err := square.Call(v)
				if err != nil {
					errs <- err
					return
				}
				if f, _ := r.Float(); f != v*v {
					errs <- fmt.Errorf("goroutine %d: slow_square(%v) = %v", g, v, f)
					return
				}
				r.Close()
				x := must(tensor.FromSlice([]float32{float32(g), float32(i), 1}, 1, 3))
				y, err := rows.Call(x)
				if err != nil {
					errs <- err
					return
				}
				yt := must(y.Tensor())
				got := must(must(tensor.As[float32](yt)).At(0))
				yt.Close()
				y.Close()
				if want := float32(2*(g+i+1) + 3); got != want {
					errs <- fmt.Errorf("goroutine %d: model_rows = %v, want %v", g, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The interpreter's main thread is the one Start made, not a caller's.
	names := fmt.Sprint(must(call(t, "thread_names").Go()))
	if !strings.HasSuffix(names, " MainThread]") || strings.HasPrefix(names, "[MainThread") {
		t.Fatalf("threads: %s", names)
	}
}

//go:build godlpack_python

package pyembed_test

// Tests of the one-entry calls (CallInt, CallFloat, CallTensor) and of WithGIL
// (object_api.go, gil.go, object.go, object.c).

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

func TestCallIntAndFloat(t *testing.T) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	for _, c := range []struct {
		arg  any
		want int64
	}{{41, 42}, {int64(-5), -4}, {int32(1), 2}, {true, 2}, {int64(1<<62 - 1), 1 << 62}} {
		if v, err := inc.CallInt(c.arg); v != c.want || err != nil {
			t.Errorf("CallInt(%T %v) = %v, %v; want %v", c.arg, c.arg, v, err, c.want)
		}
	}
	// A result that is not an exact int: the general conversion (a NumPy integer).
	if v, err := must(helpers.Attr("numpy_int")).CallInt(7); v != 7 || err != nil {
		t.Errorf("CallInt of a numpy.int32 result = %v, %v", v, err)
	}
	// Keyword arguments, several arguments: the general path.
	builtins := must(godlpack.Import("builtins"))
	intType := must(builtins.Attr("int"))
	if v, err := intType.CallInt("ff", godlpack.Kw{"base": 16}); v != 255 || err != nil {
		t.Errorf("int('ff', base=16) = %v, %v", v, err)
	}
	if _, err := inc.CallInt(int64(1<<63 - 1)); err == nil || !strings.Contains(err.Error(), "OverflowError") {
		t.Errorf("a result beyond int64: %v", err)
	}
	if _, err := must(builtins.Attr("str")).CallInt(1); err == nil || !strings.Contains(err.Error(), "TypeError: the result must be an integer, not str") {
		t.Errorf("CallInt of a str result: %v", err)
	}
	half := must(helpers.Attr("half"))
	if v, err := half.CallFloat(3.0); v != 1.5 || err != nil {
		t.Errorf("CallFloat(3.0) = %v, %v", v, err)
	}
	if v, err := half.CallFloat(3); v != 1.5 || err != nil {
		t.Errorf("CallFloat(3) (an int argument, a float result) = %v, %v", v, err)
	}
	if v, err := inc.CallFloat(1); v != 2 || err != nil {
		t.Errorf("CallFloat of an int result = %v, %v", v, err)
	}
	if _, err := must(builtins.Attr("str")).CallFloat(); err == nil || !strings.Contains(err.Error(), "TypeError") {
		t.Errorf("CallFloat of a str result: %v", err)
	}
}

func TestCallIntErrorsAreGoErrors(t *testing.T) {
	fail := must(helpers.Attr("fail"))
	defer fail.Close()
	for _, arg := range []any{"bad input", 1, 1.5} { // the general path and the fast one
		_, err := fail.CallInt(arg)
		var pe *godlpack.PythonError
		if !errors.As(err, &pe) || pe.Type != "ValueError" {
			t.Fatalf("CallInt(%v) of a function that raises: %T %v", arg, err, err)
		}
		if !strings.Contains(pe.Traceback, "in fail") {
			t.Errorf("traceback:\n%s", pe.Traceback)
		}
	}
	// Python's error indicator was left clear: the next call succeeds.
	if v, err := must(helpers.Attr("inc")).CallInt(1); v != 2 || err != nil {
		t.Fatalf("a call after a failed one: %v, %v", v, err)
	}
	noop := must(helpers.Attr("noop"))
	noop.Close()
	for name, call := range map[string]func() error{
		"CallInt":    func() error { _, err := noop.CallInt(1); return err },
		"CallFloat":  func() error { _, err := noop.CallFloat(); return err },
		"CallTensor": func() error { _, err := noop.CallTensor(); return err },
		"Call":       func() error { _, err := noop.Call(2.5); return err },
	} {
		if err := call(); !errors.Is(err, godlpack.ErrClosed) {
			t.Errorf("%s of a closed Object: %v", name, err)
		}
	}
	var nilObject *godlpack.Object // an error, where Call and Int panicked on its lease
	if _, err := nilObject.CallInt(1); err == nil {
		t.Error("CallInt of a nil *Object did not fail")
	}
	if _, err := nilObject.Call(1); err == nil {
		t.Error("Call of a nil *Object did not fail")
	}
	if _, err := nilObject.Int(); err == nil {
		t.Error("Int of a nil *Object did not fail")
	}
}

func TestCallTensor(t *testing.T) {
	toNumPy := must(helpers.Attr("to_numpy"))
	defer toNumPy.Close()
	data := []float32{1, 2, 3, 4, 5, 6}
	x := must(tensor.FromSlice(data, 2, 3))
	got, err := toNumPy.CallTensor(x)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if got.Data() != unsafe.Pointer(&data[0]) || got.Shape()[0] != 2 || got.Shape()[1] != 3 {
		t.Fatalf("CallTensor: %v at %p, want the slice's memory %p", got.Shape(), got.Data(), &data[0])
	}
	if _, err := must(helpers.Attr("inc")).CallTensor(1); err == nil {
		t.Fatal("CallTensor of an int result did not fail")
	}
}

// A tensor argument goes to Python in the call's one entry (gd_fast_call): the
// callable gets a godlpack.Array owning it, and however the call ends (a result,
// an exception, a closed Object) the tensor is released: its producer, a NumPy
// array, dies.
func TestOneEntryCallsReleaseTheirTensorArgument(t *testing.T) {
	tracked := func() *tensor.Tensor { // a tensor holding tracked_numpy()'s array
		np := call(t, "tracked_numpy")
		defer np.Close()
		return must(np.Tensor())
	}
	dead := func(how string) {
		t.Helper()
		if must(call(t, "tracked_alive").Bool()) {
			t.Errorf("%s: the argument's producer is still alive", how)
		}
	}
	echo := must(helpers.Attr("echo"))
	defer echo.Close()
	got, err := echo.CallTensor(tracked()) // Array in, the same Array out
	if err != nil || got.Shape()[0] != 4 {
		t.Fatalf("echo.CallTensor(tracked): %v, %v", got, err)
	}
	if e := must(must(tensor.As[float64](got)).At(2)); e != 2 {
		t.Errorf("echo.CallTensor(tracked)[2] = %v", e)
	}
	got.Close()
	dead("echo.CallTensor's result closed")

	r, err := echo.Call(tracked()) // the general Call's one entry too
	if err != nil || must(r.Attr("shape")).String() != "(4,)" {
		t.Fatalf("echo.Call(tracked): %v, %v", r, err)
	}
	r.Close()
	dead("echo.Call's result closed")

	fail := must(helpers.Attr("fail"))
	defer fail.Close()
	var pe *godlpack.PythonError
	if _, err := fail.CallTensor(tracked()); !errors.As(err, &pe) || pe.Type != "ValueError" {
		t.Errorf("fail.CallTensor(tracked): %T %v, want fail's ValueError", err, err)
	}
	dead("a raising callable")

	closed := must(helpers.Attr("noop"))
	closed.Close()
	if _, err := closed.CallTensor(tracked()); !errors.Is(err, godlpack.ErrClosed) {
		t.Errorf("CallTensor of a closed Object: %v", err)
	}
	dead("a closed Object's call")
}

func TestWithGIL(t *testing.T) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	var sum int64
	err := godlpack.WithGIL(func(py *godlpack.GIL) error {
		for i := range 10 {
			r, err := py.Call(inc, i)
			if err != nil {
				return err
			}
			v, err := py.Int(r)
			py.Close(r)
			if err != nil {
				return err
			}
			sum += v
		}
		r := must(py.Call(inc, 0.5))
		defer py.Close(r)
		if f, err := py.Float(r); f != 1.5 || err != nil {
			t.Errorf("Float: %v, %v", f, err)
		}
		if g, err := py.Go(r); g != 1.5 || err != nil {
			t.Errorf("Go: %v, %v", g, err)
		}
		m := must(py.Attr(helpers, "numpy_int"))
		defer py.Close(m)
		n := must(py.Call(m, 3))
		if v, err := py.Int(n); v != 3 || err != nil { // not an exact int: the general conversion
			t.Errorf("Int of a numpy.int32: %v, %v", v, err)
		}
		py.Close(n)
		if _, err := py.Int(n); !errors.Is(err, godlpack.ErrClosed) {
			t.Errorf("Int after the GIL's Close: %v", err)
		}
		s := must(py.CallMethod(must(godlpack.FromGo("a,b")), "split", ","))
		if g, err := py.Go(s); err != nil || len(g.([]any)) != 2 {
			t.Errorf("CallMethod: %v, %v", g, err)
		}
		// WithGIL nests.
		return godlpack.WithGIL(func(inner *godlpack.GIL) error {
			_, err := inner.Call(inc, 1)
			return err
		})
	})
	if err != nil || sum != 55 {
		t.Fatalf("WithGIL: sum %d, %v", sum, err)
	}
	// A Python exception is a *PythonError from the call that raised it, and f may go on.
	fail := must(helpers.Attr("fail"))
	defer fail.Close()
	mine := errors.New("mine")
	err = godlpack.WithGIL(func(py *godlpack.GIL) error {
		_, err := py.Call(fail, "inside")
		var pe *godlpack.PythonError
		if !errors.As(err, &pe) || pe.Message != "inside" {
			t.Errorf("py.Call of a function that raises: %T %v", err, err)
		}
		if v, err := py.Int(must(py.Call(inc, 1))); v != 2 || err != nil {
			t.Errorf("a call after a failed one: %v, %v", v, err)
		}
		return mine
	})
	if err != mine {
		t.Fatalf("WithGIL returned %v, want f's error", err)
	}
}

// The GIL is released when WithGIL returns, however f ends: another goroutine's call
// goes through, and the *GIL is refused afterwards.
func TestWithGILReleasesTheGIL(t *testing.T) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	var kept *godlpack.GIL
	_ = godlpack.WithGIL(func(py *godlpack.GIL) error { kept = py; return errors.New("f failed") })
	func() {
		defer func() { _ = recover() }()
		_ = godlpack.WithGIL(func(*godlpack.GIL) error { panic("f panicked") })
	}()
	done := make(chan error, 1)
	go func() {
		_, err := inc.CallInt(1)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the GIL was not released after WithGIL returned")
	}
	if _, err := kept.Call(inc, 1); err == nil || !strings.Contains(err.Error(), "after its WithGIL function returned") {
		t.Fatalf("a *GIL used after WithGIL returned: %v", err)
	}
	if _, err := kept.Int(inc); err == nil {
		t.Fatal("Int with a stale *GIL did not fail")
	}
}

// Many goroutines at once, with an Object closed under them: results or ErrClosed,
// never a crash.
func TestCallIntFromManyGoroutines(t *testing.T) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	doomed := must(helpers.Attr("inc"))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				if v, err := inc.CallInt(i); v != int64(i)+1 || err != nil {
					errs <- err
					return
				}
				if _, err := doomed.CallInt(g); err != nil && !errors.Is(err, godlpack.ErrClosed) {
					errs <- err
					return
				}
				if g == 0 && i%50 == 0 {
					_ = godlpack.WithGIL(func(py *godlpack.GIL) error {
						_, err := py.Int(must(py.Call(inc, i)))
						return err
					})
				}
			}
		})
	}
	time.Sleep(time.Millisecond)
	doomed.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

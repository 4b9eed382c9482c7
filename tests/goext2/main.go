// Command goext2 is a second, tiny Python extension written in Go, for the test
// that loads two of them (each with its own Go runtime) beside godlpack in one
// process (tests/test_goext_threads.py).
package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

func init() {
	godlpack.Module("goext2", "A second extension written in Go (tests).",
		godlpack.Func2("ramp", ramp, "n", "step").
			Doc("A new float64 array [0, step, 2*step, ...) of n elements, filled by goroutines."),
		godlpack.Func1("locked_spawn", lockedSpawn, "n").ReleaseGIL().
			Doc("A goroutine locked to its thread (runtime.LockOSThread) starts n goroutines and waits for them."),
		godlpack.Func1("churn", churn, "rounds").
			Doc("Makes garbage on goroutines and collects it (runtime.GC) rounds times."),
		godlpack.Func2("naps", naps, "n", "micros").ReleaseGIL().
			Doc("Sleeps micros microseconds on each of n goroutines (timers); returns n."),
		godlpack.Func1("pixels", pixels, "img").
			Where("img", constraint.Shape(-1, -1, 3), constraint.DTypes(dlpack.DTypeOf[uint8](), dlpack.DTypeOf[float32]())).
			Doc("The number of pixels of an (h, w, 3) uint8 or float32 image: Shape and DTypes."),
		godlpack.Func1("total", total, "x").Doc("The sum of x through its borrowed *tensor.Tensor."),
		godlpack.Func1("negate", negate, "x").Doc("Negates x in place through its borrowed *tensor.Tensor."),
		godlpack.Func2("fill_all", fillAll, "x", "value").Where("x", constraint.AllowOverlap()).
			Doc("Sets every element of x to value, any layout, aliased ones too (AllowOverlap)."),
		godlpack.Func1("give_back", giveBack, "x").Doc("Returns x's borrowed *tensor.Tensor: refused."),
		godlpack.Func3("weighted_sum", weightedSum, "x", "w", "k").
			Default("w", nil).Default("k", 1.0).Where("w", constraint.NDim(1)).
			Doc("k * the sum of x[i] * w[i], or of x[i] without w: an optional tensor."),
		godlpack.Func1("clear", clearOptional, "out").Default("out", nil).Where("out", constraint.Contiguous()).
			Doc("Zeroes out if it is given; returns whether it was: an optional MutTensor."),
		godlpack.Func1("keep_none", keepNone, "x").Default("x", nil).
			Doc("Keep, AsTensor and ReadSlice of an absent tensor: their errors, joined."),
		godlpack.Func1("ndim_of", ndimOf, "x").Default("x", nil).
			Doc("x.NDim() without asking IsNone: an absent x panics (RuntimeError)."),
		godlpack.Func1("sqrt_on_goroutine", sqrtOnGoroutine, "x").ReleaseGIL().
			Doc("math.sqrt(x), called back in Python from a new goroutine (godlpack.Import)."),
	)
}

func main() {}

func ramp(n int64, step float64) (*tensor.Tensor, error) {
	out, err := tensor.New[float64](n)
	if err != nil {
		return nil, err
	}
	v, err := tensor.As[float64](out)
	if err != nil {
		return nil, err
	}
	s, err := v.Slice()
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(s); i += 4 {
				s[i] = float64(i) * step
			}
		}()
	}
	wg.Wait()
	runtime.GC()
	return out, nil
}

func churn(rounds int64) (int64, error) {
	var total int64
	var mu sync.Mutex
	for range rounds {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				junk := make([][]byte, 64)
				for i := range junk {
					junk[i] = make([]byte, 1024)
				}
				mu.Lock()
				total += int64(len(junk))
				mu.Unlock()
			}()
		}
		wg.Wait()
		runtime.GC()
	}
	return total, nil
}

// naps waits on timers from goroutines: in a fork child, timers need a thread
// that waits for them (tests/test_goext_fork.py).
func naps(n, micros int64) (int64, error) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { time.Sleep(time.Duration(micros) * time.Microsecond) })
	}
	wg.Wait()
	return n, nil
}

func pixels(img godlpack.Tensor[godlpack.Any]) (int64, error) { return img.Dim(0) * img.Dim(1), nil }

// total reads x through the dlpack/tensor API: a view walks any strides.
func total(x godlpack.Tensor[float64]) (float64, error) {
	t, err := x.AsTensor()
	if err != nil {
		return 0, err
	}
	v, err := tensor.As[float64](t)
	if err != nil {
		return 0, err
	}
	if err := v.Set(0, make([]int64, x.NDim())...); err != tensor.ErrReadOnly && x.Len() > 0 {
		return 0, fmt.Errorf("a Tensor's view must refuse writes, got %v", err)
	}
	s := 0.0
	for _, e := range v.All() {
		s += e
	}
	return s, nil
}

func negate(x godlpack.MutTensor[float64]) (godlpack.None, error) {
	t, err := x.AsTensor()
	if err != nil {
		return godlpack.None{}, err
	}
	v, err := tensor.As[float64](t)
	if err != nil {
		return godlpack.None{}, err
	}
	idx := make([]int64, x.NDim())
	for i, e := range v.All() {
		rest := int64(i)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d] = rest % x.Dim(d)
			rest /= x.Dim(d)
		}
		if err := v.Set(-e, idx...); err != nil {
			return godlpack.None{}, err
		}
	}
	return godlpack.None{}, nil
}

// fillAll writes value at every index of x, through the dlpack/tensor API: an
// aliased element is written once per index, with the same value, so AllowOverlap
// is right for it.
func fillAll(x godlpack.MutTensor[float64], value float64) (godlpack.None, error) {
	t, err := x.AsTensor()
	if err != nil {
		return godlpack.None{}, err
	}
	v, err := tensor.As[float64](t)
	if err != nil {
		return godlpack.None{}, err
	}
	idx := make([]int64, x.NDim())
	for range x.Len() {
		if err := v.Set(value, idx...); err != nil {
			return godlpack.None{}, err
		}
		for d := len(idx) - 1; d >= 0; d-- { // the next index, in C order
			if idx[d]++; idx[d] < x.Dim(d) {
				break
			}
			idx[d] = 0
		}
	}
	return godlpack.None{}, nil
}

func giveBack(x godlpack.Tensor[float64]) (*tensor.Tensor, error) { return x.AsTensor() }

// weightedSum takes an optional tensor w: absent (None or left out), every weight is 1.
func weightedSum(x godlpack.Tensor[float64], w godlpack.Tensor[float64], k float64) (float64, error) {
	xs, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return 0, err
	}
	s := 0.0
	if w.IsNone() {
		for _, v := range xs {
			s += v
		}
		return k * s, nil
	}
	ws, err := godlpack.ReadSlice[float64](w)
	if err != nil {
		return 0, err
	}
	if len(ws) != len(xs) {
		return 0, fmt.Errorf("w has %d elements, x %d", len(ws), len(xs))
	}
	for i, v := range xs {
		s += v * ws[i]
	}
	return k * s, nil
}

func clearOptional(out godlpack.MutTensor[float64]) (bool, error) {
	if out.IsNone() {
		return false, nil
	}
	s, err := godlpack.Slice[float64](out)
	if err != nil {
		return false, err
	}
	clear(s)
	return true, nil
}

func keepNone(x godlpack.Tensor[godlpack.Any]) (string, error) {
	if !x.IsNone() {
		return "", errors.New("pass no tensor")
	}
	_, e1 := x.Keep()
	_, e2 := x.AsTensor()
	_, e3 := godlpack.ReadSlice[float32](x)
	return fmt.Sprintf("%v; %v; %v", e1, e2, e3), nil
}

func ndimOf(x godlpack.Tensor[godlpack.Any]) (int, error) { return x.NDim(), nil }

// sqrtOnGoroutine calls back into the Python that loaded this extension, from a
// goroutine of its own: the Object API and its GIL handling (gil.go) are the same as
// a Go program's that embeds Python. ReleaseGIL: the goroutine needs the GIL the
// call would otherwise hold while it waits.
func sqrtOnGoroutine(x float64) (float64, error) {
	type result struct {
		v   float64
		err error
	}
	done := make(chan result)
	go func() {
		var r result
		defer func() { done <- r }()
		math, err := godlpack.Import("math")
		if err != nil {
			r.err = err
			return
		}
		defer math.Close()
		v, err := math.CallMethod("sqrt", x)
		if err != nil {
			r.err = err
			return
		}
		defer v.Close()
		r.v, r.err = v.Float()
	}()
	r := <-done
	return r.v, r.err
}

// lockedSpawn starts goroutines from a goroutine locked to its thread: a new
// thread asked for from a locked thread is made by the runtime's template thread,
// which fork() does not copy into a child (tests/test_goext_fork.py).
func lockedSpawn(n int64) (int64, error) {
	done := make(chan int64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var wg sync.WaitGroup
		sums := make([]int64, n)
		for i := range sums {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 100_000 {
					sums[i] += int64(j & 1)
				}
			}()
		}
		wg.Wait()
		total := int64(0)
		for _, s := range sums {
			total += s
		}
		done <- total
	}()
	return <-done, nil
}

//go:build godlpack_python

// Command embed measures Go calling Python through godlpack (package pyembed and
// Object) against a twin that calls CPython's C API itself (direct.go), in one
// process and in turns, and prints each ratio beside its goal. bench/bench_embed.sh
// builds and runs it.
//
// Rows (ns per call, the best of the rounds; wall time):
//
//	int call           inc(x) with an int, its int result read in Go
//	int call x8        the same from 8 goroutines at once: total calls per second
//	                   over one goroutine's (higher is better; the GIL serializes them)
//	1M float32 trip    a Go slice of 1M float32 to a numpy.ndarray over it and back
//	                   to Go, zero-copy both ways
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/pyembed"
)

const helpers = `
import numpy as np
def inc(x):
    return x + 1
def to_numpy(a):
    return np.from_dlpack(a)
`

const tripLen = 1 << 20 // 1M float32

var (
	rounds     = flag.Int("rounds", 5, "rounds; each runs every row once, the best of each row is kept")
	calls      = flag.Int("calls", 200000, "int calls per row and round (per goroutine at x8: calls/8)")
	trips      = flag.Int("trips", 20000, "1M float32 round trips per row and round")
	goroutines = flag.Int("goroutines", 8, "goroutines of the contended rows")
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile (go tool pprof) of the rounds to this file")
	only       = flag.String("only", "", "run only the rows whose name holds this (with -cpuprofile: profile one path)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/embed:", err)
		os.Exit(1)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func run() error {
	if err := pyembed.Start(pyembed.Config{}); err != nil {
		return err
	}
	defer func() { _ = pyembed.Finalize() }()
	if err := directSetup(); err != nil {
		return err
	}
	ns := must(godlpack.FromGo(map[string]any{}))
	builtins := must(godlpack.Import("builtins"))
	must(builtins.CallMethod("exec", helpers, ns)).Close()
	inc := must(ns.Item("inc"))
	toNumPy := must(ns.Item("to_numpy"))

	rows := []row{
		{name: "int call: direct C API", f: func() time.Duration { return parallel(1, directInts) }},
		{name: "int call: Call, Int, Close (3 GIL entries)", f: func() time.Duration { return timeCalls(*calls, func(i int) { callIntOld(inc, i) }) }},
		{name: "int call: CallInt (1 entry)", f: func() time.Duration { return parallel(1, callIntNew(inc)) }},
		{name: "int call: WithGIL{Call, Int, Close}", f: func() time.Duration { return timeCalls(*calls, func(i int) { callIntWithGIL(inc, i) }) }},
		{name: "int call x8: direct C API", f: func() time.Duration { return parallel(*goroutines, directInts) }},
		{name: "int call x8: CallInt", f: func() time.Duration { return parallel(*goroutines, callIntNew(inc)) }},
		{name: "1M float32 trip: direct C API", f: directTrips},
		{name: "1M float32 trip: Call, Tensor, Close", f: func() time.Duration { return godlpackTrips(toNumPy, false) }},
		{name: "1M float32 trip: CallTensor", f: func() time.Duration { return godlpackTrips(toNumPy, true) }},
	}
	if *only != "" {
		rows = slices.DeleteFunc(rows, func(r row) bool { return !strings.Contains(r.name, *only) })
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for r := 0; r < *rounds; r++ {
		for i := range rows {
			d := rows[i].f()
			if r == 0 || d < rows[i].best {
				rows[i].best = d
			}
		}
	}
	for _, r := range rows {
		fmt.Printf("%-45s %9.0f ns/call\n", r.name, float64(r.best))
	}
	if *only != "" {
		return nil // the ratios need every row
	}
	best := func(i int) float64 { return float64(rows[i].best) }
	fmt.Println()
	fmt.Printf("int call, CallInt / direct:                %5.2fx  (goal <= 2x)\n", best(2)/best(0))
	fmt.Printf("int call, WithGIL{Call, Int, Close} / direct: %5.2fx  (three calls under one hold)\n", best(3)/best(0))
	fmt.Printf("int call, old three entries / direct:      %5.2fx\n", best(1)/best(0))
	direct8, ours8 := best(0)/best(4), best(2)/best(5)
	fmt.Printf("x%d over x1, calls/s: direct %.2f, CallInt %.2f: %.2fx of direct's (goal >= 0.9x)\n",
		*goroutines, direct8, ours8, ours8/direct8)
	fmt.Printf("1M float32 trip, CallTensor / direct:      %5.2fx  (goal <= 2x)\n", best(8)/best(6))
	fmt.Printf("1M float32 trip, old / direct:             %5.2fx\n", best(7)/best(6))
	return nil
}

type row struct {
	name string
	f    func() time.Duration // per call
	best time.Duration
}

func timeCalls(n int, f func(i int)) time.Duration {
	start := time.Now()
	for i := range n {
		f(i)
	}
	return time.Since(start) / time.Duration(n)
}

// parallel runs calls/g calls on each of g goroutines at once, each its own call
// function (made on it): the wall time per call of all of them together.
func parallel(g int, each func() func(i int)) time.Duration {
	per := *calls / g
	var made, done sync.WaitGroup
	ready := make(chan struct{})
	made.Add(g)
	for range g {
		done.Go(func() {
			f := each()
			made.Done()
			<-ready
			for i := range per {
				f(i)
			}
		})
	}
	made.Wait()
	start := time.Now()
	close(ready)
	done.Wait()
	return time.Since(start) / time.Duration(per*g)
}

func callIntOld(inc *godlpack.Object, i int) {
	r := must(inc.Call(i))
	if must(r.Int()) != int64(i)+1 {
		panic("inc: wrong result")
	}
	r.Close()
}

func callIntNew(inc *godlpack.Object) func() func(i int) {
	return func() func(i int) {
		return func(i int) {
			if must(inc.CallInt(i)) != int64(i)+1 {
				panic("inc: wrong result")
			}
		}
	}
}

func callIntWithGIL(inc *godlpack.Object, i int) {
	err := godlpack.WithGIL(func(py *godlpack.GIL) error {
		r, err := py.Call(inc, i)
		if err != nil {
			return err
		}
		defer py.Close(r)
		v, err := py.Int(r)
		if err == nil && v != int64(i)+1 {
			panic("inc: wrong result")
		}
		return err
	})
	if err != nil {
		panic(err)
	}
}

// directInts is the twin's int call on this goroutine, made with its thread state.
func directInts() func(i int) {
	ts := directThread()
	return func(i int) {
		if v, ok := directCallInt(ts, int64(i)); !ok || v != int64(i)+1 {
			panic("direct inc: wrong result")
		}
	}
}

func directTrips() time.Duration {
	data, free := directData(tripLen)
	defer free()
	var d time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		ts := directThread()
		d = timeCalls(*trips, func(int) {
			if !directRoundTrip(ts, data, tripLen) {
				panic("direct trip: another address came back")
			}
		})
	}()
	<-done
	return d
}

func godlpackTrips(toNumPy *godlpack.Object, oneEntry bool) time.Duration {
	data := make([]float32, tripLen)
	return timeCalls(*trips, func(int) {
		x := must(tensor.FromSlice(data, tripLen))
		var t *tensor.Tensor
		if oneEntry {
			t = must(toNumPy.CallTensor(x))
		} else {
			r := must(toNumPy.Call(x))
			t = must(r.Tensor())
			r.Close()
		}
		if t.Data() != unsafe.Pointer(&data[0]) {
			panic("trip: another address came back")
		}
		_ = t.Close()
	})
}

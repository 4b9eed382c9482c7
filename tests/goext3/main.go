// Command goext3 is a Python extension written in Go whose functions are bound
// with godlpack.Func: any arity, keyword-only parameters, every integer width,
// float32, complex, bytes, lists, dicts, *T optionals, any and *godlpack.Object,
// several results, results of error or nothing (tests/test_goext_func.py).
package main

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/godlpacktest"
)

func init() {
	bag := godlpack.Class[Bag]("Bag", "A list of strings: __len__, __iter__, __eq__ (tests).").Final()
	bag.Init(newBag, "items").Default("items", nil)
	bag.Def("__len__", (*Bag).Len)
	bag.Def("__iter__", (*Bag).Items)
	bag.Def("__eq__", (*Bag).Equal, "other")
	bag.Def("push", (*Bag).Push, "item").Doc("Appends item.")
	bag.Def("copy", (*Bag).Copy).Doc("A new Bag with the same items.")
	bag.ClassMethod("of", func(_ *godlpack.Object, items []string) *Bag { return newBag(items) }, "items").
		Doc("A new Bag of items: a class method (test_instance_release.py).")
	bag.Property("first", "The first item, or None.", (*Bag).First, nil)
	gauge := godlpack.Class[Gauge]("Gauge", "One AtomicProperty of each kind, bumped by goroutines (tests).")
	gauge.Init(godlpack.Func1("Gauge", newGauge, "start"))
	gauge.Def("bump", (*Gauge).Bump, "n").ReleaseGIL().Doc("n rounds of 4 goroutines changing every field.")
	gauge.AtomicProperty("i64", "An atomic.Int64: start + 4n.", func(g *Gauge) *atomic.Int64 { return &g.i64 })
	gauge.AtomicProperty("u64", "An atomic.Uint64: 2**63 + 4n.", func(g *Gauge) *atomic.Uint64 { return &g.u64 })
	gauge.AtomicProperty("i32", "An atomic.Int32: -5 - 4n.", func(g *Gauge) *atomic.Int32 { return &g.i32 })
	gauge.AtomicProperty("u32", "An atomic.Uint32: 3e9 + 4n.", func(g *Gauge) *atomic.Uint32 { return &g.u32 })
	gauge.AtomicProperty("on", "An atomic.Bool: set by bump.", func(g *Gauge) *atomic.Bool { return &g.on })
	gauge.Property("label", "A plain property beside them.", func(g *Gauge) string { return g.label }, nil)
	sealed := godlpack.Class[Sealed]("Sealed", "Made only by make_sealed: no constructor (tests).")
	sealed.Property("n", "Its number.", func(s *Sealed) int { return s.n }, nil)
	node := godlpack.Class[Node]("Node", "Holds a callable past the call (lend.go; docs/classes.md: cycles).")
	node.Init(func() *Node { return &Node{} })
	node.Def("on_change", (*Node).OnChange, "fn").Doc("Keeps fn, called by notify.")
	node.Def("notify", (*Node).Notify).Doc("Calls the kept fn, if any.")
	node.Def("close", (*Node).Close).Doc("Drops the kept fn.")
	tally := godlpack.Class[Tally]("Tally", "A map[string]int property, read-write (tests).")
	tally.Init(func() *Tally { return &Tally{} })
	tally.Property("counts", "A dict[str, int], copied in and out.", (*Tally).Counts, (*Tally).SetCounts)

	godlpack.Module("goext3", "Functions bound with godlpack.Func (tests).",
		bag, sealed, gauge, node, tally,
		godlpack.Func("go_gc", runtime.GC).Doc("runtime.GC(): frees what nothing holds (tests)."),
		godlpack.Func("countdown", countdown, "n").
			Doc("A lazy iterator over n-1..0 (an iter.Seq[int]; tests/test_streamstats_protocols.py)."),
		godlpack.Func("pairs", pairs, "words").
			Doc("A lazy iterator over (i, word) (an iter.Seq2[int, string])."),
		godlpack.Func("running_countdowns", func() int64 { return runningCountdowns.Load() }).
			Doc("How many countdown sequences have started and not returned."),
		godlpack.Func("make_sealed", func(n int) *Sealed { return &Sealed{n} }, "n"),
		godlpack.Func("maybe_bag", maybeBag, "bag").Default("bag", nil).
			Doc("The number of items of an optional Bag (None: -1)."),
		godlpack.Func("live_instances", godlpacktest.LiveInstances).
			Doc("How many Go values instances hold now."),
		godlpack.Func("bag_if", bagIf, "how").
			Doc("A new Bag, None, a ValueError or a panic, as how says (bag, nil, error, panic)."),
		godlpack.Func("signal_when_freed", signalWhenFreed, "bag", "fd").
			Doc("Writes 1 to fd once Go has freed bag's value (0: not in 20 s), collecting meanwhile."),
		godlpack.Func("call_on_goroutine", callOnGoroutine, "fn", "x").ReleaseGIL().
			Doc("fn(x), called from a new goroutine: a callback on another thread."),
		godlpack.Func("call_n", callN, "fn", "n").
			Doc("fn(i) for i in range(n); its exception stops the loop and propagates."),
		godlpack.Func("wrap_callback_error", wrapCallbackError, "fn", "wrap").
			Doc("fn()'s error, returned wrapped (%w, with what errors.As found in it) or as it is."),
		// lend.go: callbacks and Objects lent for a call, on goroutines, kept or not
		godlpack.Func("call_on_goroutine_default", callOnGoroutine, "fn", "x").
			Doc("call_on_goroutine with the default GIL policy (not declared ReleaseGIL)."),
		godlpack.Func("call_on_goroutine_held", callOnGoroutine, "fn", "x").HoldGIL().
			Doc("call_on_goroutine holding the GIL (HoldGIL): refused, naming ReleaseGIL."),
		godlpack.Func("call_it_on_goroutine", callItOnGoroutine, "fn", "arg").
			Doc("fn(arg) through *godlpack.Object, from a new goroutine (default GIL policy)."),
		godlpack.Func("call_all", callAll, "fns", "arg").
			Doc("[f(arg) for f in fns] through a []*godlpack.Object."),
		godlpack.Func("store_callback", storeCallback, "fn", "keep").
			Doc("Stores fn for call_stored, kept past the call (KeepFunc) when keep."),
		godlpack.Func("call_stored", callStored, "x").Doc("The stored callback of x."),
		godlpack.Func("store_and_call_held", storeAndCallHeld, "fn", "x").HoldGIL().
			Doc("Stores fn for call_stored (not kept) and returns fn(x), holding the GIL."),
		godlpack.Func("call_stored_released", callStored, "x").ReleaseGIL().
			Doc("call_stored with the GIL released."),
		godlpack.Func("store_object", storeObject, "obj", "keep").
			Doc("Stores obj for stored_str, kept past the call (Object.Keep) when keep."),
		godlpack.Func("stored_str", storedStr).Doc("str() of the stored Object."),
		godlpack.Func("close_stored", closeStored).Doc("Closes and forgets the stored Object."),
		godlpack.Func("keep_own_func", keepOwnFunc).Doc("KeepFunc of a Go func of its own: its error."),
		godlpack.Func("widths", widths, "i8", "i16", "i32", "u8", "u16", "u32", "u64", "u").
			Doc("Every integer width, summed as a str (eight parameters)."),
		godlpack.Func("many", many, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j").
			Default("j", 10).Doc("Ten int parameters: their weighted sum a + 2b + ... + 10j."),
		godlpack.Func("twenty", twenty, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9",
			"a10", "a11", "a12", "a13", "a14", "a15", "a16", "a17", "*", "scale", "label").
			Default("scale", 1.0).Default("label", "sum").
			Doc("Twenty parameters (no ceiling), two keyword-only: label=scale*sum(k*ak)."),
		godlpack.Func("kwonly", kwonly, "x", "ddof", "*", "center", "scale", "clip").
			Default("ddof", 0).Default("center", true).Default("scale", 1.0).Default("clip", nil).
			Doc("x and its parameters echoed as a dict (keyword-only ones after *)."),
		godlpack.Func("f32", f32, "x").Doc("x as a float32, back as a float."),
		godlpack.Func("conj", conj, "z").Doc("The conjugate of a complex number."),
		godlpack.Func("upper", upper, "data").Doc("bytes in, the ASCII upper case bytes out."),
		godlpack.Func("sorted_floats", sortedFloats, "xs").Doc("list[float] in, sorted list out."),
		godlpack.Func("lengths", lengths, "words").Doc("dict[str, list[str]] in, dict[str, int] out."),
		godlpack.Func("or_default", orDefault, "x").Default("x", nil).Doc("*float64: None or absent is -1."),
		godlpack.Func("divmod_", divmod, "a", "b").Doc("Two results and an error: a tuple."),
		godlpack.Func("check", check, "ok").Doc("Returns only an error: None or ValueError."),
		godlpack.Func("nothing", nothing).Doc("Returns nothing: None."),
		godlpack.Func("type_of", typeOf, "x").Doc("x converted to Go (any): its Go type's name."),
		godlpack.Func("call_it", callIt, "fn", "arg").Doc("fn(arg) through *godlpack.Object."),
		godlpack.Func("echo_any", echoAny, "x").Doc("x converted to Go and back (any)."),
		godlpack.Func("selfish", selfish, "how").
			Doc("A Go value holding itself, returned as any (how: map, list, deep, pointer)."),
		godlpack.Func("selfish_to_callback", selfishToCallback, "fn", "how").
			Doc("fn(selfish(how)): the Go value holding itself as a callback's argument."),
		godlpack.Func("selfish_from_go", selfishFromGo, "how").
			Doc("godlpack.FromGo(selfish(how)): its error's text, or the object made."),
		godlpack.Func("keyed", keyed, "how").
			Doc("A Go map whose keys are not strings, returned as any (how names which)."),
		godlpack.Func("keyed_to_callback", keyedToCallback, "fn").
			Doc("fn(map[int]string{1: \"one\", 2: \"two\"}): a map with int keys as a callback's argument."),
		godlpack.Func("int_keys", func() map[int]string { return map[int]string{1: "one", 2: "two"} }).
			Doc("A map[int]string result: a dict with int keys."),
		godlpack.Overload("fit",
			godlpack.Func("fit", func(x int8) string { return fmt.Sprint("int8 ", x) }, "x"),
			godlpack.Func("fit", func(x int64) string { return fmt.Sprint("int64 ", x) }, "x"),
			godlpack.Func("fit", func(x float64) string { return fmt.Sprint("float64 ", x) }, "x"),
		),
		godlpack.Overload("fit_list",
			godlpack.Func("fit_list", func(xs []int8) string { return fmt.Sprint("int8 ", xs) }, "xs"),
			godlpack.Func("fit_list", func(xs []int64) string { return fmt.Sprint("int64 ", xs) }, "xs"),
			godlpack.Func("fit_list", func(xs []float64) string { return fmt.Sprint("float64 ", xs) }, "xs"),
		),
		godlpack.Overload("fit_bag",
			godlpack.Func("fit_bag", func(b *Bag, n int) int { return b.Len() + n }, "bag", "n"),
			godlpack.Func("fit_bag", maybeBag, "bag").Default("bag", nil),
		),
		godlpack.Overload("fit_tensor",
			godlpack.Func1("fit_tensor", func(x godlpack.Tensor[float32]) (string, error) { return "float32", nil }, "x"),
			godlpack.Func1("fit_tensor", func(x godlpack.Tensor[float64]) (string, error) { return "float64", nil }, "x"),
		),
		godlpack.Func("kwreq", func(a, b int) int { return a + b }, "a", "*", "b").
			Doc("a + b, b keyword-only with no default."),
		godlpack.Func2("scaled_like", scaledLike, "x", "k").ResultLike("x").
			Doc("x * k for a float64 x (a float32 one: a TypeError of the function), in x's framework."),
		godlpack.Func1("read_only_like", readOnlyLike, "x").ResultIn(godlpack.JAX).
			Doc("A read-only copy of x's float64s (Keep of a read-only x), as a JAX array."),
	)
}

func main() {}

func widths(i8 int8, i16 int16, i32 int32, u8 uint8, u16 uint16, u32 uint32, u64 uint64, u uint) string {
	return fmt.Sprint(i8, i16, i32, u8, u16, u32, u64, u)
}

func twenty(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17 int64,
	scale float64, label string) string {
	sum := int64(0)
	for k, a := range []int64{a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17} {
		sum += int64(k) * a
	}
	return fmt.Sprintf("%s=%g", label, scale*float64(sum))
}

func many(a, b, c, d, e, f, g, h, i, j int) int {
	return a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h + 9*i + 10*j
}

func kwonly(x float64, ddof int, center bool, scale float64, clip *float64) map[string]any {
	out := map[string]any{"x": x, "ddof": ddof, "center": center, "scale": scale, "clip": nil}
	if clip != nil {
		out["clip"] = *clip
	}
	return out
}

func f32(x float32) float32 { return x }

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }

func upper(data []byte) []byte { return []byte(strings.ToUpper(string(data))) }

func sortedFloats(xs []float64) []float64 {
	out := append([]float64(nil), xs...)
	sort.Float64s(out)
	return out
}

func lengths(words map[string][]string) map[string]int {
	out := map[string]int{}
	for k, v := range words {
		out[k] = len(v)
	}
	return out
}

func orDefault(x *float64) float64 {
	if x == nil {
		return -1
	}
	return *x
}

func divmod(a, b int64) (int64, int64, error) {
	if b == 0 {
		return 0, 0, godlpack.ZeroDivisionError.Errorf("divmod_(): b is zero")
	}
	return a / b, a % b, nil
}

func check(ok bool) error {
	if !ok {
		return errors.New("check(): not ok")
	}
	return nil
}

func nothing() {}

func typeOf(x any) string { return fmt.Sprintf("%T", x) }

func callIt(fn *godlpack.Object, arg float64) (any, error) {
	r, err := fn.Call(arg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Go()
}

func echoAny(x any) any { return x }

// Bag is a bound class with the optional dunders.
type Bag struct {
	mu    sync.Mutex
	items []string
}

func newBag(items []string) *Bag { return &Bag{items: append([]string(nil), items...)} }

func (b *Bag) Len() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.items) }

func (b *Bag) Items() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.items...)
}

func (b *Bag) Equal(other *Bag) bool { return slices.Equal(b.Items(), other.Items()) }

func (b *Bag) Push(item string) { b.mu.Lock(); defer b.mu.Unlock(); b.items = append(b.items, item) }

func (b *Bag) Copy() *Bag { return newBag(b.Items()) }

func (b *Bag) First() *string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.items) == 0 {
		return nil
	}
	return &b.items[0]
}

// Sealed has no constructor: Python cannot make one, make_sealed can.
type Sealed struct{ n int }

// Gauge's atomic fields are read by Python from C (AtomicProperty); label and
// the padding put Go pointers and other fields around them in the pinned value.
type Gauge struct {
	label string
	i64   atomic.Int64
	_     [3]byte
	u64   atomic.Uint64
	i32   atomic.Int32
	more  []int
	u32   atomic.Uint32
	on    atomic.Bool
}

func newGauge(start int64) (*Gauge, error) {
	g := &Gauge{label: fmt.Sprint("gauge ", start), more: make([]int, 3)}
	g.i64.Store(start)
	g.u64.Store(1 << 63)
	g.i32.Store(-5)
	g.u32.Store(3_000_000_000)
	return g, nil
}

// Bump runs n rounds of 4 goroutines, each changing every field once.
func (g *Gauge) Bump(n int64) {
	for range n {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				g.i64.Add(1)
				g.u64.Add(1)
				g.i32.Add(-1)
				g.u32.Add(1)
				g.on.Store(true)
			})
		}
		wg.Wait()
	}
}

func maybeBag(b *Bag) int {
	if b == nil {
		return -1
	}
	return b.Len()
}

func callOnGoroutine(fn func(float64) (float64, error), x float64) (float64, error) {
	type result struct {
		v   float64
		err error
	}
	done := make(chan result)
	go func() {
		v, err := fn(x)
		done <- result{v, err}
	}()
	r := <-done
	return r.v, r.err
}

func callN(fn func(int) error, n int) (int, error) {
	for i := range n {
		if err := fn(i); err != nil {
			return i, fmt.Errorf("call_n(): at %d: %w", i, err)
		}
	}
	return n, nil
}

// wrapCallbackError returns fn's error (a *godlpack.PythonError) as it is or wrapped
// with %w, naming the type of the Python exception errors.As finds in the wrapped error
// (tests/test_goext_func.py: the note it is raised with).
func wrapCallbackError(fn func() error, wrap bool) error {
	err := fn()
	if err == nil || !wrap {
		return err
	}
	var pe *godlpack.PythonError
	if !errors.As(fmt.Errorf("wrapped: %w", err), &pe) {
		return godlpack.RuntimeError.Errorf("wrap_callback_error(): errors.As found no *godlpack.PythonError in %v", err)
	}
	return fmt.Errorf("wrap_callback_error(): errors.As found a %s: %w", pe.Type, err)
}

// Tally holds a map property: its setter converts a dict (tests/test_free_threading.py's
// concurrent writers).
type Tally struct {
	mu     sync.Mutex
	counts map[string]int
}

func (t *Tally) Counts() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts
}

func (t *Tally) SetCounts(c map[string]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts = c
}

// selfish is a Go value holding itself, directly or deeper.
func selfish(how string) any {
	switch how {
	case "map":
		m := map[string]any{"k": 1}
		m["self"] = m
		return m
	case "list":
		l := []any{1, nil}
		l[1] = l
		return l
	case "deep": // a list in a map in a list... back to the first
		l := []any{nil}
		m := map[string]any{"l": l}
		l[0] = []any{map[string]any{"m": m}}
		return m
	case "pointer":
		var x any
		x = &x
		return x
	case "tuple": // a result Tuple holding itself
		t := godlpack.Tuple{1, nil}
		t[1] = t
		return t
	case "typed": // a named map type holding itself
		type node map[string]any
		n := node{}
		n["next"] = n
		return n
	}
	return nil
}

func selfishToCallback(fn func(any) error, how string) error { return fn(selfish(how)) }

func selfishFromGo(how string) (string, error) {
	o, err := godlpack.FromGo(selfish(how))
	if err != nil {
		return err.Error(), nil
	}
	defer o.Close()
	return "made " + o.String(), nil
}

func keyed(how string) any {
	switch how {
	case "int":
		return map[int]string{1: "one", 2: "two", 3: "three"}
	case "uint8":
		return map[uint8]bool{0: false, 255: true}
	case "float":
		return map[float64]int{0.5: 1, -2: 2}
	case "bool":
		return map[bool]string{true: "yes", false: "no"}
	case "complex":
		return map[complex128]int{1 + 2i: 3}
	case "any":
		return map[any]any{"s": 1, int32(2): "two", nil: "none", 2.5: []any{map[int]int{1: 1}}}
	case "nested":
		return map[string]any{"inner": map[int64]string{-1: "minus one"}}
	case "array":
		return map[[2]int]string{{1, 2}: "a", {3, 4}: "b"}
	case "pointer":
		one := 1
		return map[*int]string{&one: "p"}
	case "any_array":
		return map[any]int{"ok": 1, [2]int{1, 2}: 2}
	case "collide":
		return map[any]string{int64(1): "int64", 1.0: "float64"}
	}
	return nil
}

func keyedToCallback(fn func(any) error) error {
	return fn(map[int]string{1: "one", 2: "two"})
}

func scaledLike(x godlpack.Tensor[godlpack.AnyFloat], k float64) (*tensor.Tensor, error) {
	if x.DType() != dlpack.DTypeOf[float64]() {
		return nil, godlpack.TypeError.Errorf("scaled_like(): x must be float64, got %s", x.DType().Name)
	}
	s, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = v * k
	}
	return tensor.FromSlice(out, int64(len(out)))
}

func readOnlyLike(x godlpack.Tensor[float64]) (*tensor.Tensor, error) {
	s, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return nil, err
	}
	t, err := tensor.FromSlice(append([]float64(nil), s...), int64(len(s)))
	if err != nil {
		return nil, err
	}
	t.SetReadOnly()
	return t, nil
}

// runningCountdowns counts the countdown sequences running: an abandoned
// Python iterator must end its sequence (its deferred calls run).
var runningCountdowns atomic.Int64

// countdown yields n-1 down to 0; a negative n panics at the first item (a Go
// panic inside a sequence: RuntimeError at next()).
func countdown(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		runningCountdowns.Add(1)
		defer runningCountdowns.Add(-1)
		if n < 0 {
			panic("countdown of a negative n")
		}
		for i := n - 1; i >= 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

func pairs(words []string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, w := range words {
			if !yield(i, w) {
				return
			}
		}
	}
}

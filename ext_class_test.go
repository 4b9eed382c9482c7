//go:build !godlpack_python

package godlpack

// ext_class_test.go: the Go half of a creation, Cls(...) as
// Python's call reaches it: the constructor's converted arguments in, an
// instance-table id out, and the id's release at dealloc; Check's rules for
// static and class methods (ClassDef.StaticMethod, ClassMethod), for
// IntEnumFor types and for Go iterator results (iter.Seq, iter.Seq2), the Go
// half of an IntEnumFor parameter and result (tests/test_streamstats.py has the
// Python half) and of a lazy iterator's pulls (tests/test_streamstats_protocols.py).

import (
	"errors"
	"iter"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

type createProbe struct {
	bins   uint16
	lo, hi float64
}

var createProbeInit = Class[createProbe]("CreateProbe", "").Init(
	Func3("CreateProbe", func(bins uint16, lo, hi float64) (*createProbe, error) {
		return &createProbe{bins: bins, lo: lo, hi: hi}, nil
	}, "bins", "lo", "hi").Default("lo", 0.0).Default("hi", 1.0))

// createAndRelease runs the constructor as goExtCall does with the arguments C
// converted (bins=10, the defaults lo=0, hi=1) into res (C memory in a call:
// made once here) and releases the id it made.
func createAndRelease(tb testing.TB, args []extArg, res *extResult) {
	*res = extResult{}
	if err := createProbeInit.call(args, res); err != nil || res.kind != extRInstance || res.i == 0 {
		tb.Fatalf("the constructor: %v, result kind %d, id %d", err, res.kind, res.i)
	}
	releaseInstanceIDs([]uintptr{uintptr(res.i)})
}

func createProbeArgs() []extArg {
	args := make([]extArg, 3)
	args[0].i, args[1].f, args[2].f = 10, 0, 1
	return args
}

// A creation allocates in Go the author's value and nothing else: no closure,
// boxed argument or result, no table entry (the id is a slot of the table).
func TestConstructorAllocatesOnlyTheValue(t *testing.T) {
	args, res := createProbeArgs(), new(extResult)
	if n := testing.AllocsPerRun(1000, func() { createAndRelease(t, args, res) }); n != 1 {
		t.Fatalf("a constructor's call and its id's release: %v allocations, want 1 (the value)", n)
	}
}

func BenchmarkConstructorCallAndRelease(b *testing.B) {
	args, res := createProbeArgs(), new(extResult)
	b.ReportAllocs()
	for b.Loop() {
		createAndRelease(b, args, res)
	}
}

// Init's plain constructors of up to three int64, int, float64, string or bool
// parameters (keyword-only ones and defaults included) are called with no
// reflection: ctorShapes' typed calls, which allocate the value and nothing else
// (Func's reflective call boxes every argument and result: 7 allocations more).

type opts struct {
	n     int64
	scale float64
	name  string
	on    bool
}

var (
	optsC    = Class[opts]("Opts", "")
	optsInit = optsC.Init(func(n int64, scale float64, name string) (*opts, error) {
		if n < 0 {
			return nil, errors.New("n must be >= 0")
		}
		return &opts{n: n, scale: scale, name: name}, nil
	}, "n", "*", "scale", "name").Default("scale", 1.0).Default("name", "x")
	flagC    = Class[flag]("Flag", "")
	flagInit = flagC.Init(func(on bool, n int) *flag { return &flag{opts{n: int64(n), on: on}} }, "on", "n")
	// a parameter type outside ctorShapes' (uint16): Func's reflective call
	wideC    = Class[wide]("Wide", "")
	wideInit = wideC.Init(func(n uint16) *wide { return &wide{n} }, "n")
)

type flag struct{ opts }

type wide struct{ n uint16 }

func init() { Module("gocall_init_typed", "", optsC, flagC, wideC) }

// made calls a constructor as goExtCall does, into res (C memory in a call: made
// once here), and returns its Go value, releasing its id.
func made[T any](tb testing.TB, f *Function, args []extArg, res *extResult) *T {
	*res = extResult{}
	if err := f.call(args, res); err != nil || res.kind != extRInstance {
		tb.Fatalf("%s: %v, result kind %d", f.name, err, res.kind)
	}
	v := (*T)(instanceValue(uintptr(res.i)))
	releaseInstanceIDs([]uintptr{uintptr(res.i)})
	return v
}

func TestInitCallsScalarConstructorsWithoutReflection(t *testing.T) {
	if err := Check("gocall_init_typed"); err != nil {
		t.Fatalf("Check(gocall_init_typed): %v", err)
	}
	if optsInit.kwOnly != 1 {
		t.Errorf("Opts's keyword-only parameters start at %d, want 1", optsInit.kwOnly)
	}
	got, err := optsInit.Call(3, Kw{"scale": 2.0})
	if o, _ := got.(*opts); err != nil || o == nil || *o != (opts{n: 3, scale: 2, name: "x"}) {
		t.Errorf("Opts(3, scale=2.0) = %v, %v; want n=3 scale=2 name=x", got, err)
	}
	if _, err := optsInit.Call(3, 2.0); err == nil || !strings.Contains(err.Error(), "takes 1 positional argument but 2 were given") {
		t.Errorf("Opts(3, 2.0) = %v, want the keyword-only refusal", err)
	}
	if _, err := optsInit.Call(-1); err == nil || err.Error() != "n must be >= 0" {
		t.Errorf("Opts(-1) = %v, want the constructor's error", err)
	}
	if got, err := flagInit.Call(true, 7); err != nil || got.(*flag).on != true || got.(*flag).n != 7 {
		t.Errorf("Flag(True, 7) = %v, %v", got, err)
	}
	if got, err := wideInit.Call(9); err != nil || got.(*wide).n != 9 {
		t.Errorf("Wide(9) = %v, %v", got, err)
	}
	args := make([]extArg, 3)
	args[0].i, args[1].f = 3, 2
	args[2].s, args[2].slen = unsafe.StringData("x"), 1
	res := new(extResult)
	if o := made[opts](t, optsInit, args, res); *o != (opts{n: 3, scale: 2, name: "x"}) {
		t.Errorf("Opts's typed call made %+v", *o)
	}
	for _, c := range []struct {
		f    *Function
		args []extArg
		want float64
	}{
		{optsInit, args, 1},
		{flagInit, args[:2], 1},
		{wideInit, args[:1], 3}, // reflection's: boxed argument, argument and result slices
	} {
		if n := testing.AllocsPerRun(200, func() { made[byte](t, c.f, c.args, res) }); n != c.want {
			t.Errorf("%s's call: %v allocations, want %v", c.f.name, n, c.want)
		}
	}
}

// Func1..Func4 take "*" as Func does: every parameter form has the typed path.
var (
	scaledFn = Func2("scaled", func(x int64, k float64) (float64, error) { return float64(x) * k, nil },
		"x", "*", "k").Default("k", 2.0)
	starsFn = Func2("stars", func(x int64, k float64) (float64, error) { return 0, nil }, "x", "*k")
)

func init() {
	Module("gocall_kwonly_typed", "", scaledFn)
	Module("gocall_stars_typed", "", starsFn)
}

func TestTypedFunctionsTakeKeywordOnlyParameters(t *testing.T) {
	if err := Check("gocall_kwonly_typed"); err != nil {
		t.Fatalf("Check(gocall_kwonly_typed): %v", err)
	}
	if got, err := scaledFn.Call(3, Kw{"k": 0.5}); err != nil || got != 1.5 {
		t.Errorf("scaled(3, k=0.5) = %v, %v; want 1.5", got, err)
	}
	if got, err := scaledFn.Call(3); err != nil || got != 6.0 {
		t.Errorf("scaled(3) = %v, %v; want 6 (k's default)", got, err)
	}
	if _, err := scaledFn.Call(3, 0.5); err == nil || !strings.Contains(err.Error(), "takes 1 positional argument but 2 were given") {
		t.Errorf("scaled(3, 0.5) = %v, want the keyword-only refusal", err)
	}
	if err := Check("gocall_stars_typed"); err == nil || !strings.Contains(err.Error(), "*args and **kwargs need a variadic Go function") {
		t.Errorf("Check(gocall_stars_typed) = %v, want *k refused with the way to declare it", err)
	}
}

// A constructor made by Func0 to Func3 (ClassDef.Init of a Function):
// its narrow integer parameters, its *T result and the checks at
// registration.

type bins struct {
	n  uint16
	lo float64
}

func newBins(n uint16, lo float64) (*bins, error) { return &bins{n: n, lo: lo}, nil }

type misnamed struct{}

var (
	binsC    = Class[bins]("Bins", "")
	binsInit = binsC.Init(Func2("Bins", newBins, "n", "lo")).Default("lo", 0.5)
)

func init() {
	Module("gocall_initfunc", "", binsC)
	bad := Class[misnamed]("Misnamed", "")
	bad.Init(Func0("make", func() (*misnamed, error) { return &misnamed{}, nil }))
	Module("gocall_initfunc_bad", "", bad)
}

func TestInitFuncMakesAnInstanceWithoutReflection(t *testing.T) {
	if err := Check("gocall_initfunc"); err != nil {
		t.Fatalf("Check(gocall_initfunc): %v", err)
	}
	b, err := binsInit.Call(300)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.(*bins); got.n != 300 || got.lo != 0.5 {
		t.Errorf("Bins(300) = %+v, want n=300 lo=0.5 (the default)", got)
	}
	if n := liveInstanceIDs(); n != 0 {
		t.Errorf("LiveInstances() = %d after Call gave the *bins back to Go", n)
	}
	if _, err = binsInit.Call(70000); err == nil || !strings.Contains(err.Error(), "Bins(): argument n: 70000 is out of range for uint16 (0 to 65535)") {
		t.Errorf("Bins(70000) = %v, want the OverflowError of a uint16", err)
	}
}

func TestInitFuncChecksNameAndResult(t *testing.T) {
	err := Check("gocall_initfunc_bad")
	if err == nil || !strings.Contains(err.Error(), `the constructor of class Misnamed must be named "Misnamed" (got "make")`) {
		t.Errorf("Check(gocall_initfunc_bad) = %v, want the constructor's name refused", err)
	}
}

type staticProbe struct{ n int }

type probeMode int

const (
	probeOff probeMode = iota
	probeOn
)

func modeOf(m probeMode) (probeMode, error) { return m, nil }

func init() {
	c := Class[staticProbe]("StaticProbe", "")
	c.StaticMethod("twice", func(n int) int { return 2 * n }, "n")
	c.ClassMethod("make", func(cls *Object, n int) *staticProbe { return &staticProbe{n} }, "n")
	Module("static_ok", "", c,
		IntEnumFor[probeMode]("Mode", "").Value("OFF", int64(probeOff)).Value("ON", int64(probeOn)),
		Func("mode_of", modeOf, "m").Default("m", probeOn))

	bad := Class[struct{ x int }]("BadStatics", "")
	bad.ClassMethod("no_cls", func(n int) int { return n }, "n")
	bad.ClassMethod("cls_not_object", func(cls *staticProbe, n int) int { return n }, "n")
	bad.StaticMethod("__repr__", func() string { return "" })
	bad.ClassMethod("__len__", func(cls *Object) int { return 0 })
	bad.StaticMethod("names", func(a, b int) int { return a }, "a")
	bad.StaticMethod("fn", 3)
	bad.Def("dup", func(x *struct{ x int }) int { return 0 })
	bad.StaticMethod("dup", func() int { return 0 })
	Module("static_bad", "", bad)

	type notNamed = int
	Module("enum_bad", "",
		IntEnumFor[probeMode]("Again", "").Value("A", 0),
		IntEnumFor[notNamed]("Plain", ""),
		Func("mode_default", modeOf, "m").Default("m", probeMode(7)))
}

func TestCheckAcceptsStaticAndClassMethods(t *testing.T) {
	if err := Check("static_ok"); err != nil {
		t.Fatal(err)
	}
	if f := Lookup("static_ok", "StaticProbe.twice"); f == nil || f.methodKind != extStaticMethod {
		t.Fatalf("StaticProbe.twice: %v", f)
	}
	if f := Lookup("static_ok", "StaticProbe.make"); f == nil || f.methodKind != extClassMethod || f.params[0].name != "cls" {
		t.Fatalf("StaticProbe.make: %v", f)
	}
}

func TestCheckRefusesBadStaticAndClassMethods(t *testing.T) {
	err := Check("static_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		"no_cls(): ClassMethod: the first parameter must be the class it is called on, a *godlpack.Object",
		"cls_not_object(): ClassMethod: the first parameter must be the class it is called on",
		"__repr__(): StaticMethod: __repr__ cannot be a special method (BadStatics): declare it with Def",
		"__len__(): ClassMethod: __len__ cannot be a special method (BadStatics)",
		"names(): the Go function has 2 parameters but 1 names were given",
		"fn(): Func needs a non-nil Go function, got int",
		`BadStatics: two methods are named "dup"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

func TestCheckRefusesBadEnums(t *testing.T) {
	err := Check("enum_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		`IntEnumFor[godlpack.probeMode]("Again"): the Go type is bound twice (as Mode and Again)`,
		`IntEnumFor[int]("Plain"): bind a named integer type of the package`,
		"mode_default(): the default 7 of parameter m is not a member of Mode (OFF=0, ON=1)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

// An IntEnumFor parameter takes its members' values only (ValueError
// otherwise), and its result is written as the enum's (C makes the member).
func TestEnumParameterAndResult(t *testing.T) {
	f := Lookup("static_ok", "mode_of")
	args := make([]extArg, 1)
	args[0].i = 1
	var res extResult
	if err := f.call(args, &res); err != nil || res.kind != extREnum || res.i != 1 || res.n != cInt64(boundEnums[f.params[0].goType].id) {
		t.Fatalf("mode_of(1): %v, result kind %d, value %d, enum %d", err, res.kind, res.i, res.n)
	}
	args[0].i = 2
	err := f.call(args, &res)
	if err == nil || !strings.Contains(err.Error(), "mode_of(): argument m: 2 is not a member of Mode (OFF=0, ON=1)") {
		t.Fatalf("mode_of(2): %v", err)
	}
	var exc *exceptionError
	if !errors.As(err, &exc) || exc.kind != ValueError {
		t.Fatalf("mode_of(2): %T %v, want a ValueError", err, err)
	}
	if got := f.signature(); got != "mode_of(m=Mode.ON)" {
		t.Fatalf("signature %q", got)
	}
}

type seqProbe struct{ n int }

// seqBin is yielded as the tuple of its fields; seqHidden cannot be (a field
// Python cannot see).
type seqBin struct {
	Lo, Hi float64
	Count  int64
}

type seqHidden struct {
	Lo    float64
	count int64
}

// seqRunning counts the probe sequences running: a stopped one must end.
var seqRunning sync.WaitGroup

func (p *seqProbe) bins() iter.Seq[seqBin] {
	return func(yield func(seqBin) bool) {
		seqRunning.Add(1)
		defer seqRunning.Done()
		for i := range p.n {
			if !yield(seqBin{float64(i), float64(i + 1), int64(10 * i)}) {
				return
			}
		}
	}
}

func init() {
	c := Class[seqProbe]("SeqProbe", "")
	c.Def("__iter__", (*seqProbe).bins)
	c.Def("pairs", func(p *seqProbe) iter.Seq2[int, string] {
		return func(yield func(int, string) bool) { yield(p.n, "n") }
	})
	Module("seq_ok", "", c)

	type badSeq struct{ y int }
	bad := Class[badSeq]("BadSeq", "")
	bad.Def("__iter__", func(*badSeq) iter.Seq[seqHidden] { return nil })
	bad.Def("chans", func(*badSeq) iter.Seq[chan int] { return nil })
	Module("seq_bad", "", bad)

	type bufProbe struct{ data []int32 }
	buf := Class[bufProbe]("BufProbe", "")
	buf.Buffer(func(p *bufProbe) []int32 { return p.data })
	Module("buffer_ok", "", buf)
	type badBuf struct{ data []int64 }
	bb := Class[badBuf]("BadBuf", "")
	bb.Def("__getbuffer__", func(*badBuf, int) int { return 0 }, "flags")
	bb.Buffer(func(p *badBuf) []int64 { return p.data })
	bb.Buffer(func(p *badBuf) []int64 { return p.data })
	bb.Buffer(func(p *badBuf) []string { return nil })
	bb.Buffer(func(p *bufProbe) []int64 { return nil })
	Module("buffer_bad", "", bb)
}

type pickleProbe struct{ n int }

func init() {
	c := Class[pickleProbe]("PickleProbe", "")
	c.Init(func(n int) *pickleProbe { return &pickleProbe{n} }, "n")
	c.Pickle(func(p *pickleProbe) Tuple { return Tuple{p.n} }, func(n int) (*pickleProbe, error) { return &pickleProbe{n}, nil }, "n")
	Module("pickle_ok", "", c)

	type noInit struct{ n int }
	ni := Class[noInit]("NoInit", "")
	ni.Pickle(func(p *noInit) Tuple { return nil }, func() *noInit { return nil })
	type badPickle struct{ n int }
	bp := Class[badPickle]("BadPickle", "")
	bp.Init(func() *badPickle { return nil })
	bp.Def("__setstate__", func(*badPickle, Tuple) {}, "state")
	bp.Pickle(func(p *pickleProbe) Tuple { return nil }, func(n int) int { return n }, "n")
	Module("pickle_bad", "", ni, bp)
}

func TestCheckRefusesBadPickling(t *testing.T) {
	if err := Check("pickle_ok"); err != nil {
		t.Fatal(err)
	}
	f := Lookup("pickle_ok", "PickleProbe.__getstate__")
	if got, err := f.Call(&pickleProbe{7}); err != nil || !reflect.DeepEqual(got, Tuple{int64(7)}) && !reflect.DeepEqual(got, Tuple{7}) {
		t.Fatalf("__getstate__: %v %v", got, err)
	}
	err := Check("pickle_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		"NoInit: Pickle needs Init: unpickling makes the instance as NoInit.__new__ does, which a class without a constructor refuses",
		"__setstate__(): __setstate__ must give the instance its Go value: declare pickling with ClassDef.Pickle(state, restore)",
		"__getstate__(): the first parameter must be the instance, a *godlpack.badPickle",
		"__setstate__(): Pickle: restore must return *godlpack.badPickle or (*godlpack.badPickle, error)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

func TestCheckRefusesBufferMethodsAndBadBuffers(t *testing.T) {
	if err := Check("buffer_ok"); err != nil {
		t.Fatal(err)
	}
	err := Check("buffer_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		"__getbuffer__(): the buffer protocol is C slots, not a method: declare the view with ClassDef.Buffer(func(*T) []E)",
		"__buffer__(): Buffer is declared twice for class BadBuf",
		"__buffer__(): Buffer takes a func(*T) []E, E a sized integer or float type (int8...uint64, float32, float64); got func(*godlpack.badBuf) []string",
		"__buffer__(): the first parameter must be the instance, a *godlpack.badBuf",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

// A view's slice is its own memory (zero-copy), pinned until the view's
// release; an empty slice has nothing to pin.
func TestBufferExportPinsTheSliceItself(t *testing.T) {
	type bufProbe = struct{ data []int32 }
	var c *ClassDef
	for _, k := range classList {
		if k.name == "BufProbe" {
			c = k
		}
	}
	v := &bufProbe{data: []int32{1, 2, 3}}
	addr, n, token := c.buffer.export(unsafe.Pointer(v))
	if addr != unsafe.Pointer(&v.data[0]) || n != 3 || token == 0 || c.buffer.format != "i" || c.buffer.itemsize != 4 {
		t.Fatalf("export: %p (want %p), %d, token %d, format %q, itemsize %d", addr, &v.data[0], n, token, c.buffer.format, c.buffer.itemsize)
	}
	if _, pinned := bufferPins.Load(token); !pinned {
		t.Fatal("the view's slice is not pinned")
	}
	releaseBuffer(token)
	if _, pinned := bufferPins.Load(token); pinned {
		t.Fatal("the release left the pin")
	}
	if addr, n, token := c.buffer.export(unsafe.Pointer(&bufProbe{})); addr != nil || n != 0 || token != 0 {
		t.Fatalf("an empty slice's export: %p %d %d", addr, n, token)
	}
}

func TestCheckAcceptsGoIteratorResults(t *testing.T) {
	if err := Check("seq_ok"); err != nil {
		t.Fatal(err)
	}
	f := Lookup("seq_ok", "SeqProbe.__iter__")
	got, err := f.Call(&seqProbe{n: 2}) // a go test gets the Go iterator itself
	if err != nil {
		t.Fatal(err)
	}
	var bins []seqBin
	for b := range got.(iter.Seq[seqBin]) {
		bins = append(bins, b)
	}
	if want := []seqBin{{0, 1, 0}, {1, 2, 10}}; !reflect.DeepEqual(bins, want) {
		t.Fatalf("SeqProbe.__iter__: %v, want %v", bins, want)
	}
}

func TestCheckRefusesGoIteratorsOfUnconvertibleItems(t *testing.T) {
	err := Check("seq_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		"__iter__(): result: the iterator's items of type godlpack.seqHidden are written as a tuple of its fields: field count is not exported",
		"chans(): result: unsupported type chan int",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

// pullOne pulls p's next item as Python's next() does, reading the tuple C
// would get (false: the end or an error).
func pullOne(t *testing.T, p *pulledSeq) (seqBin, bool) {
	var r extResult
	more, err := p.next(&r)
	if err != nil || !more {
		return seqBin{}, false
	}
	if r.kind != extRTuple || r.n != 3 {
		t.Errorf("an item: kind %d, %d items; want a tuple of 3", r.kind, r.n)
		return seqBin{}, false
	}
	items := unsafe.Slice((*extResult)(r.p), 3)
	return seqBin{float64(items[0].f), float64(items[1].f), int64(items[2].i)}, true
}

func probePull(n int) *pulledSeq {
	f := Lookup("seq_ok", "SeqProbe.__iter__")
	seq := reflect.ValueOf((&seqProbe{n: n}).bins())
	return newPulledSeq(f, seq, seqItemWriter(f, seqElems(seq.Type())))
}

// A pulled sequence yields its items one next() at a time, from goroutines
// taking turns (two Python threads' next(), free-threaded: go test -race), each
// item once; stopped halfway, it ends (its deferred calls run) and leaves no
// goroutine behind.
func TestPulledSequenceTakesTurnsAndStops(t *testing.T) {
	p := probePull(1000)
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				b, ok := pullOne(t, p)
				if !ok {
					return
				}
				mu.Lock()
				seen[b.Count]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 1000 {
		t.Fatalf("%d distinct items, want 1000", len(seen))
	}
	for c, n := range seen {
		if n != 1 {
			t.Fatalf("item %d pulled %d times", c, n)
		}
	}
	half := probePull(10)
	if b, ok := pullOne(t, half); !ok || b != (seqBin{0, 1, 0}) {
		t.Fatalf("the first item: %v %v", b, ok)
	}
	half.stop()
	seqRunning.Wait() // returns only once every probe sequence has ended
	if _, ok := pullOne(t, half); ok {
		t.Fatal("a stopped sequence yielded again")
	}
	probePull(3).stop() // never started: nothing to end
}

package godlpack

// ext_result.go: how a function's Go result is written for C to build the Python
// result. No build tag and no C (ext_cpython.go has the C memory).

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// None is the result type of a function that returns None to Python.
type None struct{}

// Tuple is a result returned to Python as a tuple; its items are any of the
// result types.
type Tuple []any

// resultWriter chooses, once, how f's result R is written for C to build: nil
// for None, which needs nothing written (write makes no call then).
func resultWriter[R any](f *Function) func(R, *extResult) error {
	var zero R
	var w any
	f.result = reflect.TypeFor[R]()
	switch any(zero).(type) {
	case None:
		return nil
	case *tensor.Tensor:
		w = writeTensor
	case float64:
		w = func(v float64, r *extResult) error {
			r.kind, r.f = extRFloat, cDouble(v)
			return nil
		}
	case int64:
		w = func(v int64, r *extResult) error {
			r.kind, r.i = extRInt, cInt64(v)
			return nil
		}
	case int:
		w = func(v int, r *extResult) error {
			r.kind, r.i = extRInt, cInt64(v)
			return nil
		}
	case string:
		w = func(v string, r *extResult) error {
			writeStr(r, v)
			return nil
		}
	case bool, Tuple:
		w = func(v R, r *extResult) error { return writeValue(any(v), r) }
	default:
		if t := reflect.TypeFor[R](); isInstanceType(t) { // a bound class's *T: a new instance
			f.classTypes = append(f.classTypes, t) // its class is resolved at import
			iw := instancePointerWriter(t)
			w = func(v R, r *extResult) error {
				p := *(*unsafe.Pointer)(unsafe.Pointer(&v)) // R is a pointer type (isInstanceType)
				if p == nil {
					return nil // None
				}
				return iw(p, r)
			}
			break
		}
		if sa, ok := sliceArrays[reflect.TypeFor[R]()]; ok { // []E: a list, or an array (sliceArray)
			w = func(v R, r *extResult) error {
				if !f.arraysInFramework() {
					return writeValue(any(v), r)
				}
				// R is sa's []E: its elements read through the slice header, not
				// boxed in an any (an allocation, ~6% of a 10-element result)
				e := *(*[]byte)(unsafe.Pointer(&v)) // len: the element count
				return sa.writeAt(unsafe.Pointer(unsafe.SliceData(e)), len(e), r)
			}
			break
		}
		if t := reflect.TypeFor[R](); t.Kind() != reflect.Interface || t.NumMethod() != 0 {
			f.fail("unsupported result type %v (use *tensor.Tensor, None, int64, int, float64, bool, string, Tuple, a bound class's *T or any)", t)
		}
		w = func(v R, r *extResult) error { return writeValue(any(v), r) }
	}
	return w.(func(R, *extResult) error)
}

// write writes r with w, a resultWriter's (nil: None, nothing to write).
func write[R any](w func(R, *extResult) error, r R, res *extResult) error {
	if w == nil {
		return nil
	}
	return w(r, res)
}

func writeTensor(t *tensor.Tensor, r *extResult) error {
	if t == nil {
		return nil // None
	}
	m, err := t.Export() // C memory, handed to the new godlpack.Array
	if err != nil {
		return err
	}
	r.kind, r.p = extRArray, m
	return nil
}

// A sliceArray is how a []E result is written, E a DLPack element type: a list,
// as every slice result, except where the function returns its arrays in a
// framework (ResultIn, ResultLike), where it is a 1-D array of E viewing the
// slice without a copy (tensor.FromSlice pins it until the array is released;
// a slice of at most copiedSliceBytes is copied instead, which costs less).
// Its dtype is then known from the Go type, so the stub types the result with
// it (numpy.ndarray[Any, numpy.dtype[numpy.int64]]), which a *tensor.Tensor's
// cannot (tests/test_goext_stubs.py's test_mypy_strict_on_every_streamstats_name).
type sliceArray struct {
	dtype string // the dtype's name
	// numpy is the dtype as a NumPy result written in the call's result takes it
	// (writeNumPySmall; -1: a dtype NumPy has not), size an element's bytes
	numpy int64
	size  int
	// header is the []E's first element and length
	header func(s any) (unsafe.Pointer, int)
	// at is sliceTensor of the []E of n elements at p (a result's, read with no boxing)
	at func(p unsafe.Pointer, n int) (*tensor.Tensor, error)
}

// sliceArrays are the sliceArray of each []E, by the slice's type.
var sliceArrays = func() map[reflect.Type]sliceArray {
	m := map[reflect.Type]sliceArray{}
	addSliceArray[bool](m)
	addSliceArray[int8](m)
	addSliceArray[int16](m)
	addSliceArray[int32](m)
	addSliceArray[int64](m)
	addSliceArray[uint8](m)
	addSliceArray[uint16](m)
	addSliceArray[uint32](m)
	addSliceArray[uint64](m)
	addSliceArray[float32](m)
	addSliceArray[float64](m)
	addSliceArray[complex64](m)
	addSliceArray[complex128](m)
	addSliceArray[dlpack.BFloat16](m)
	addSliceArray[dlpack.Float16](m)
	return m
}()

func addSliceArray[E dlpack.Element](m map[reflect.Type]sliceArray) {
	dt := dlpack.DTypeOf[E]()
	numpy := int64(dt.DL.Code) | int64(dt.DL.Bits)<<8
	if dt.DL.Code == dlpack.CodeBfloat {
		numpy = -1
	}
	m[reflect.TypeFor[[]E]()] = sliceArray{dt.Name, numpy, int(unsafe.Sizeof(*new(E))),
		func(s any) (unsafe.Pointer, int) { e := s.([]E); return unsafe.Pointer(unsafe.SliceData(e)), len(e) },
		func(p unsafe.Pointer, n int) (*tensor.Tensor, error) { return sliceTensor(unsafe.Slice((*E)(p), n)) }}
}

// copiedSliceBytes is the largest []E result copied into C memory rather than
// viewed: pinning a slice (runtime.Pinner, its entry, its sweep) cost ~400 ns of a
// 10-element h.counts()'s ~800 (perf, 2026-11-30), a copy of 1 KiB ~30 ns; a larger
// one is viewed with no copy, as the docs promise.
const copiedSliceBytes = 1024

// sliceTensor is the tensor of e, a []E result: its copy in C memory when small,
// else a view of it (tensor.FromSlice).
func sliceTensor[E dlpack.Element](e []E) (*tensor.Tensor, error) {
	if len(e) == 0 || len(e)*int(unsafe.Sizeof(e[0])) > copiedSliceBytes {
		return tensor.FromSlice(e)
	}
	t, c, err := tensor.Uninitialized[E](int64(len(e)))
	if err != nil {
		return nil, err
	}
	copy(c, e)
	return t, nil
}

// write writes s, a []E result of f: an array where f's arrays are in a
// framework, else a list.
func (sa sliceArray) write(f *Function, s any, r *extResult) error {
	if !f.arraysInFramework() {
		return writeValue(s, r)
	}
	p, n := sa.header(s)
	return sa.writeAt(p, n, r)
}

// writeAt writes the []E of n elements at p as an array result: inside r where
// a NumPy array is wanted and it fits (writeNumPySmall), else a tensor.
func (sa sliceArray) writeAt(p unsafe.Pointer, n int, r *extResult) error {
	if writeNumPySmall(r, p, n*sa.size, n, sa.numpy) {
		return nil
	}
	t, err := sa.at(p, n)
	if err != nil {
		return err
	}
	return writeTensor(t, r)
}

// arraysInFramework reports whether f returns its arrays in a framework
// (ResultIn, ResultLike) rather than as godlpack.Arrays.
func (f *Function) arraysInFramework() bool {
	return f.resultLike >= 0 || Framework(f.resultFw) != GodlpackArrays
}

// resultDType is the dtype of f's result where it is a sliceArray's array
// ("" otherwise): what its stub and typed signature add to the array type.
func (f *Function) resultDType() string {
	if sa, ok := sliceArrays[f.result]; ok && f.arraysInFramework() {
		return sa.dtype
	}
	return ""
}

// writeValue writes a result whose type is known only now (Tuple items, any).
func writeValue(v any, r *extResult) error { return writeValueAt(v, r, 0) }

// writeValueAt is writeValue of a Tuple's item depth tuples deep: a Tuple holding
// itself is refused at maxDepth.
func writeValueAt(v any, r *extResult, depth int) error {
	if depth > maxDepth {
		return errTooDeepResult
	}
	switch v := v.(type) {
	case nil, None:
		return nil
	case *tensor.Tensor:
		return writeTensor(v, r)
	case float64:
		r.kind, r.f = extRFloat, cDouble(v)
	case float32:
		r.kind, r.f = extRFloat, cDouble(v)
	case int:
		r.kind, r.i = extRInt, cInt64(v)
	case int64:
		r.kind, r.i = extRInt, cInt64(v)
	case int32:
		r.kind, r.i = extRInt, cInt64(v)
	case bool:
		r.kind, r.i = extRBool, 0
		if v {
			r.i = 1
		}
	case string:
		writeStr(r, v)
	case Tuple:
		items, err := newTuple(r, len(v))
		if err != nil {
			return err
		}
		for i, item := range v {
			if err := writeValueAt(item, &items[i], depth+1); err != nil {
				return err // the caller frees r, the items written so far included
			}
		}
	default:
		if _, ok := boundClasses[reflect.TypeOf(v)]; ok { // a bound class's *T: its instance
			return instanceWriter(reflect.TypeOf(v))(reflect.ValueOf(v), r)
		}
		// complex, []byte, []any, map[string]any, *Object: made in Go with the GIL
		return writeObject(reflect.ValueOf(v), r)
	}
	return nil
}

// maxDepth bounds the recursion of the conversions both ways (toGo, fromPython,
// toPython, plainValue, writeValueAt): a list or map holding itself must not
// overflow the stack.
const maxDepth = 100

// tooDeep says why a value nested past maxDepth is refused, either way.
var tooDeep = fmt.Sprintf("nested more than %d deep (or a container holding itself)", maxDepth)

// The TypeErrors of a value too deep for an extension function's results and
// arguments, one value each, so that the levels it passes back through (itemError)
// do not name their item a hundred times (object_convert.go has Object's).
var (
	errTooDeepResult = TypeError.Errorf("cannot pass a Go value %s to Python", tooDeep)
	errTooDeepArg    = TypeError.Errorf("cannot convert a Python value %s to Go", tooDeep)
)

// refuseBorrowed turns a result that is one of the call's borrowed tensors (an
// argument's AsTensor(), exported) into an error: its memory is the call's.
func refuseBorrowed(f *Function, args []extArg, r *extResult) {
	switch r.kind {
	case extRArray:
		for i := range args {
			if r.p == unsafe.Pointer(&args[i].m) {
				r.p = nil // not ours to delete
				writeError(r, ValueError, fmt.Sprintf("%s(): returned its borrowed argument %s; return a copy (Clone) or the tensor of Keep", f.name, f.paramOf(i).name))
				return
			}
		}
	case extRTuple:
		items := unsafe.Slice((*extResult)(r.p), int(r.n))
		for i := range items {
			refuseBorrowed(f, args, &items[i])
			if items[i].kind == extRError {
				msg := strings.Clone(unsafe.String((*byte)(items[i].p), int(items[i].n)))
				writeError(r, ValueError, msg)
				return
			}
		}
	}
}

// A Framework is an array library whose arrays a function may return
// (Function.ResultIn).
type Framework int32

// The frameworks (ext.h's GD_EXT_FW_*).
const (
	GodlpackArrays Framework = iota // godlpack.Array: the default
	NumPy                           // numpy.ndarray
	PyTorch                         // torch.Tensor
	JAX                             // jax.Array
)

// ResultIn returns the function's arrays (a *tensor.Tensor result, or those of
// a Tuple) as arrays of fw, made by its from_dlpack from the godlpack.Array
// (NumPy's by its C API): zero-copy (JAX may copy memory it cannot use in
// place), the memory owned by the result. The *tensor.Tensor arguments the
// function passes to its callbacks during the call are arrays of fw too.
func (f *Function) ResultIn(fw Framework) *Function {
	if fw < GodlpackArrays || fw > JAX {
		f.fail("ResultIn(%d): not a Framework", fw)
	}
	f.resultFw = cInt32(fw)
	return f
}

// ResultLike returns the function's arrays in the framework of the argument of
// parameter name: a numpy.ndarray for NumPy's, a torch.Tensor for PyTorch's, a
// jax.Array for JAX's, else (a godlpack.Array, a capsule, another producer, an
// absent optional one) a godlpack.Array. As ResultIn, zero-copy, and its
// callbacks' tensor arguments likewise.
func (f *Function) ResultLike(name string) *Function {
	for i, p := range f.params {
		if p.name == name {
			f.resultLike = i
			return f
		}
	}
	f.fail("ResultLike: no parameter named %q", name)
	return f
}

// seqElems returns the types a Go iterator type t yields: iter.Seq[V]'s V,
// iter.Seq2[K, V]'s K and V (any func(yield func(...) bool) of that shape); nil
// for any other type.
func seqElems(t reflect.Type) []reflect.Type {
	if t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 0 || t.IsVariadic() {
		return nil
	}
	y := t.In(0)
	if y.Kind() != reflect.Func || y.NumOut() != 1 || y.Out(0).Kind() != reflect.Bool ||
		y.NumIn() < 1 || y.NumIn() > 2 || y.IsVariadic() {
		return nil
	}
	elems := make([]reflect.Type, y.NumIn())
	for i := range elems {
		elems[i] = y.In(i)
	}
	return elems
}

// seqItemWriter chooses, once, how an item of an iterator yielding elems is
// written: iter.Seq[V]'s V as any result (a struct V as the tuple of its fields,
// in order: func(yield func(Bin) bool) yields (lo, hi, count) of a struct
// Bin{Lo, Hi float64; Count int64}), iter.Seq2's K and V as the pair (k, v).
func seqItemWriter(f *Function, elems []reflect.Type) func([]reflect.Value, *extResult) error {
	var parts []func([]reflect.Value) reflect.Value // each item of the tuple, from the yielded values
	var writers []func(reflect.Value, *extResult) error
	switch e := elems[0]; {
	case len(elems) == 2:
		for i, t := range elems {
			parts = append(parts, func(vals []reflect.Value) reflect.Value { return vals[i] })
			writers = append(writers, valueWriter(f, t))
		}
	case e.Kind() == reflect.Struct && e != reflect.TypeFor[None]():
		for i := range e.NumField() {
			if fd := e.Field(i); !fd.IsExported() {
				f.fail("result: the iterator's items of type %v are written as a tuple of its fields: field %s is not exported", e, fd.Name)
				continue
			}
			parts = append(parts, func(vals []reflect.Value) reflect.Value { return vals[0].Field(i) })
			writers = append(writers, valueWriter(f, e.Field(i).Type))
		}
	default:
		w := valueWriter(f, e)
		return func(vals []reflect.Value, r *extResult) error { return w(vals[0], r) }
	}
	return func(vals []reflect.Value, r *extResult) error {
		items, err := newTuple(r, len(writers))
		if err != nil {
			return err
		}
		for i, w := range writers {
			if err := w(parts[i](vals), &items[i]); err != nil {
				return err // the caller frees r, the items written so far included
			}
		}
		return nil
	}
}

// pulledSeqs are the sequences Python iterators pull, by id (extRIter's i).
var (
	pulledSeqs   sync.Map // uint64 -> *pulledSeq
	lastPulledID atomic.Uint64
)

// addPulledSeq keeps p for a Python iterator and returns its id (never 0).
func addPulledSeq(p *pulledSeq) uint64 {
	id := lastPulledID.Add(1)
	pulledSeqs.Store(id, p)
	return id
}

// A pulledSeq is a Go iterator (iter.Seq, iter.Seq2) a function returned, which
// Python's next() pulls one item at a time: a lazy Python iterator, nothing
// gathered first. The sequence runs on a goroutine of its own, started at the
// first next(), each yield handing one item over and waiting for the next
// next() or the stop. Not iter.Pull: its coroutine is bound to the OS thread
// that made it when that thread is locked, as a cgo callback's is, and a next()
// from another Python thread would end the process ("coro: OS thread locking
// must match"); a goroutine takes a next() from any thread. mu makes two
// threads' next() (free-threaded Python) one after the other.
type pulledSeq struct {
	seq   reflect.Value
	write func([]reflect.Value, *extResult) error
	name  string // the function's, for a panic's message

	mu                sync.Mutex
	started, finished bool
	more              chan bool // to the sequence's goroutine: true, yield again; false, stop
	items             chan pulledItem
}

// A pulledItem is what the sequence's goroutine hands over: the values one
// yield got (ok), or its end (ok false; panicked: the panic's value).
type pulledItem struct {
	vals     []reflect.Value
	ok       bool
	panicked any
}

// livePulledSeqs counts the sequences whose goroutine runs (started and not
// ended): what an abandoned Python iterator must not leave behind
// (tests/test_streamstats_protocols.py, test_an_abandoned_iterator_ends_its_sequence).
var livePulledSeqs atomic.Int64

func newPulledSeq(f *Function, seq reflect.Value, write func([]reflect.Value, *extResult) error) *pulledSeq {
	return &pulledSeq{seq: seq, write: write, name: f.name, more: make(chan bool), items: make(chan pulledItem)}
}

// run is the sequence's goroutine: it runs seq to its end (or to a yield told to
// stop) and hands over its end.
func (p *pulledSeq) run() {
	stopped := false
	defer func() {
		end := pulledItem{panicked: recover()}
		livePulledSeqs.Add(-1)
		p.items <- end
	}()
	yield := reflect.MakeFunc(p.seq.Type().In(0), func(vals []reflect.Value) []reflect.Value {
		if !stopped { // a sequence yielding again after false is told false again
			p.items <- pulledItem{vals: vals, ok: true}
			stopped = !<-p.more
		}
		return []reflect.Value{reflect.ValueOf(!stopped)}
	})
	p.seq.Call([]reflect.Value{yield})
}

// next writes the next item into r (true), or reports the end (false, nil) or
// the sequence's panic (a RuntimeError; the sequence is then ended). Any
// goroutine, one at a time (mu).
func (p *pulledSeq) next(r *extResult) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return false, nil
	}
	if !p.started {
		p.started = true
		livePulledSeqs.Add(1)
		go p.run()
	} else {
		p.more <- true
	}
	it := <-p.items
	if !it.ok {
		p.finished = true
		if it.panicked != nil {
			return false, RuntimeError.Errorf("%s(): Go panic in the iterator: %v", p.name, it.panicked)
		}
		return false, nil
	}
	return true, p.write(it.vals, r)
}

// stop ends the sequence (its yield returns false, so its deferred calls run)
// and waits for its goroutine to end; a sequence never started never runs.
func (p *pulledSeq) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started && !p.finished {
		p.more <- false
		<-p.items
	}
	p.finished = true
}

package godlpack

// ext_lend.go: the Python objects a call lends its Go function (callback
// parameters, *Object parameters and the *Objects inside list or dict
// parameters), released when the call returns unless kept, as a C extension
// releases its arguments; Object.Keep and KeepFunc keep one. No build tag and no
// C: go doc shows KeepFunc from a plain checkout (ext_lend_cpython.go has the
// calls into Python).

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// KeepFunc keeps fn, a callback argument of the running call (the Go func that a
// Python callable passed for a func parameter became), callable after the call
// returns. Without it the callable is released when the call returns, as a C
// extension releases its arguments (a large closure or bound method is not held
// until Go's collector runs), and calling fn afterwards returns an error saying
// so. A kept fn holds its callable until the collector finds fn unreachable; to
// release a callable at a time of your choosing, take it as a *Object parameter
// instead (Keep it, Call it, Close it).
//
// Call it during the call, from any goroutine. It returns an error for a func
// that is not a callback argument of a running call (one already returned, or a
// Go func of your own); a nil fn (an optional callback not passed) needs nothing.
// In a go test (a build without Python), where Function.Call passes the test's
// own funcs, it does nothing. After the call, a kept callback may be called from
// any goroutine; it waits for the GIL as any thread does.
func KeepFunc[F any](fn F) error {
	if reflect.TypeFor[F]().Kind() != reflect.Func {
		return fmt.Errorf("godlpack: KeepFunc takes a func, not a %v", reflect.TypeFor[F]())
	}
	// A func value is one pointer, to its closure: the callback's own (reflect.MakeFunc's),
	// which lentFuncs knows while its call runs (funcKey).
	closure := *(*unsafe.Pointer)(unsafe.Pointer(&fn))
	if closure == nil {
		return nil
	}
	o, lent := lentFuncs.Load(closure)
	if !lent {
		return keepForeignFunc()
	}
	_, err := o.(*Object).Keep()
	return err
}

// lentFuncs maps the closure of each callback argument of a running call (its
// func value's one word) to the Object holding its callable, for KeepFunc. An
// entry lives from the argument's conversion to the call's return.
var lentFuncs sync.Map

// funcKey is the closure pointer of v, a func made by reflect.MakeFunc: the one
// word of a func variable holding it, which KeepFunc reads of its argument.
func funcKey(v reflect.Value) unsafe.Pointer {
	box := reflect.New(v.Type())
	box.Elem().Set(v)
	return *(*unsafe.Pointer)(box.UnsafePointer())
}

// The states of a lent Object: lent for the call; kept (Keep: the Go code's
// until Close); returned (the call returned and released it).
const (
	leaseLent int32 = iota
	leaseKept
	leaseReturned
)

// An argLease marks an Object that a call lent to its Go function.
type argLease struct {
	scope *callScope
	param string
	state atomic.Int32
}

// A callScope is one call of a Function with lent parameters (Function.lends):
// the Objects it lent, released when it returns, and what a callback needs to know
// about the call that lent it while it runs: the calling OS thread, whether the
// call holds the GIL, and how many goroutine hops deep its chain of calls is.
type callScope struct {
	fn       string
	caller   uintptr // the calling OS thread (pthread_t)
	holdsGIL bool    // HoldGIL: no other thread may take the GIL during the call
	// hops counts the callbacks run on another OS thread than their call's, each
	// holding that thread, in the chain of calls leading here (ext_lend_cpython.go).
	hops int32
	// fw is the framework of the call's arrays (ResultIn's, or ResultLike's
	// argument's, resolved by C before the call): its callbacks' tensor arguments
	// are arrays of it too.
	fw      cInt32
	running atomic.Bool
	mu      sync.Mutex
	objs    []*Object
	funcs   []unsafe.Pointer // lentFuncs' keys of its callback arguments
}

// lend makes o an argument of s, the call's to release when it returns.
func (s *callScope) lend(o *Object, param string) {
	if o == nil {
		return
	}
	o.lease = &argLease{scope: s, param: param}
	s.mu.Lock()
	s.objs = append(s.objs, o)
	s.mu.Unlock()
}

// lendFunc records v, the Go func of a callback argument held by o, for KeepFunc.
func (s *callScope) lendFunc(v reflect.Value, o *Object) {
	k := funcKey(v)
	lentFuncs.Store(k, o)
	s.mu.Lock()
	s.funcs = append(s.funcs, k)
	s.mu.Unlock()
}

// returned ends the lending: the objects not kept are marked returned, and
// given back for the caller to release (their references dropped, GIL held).
func (s *callScope) returned() []*Object {
	s.running.Store(false)
	s.mu.Lock()
	objs, funcs := s.objs, s.funcs
	s.objs, s.funcs = nil, nil
	s.mu.Unlock()
	for _, k := range funcs {
		lentFuncs.Delete(k)
	}
	n := 0
	for _, o := range objs {
		if o.lease.state.CompareAndSwap(leaseLent, leaseReturned) {
			objs[n] = o
			n++
		}
	}
	return objs[:n]
}

// lendsIn reports whether values of t hold Python objects lent by the call: a
// func (a callback) or a *Object, alone or inside a slice, map or pointer.
func lendsIn(t reflect.Type) bool {
	if t == reflect.TypeFor[*Object]() || t.Kind() == reflect.Func {
		return true
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return lendsIn(t.Elem())
	case reflect.Map:
		return lendsIn(t.Elem())
	}
	return false
}

// lends reports whether a call of f lends its Go function Python objects.
func (f *Function) lends() bool {
	for _, p := range f.params {
		if p.lends {
			return true
		}
	}
	return false
}

// keep is Keep: a lent Object becomes the Go code's, until Close.
func (o *Object) keep() error {
	if o == nil {
		return errors.New("godlpack: Keep of a nil *Object")
	}
	l := o.lease
	if l == nil || l.state.CompareAndSwap(leaseLent, leaseKept) || l.state.Load() == leaseKept {
		return nil
	}
	return l.returnedError()
}

// returnedError says that o, an argument, was used after its call returned.
func (l *argLease) returnedError() error {
	return RuntimeError.Errorf("godlpack: %s(): argument %s was released when the call returned (%w); "+
		"keep it during the call to use it afterwards: Object.Keep, or godlpack.KeepFunc for a callback",
		l.scope.fn, l.param, ErrClosed)
}

// lendIn makes every *Object in v (a converted argument of a type lendsIn
// accepts) an argument of s.
func (s *callScope) lendIn(v reflect.Value, param string) {
	if !v.IsValid() {
		return
	}
	if v.Type() == reflect.TypeFor[*Object]() {
		s.lend(v.Interface().(*Object), param)
		return
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			s.lendIn(v.Index(i), param)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			s.lendIn(it.Value(), param)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			s.lendIn(v.Elem(), param)
		}
	}
}

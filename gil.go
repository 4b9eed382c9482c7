//go:build godlpack_python

package godlpack

// gil.go: how Go code of this package enters Python, from any goroutine (an
// Object's method, a callback): internal/cpython's interpreter state and GIL entry,
// with the argument rules of the call that lent what is used (ext_lend_cpython.go)
// and the references queued by Objects' cleanups; WithGIL's scope and its GIL's
// methods.

// #include "gd_python.h"
// #include "object_call.h"
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
)

// withGIL runs f with the GIL held on a locked OS thread. A Python exception f
// leaves pending (errPySet) and the Python errors Go raises itself (pyError) become a
// *PythonError; other Go errors are returned as they are.
// It may be nested (Python calling Go calling Python on one thread).
func withGIL(f func() error) error { return withGILFor(nil, f) }

// withGILFor is withGIL for Go code using an argument that l's call lent (a
// callback, an *Object parameter; nil: none): while that call runs, the
// argument's rules for the thread it is used on apply (callScope.admit,
// callScope.inChain in ext_lend_cpython.go).
func withGILFor(l *argLease, f func() error) error {
	if err := cpython.EnterCall(); err != nil {
		return err
	}
	defer cpython.ExitCall()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, hop, err := l.admit()
	if err != nil {
		return err
	}
	defer cpython.GILEnsure().Release()
	if pendingDecrefs.n.Load() != 0 {
		pendingDecrefs.drain()
	}
	return goError(s.inChain(hop, f))
}

// goError is the error a call into Python returns for err, the error of Go code run
// with the GIL held (which it still is): a Python exception left pending (errPySet)
// and the Python errors Go raises itself (a *cpython.Error) become a *PythonError,
// and Python's error indicator is left clear.
func goError(err error) error {
	var pe *cpython.Error
	switch {
	case err == nil:
	case err == errPySet || errors.Is(err, errPySet):
		err = takePythonError()
	case errors.As(err, &pe):
		// a Python rule checked in Go (a conversion): the same error type as Python's
		C.PyErr_Clear()
		cpython.Raise(pe.Kind, err.Error())
		err = takePythonError()
	default:
		C.PyErr_Clear() // a Go error (a closed Tensor): nothing of Python's to keep
	}
	return err
}

// pendingDecrefs holds the references of Objects collected without Close: a
// cleanup may not take the GIL (it runs on the runtime's one cleanup goroutine, which
// a held GIL would stall), so it queues the reference here and the next entry into
// Python drops it, as pyo3's reference pool does.
var pendingDecrefs refPool

type refPool struct {
	mu   sync.Mutex
	objs []*C.PyObject // C pointers: nothing here for the collector
	n    atomic.Int32
}

func (q *refPool) add(o *C.PyObject) {
	q.mu.Lock()
	q.objs = append(q.objs, o)
	q.n.Store(int32(len(q.objs)))
	q.mu.Unlock()
}

// drain drops the queued references; the GIL is held.
func (q *refPool) drain() {
	q.mu.Lock()
	objs := q.objs
	q.objs = nil
	q.n.Store(0)
	q.mu.Unlock()
	for _, o := range objs {
		C.gd_decref(o)
	}
}

// ---- WithGIL and its GIL's methods (object_api.go), with Python. Each is the body
// of an Object method (object.go, object_convert.go, exchange.go) run without entering
// Python again.

// errGILNotHeld is what a GIL's methods return outside WithGIL's function.
var errGILNotHeld = errors.New("godlpack: a *GIL used after its WithGIL function returned: " +
	"use it only inside that function, or call the Object's own method (it takes the GIL)")

// withGILScope is WithGIL (object_api.go), with Python.
func withGILScope(f func(py *GIL) error) error {
	py := &GIL{}
	return withGIL(func() error {
		py.held = true
		defer func() { py.held = false }()
		return f(py)
	})
}

// with runs f on o's object, held by a reference of its own (Python code f runs may
// release the GIL, and a racing Close drop o's), under py's hold. f's error is
// returned as a Go error at once (goError): py's holder goes on calling Python.
func (py *GIL) with(o *Object, f func(p *C.PyObject) error) error {
	if py == nil || !py.held {
		return errGILNotHeld
	}
	p, err := o.ref()
	if err != nil {
		return err
	}
	C.gd_incref(p)
	defer C.gd_decref(p)
	return goError(f(p))
}

func (py *GIL) call(o *Object, args []any) (r *Object, err error) {
	if py == nil || !py.held {
		return nil, errGILNotHeld
	}
	if res, ok, err := o.fastCall(py, args, C.GD_FAST_OBJECT); ok {
		return newObject(res.obj), err
	}
	err = py.with(o, func(p *C.PyObject) error {
		res, err := callObject(p, args)
		r = newObject(res)
		return err
	})
	return r, err
}

func (py *GIL) callMethod(o *Object, name string, args []any) (r *Object, err error) {
	err = py.with(o, func(p *C.PyObject) error {
		res, err := callMethod(p, name, args)
		r = newObject(res)
		return err
	})
	return r, err
}

func (py *GIL) attr(o *Object, name string) (r *Object, err error) {
	err = py.with(o, func(p *C.PyObject) error {
		a, err := getAttr(p, name)
		r = newObject(a)
		return err
	})
	return r, err
}

func (py *GIL) int(o *Object) (v int64, err error) {
	if py != nil && py.held && o != nil && o.lease == nil {
		// an exact int's value, in one cgo call and without a reference of its own:
		// no Python code runs in it, so no Close can drop o's meanwhile
		var n C.longlong
		if p := o.p.Load(); p != nil && C.gd_exact_int64(p, &n) == 0 {
			return int64(n), nil
		}
	}
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = asInt64(p, "the object")
		return err
	})
	return v, err
}

func (py *GIL) float(o *Object) (v float64, err error) {
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = asFloat64(p)
		return err
	})
	return v, err
}

func (py *GIL) tensor(o *Object) (*tensor.Tensor, error) {
	var m unsafe.Pointer
	err := py.with(o, func(p *C.PyObject) (err error) {
		m, err = pyToManaged(p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return tensor.FromManaged(m)
}

func (py *GIL) goValue(o *Object) (v any, err error) {
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = toGo(p, 0)
		return err
	})
	return v, err
}

func (py *GIL) close(o *Object) {
	if py == nil || !py.held {
		o.Close() // it takes the GIL itself
		return
	}
	if o == nil {
		return
	}
	if p := o.p.Swap(nil); p != nil {
		o.cleanup.Stop()
		C.gd_decref(p)
	}
}

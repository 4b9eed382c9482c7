//go:build godlpack_python

package godlpack

// gil.go: how Go code of this package enters Python, from any goroutine (an
// Object's method, a callback): internal/cpython's interpreter state and GIL entry,
// with the argument rules of the call that lent what is used (ext_lend_cpython.go)
// and the references queued by Objects' cleanups.

// #include "gd_python.h"
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

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

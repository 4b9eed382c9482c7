//go:build godlpack_python

package godlpack

// gil.go: how Go code enters Python, from any goroutine, in either direction: a Go
// program that embeds the interpreter (embed.go) or a Go extension that Python loaded
// and whose function calls back into Python. Each entry locks the goroutine to its OS
// thread (a CPython thread state belongs to one OS thread), takes the GIL through that
// thread's state (embed.c's gd_gil_enter: made once per OS thread and kept), runs,
// and gives both back: between calls no Go code holds the GIL, so Go work runs in
// parallel with Python's.

// #include "godlpack.h"
// int gd_gil_enter(void);
// void gd_gil_leave(int state);
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/godlpack/godlpack/internal/forksafe"
)

// The interpreter's state as this process sees it.
const (
	interpNone       int32 = iota // no interpreter: neither started by Start nor hosting us
	interpHosted                  // a Python process imported godlpack (an extension)
	interpEmbedded                // Start started it
	interpFinalizing              // Finalize is waiting for calls to end, or finalizing
	interpFinalized               // gone: every call is refused
)

var (
	interpState atomic.Int32
	// inCalls counts the entries in progress, so that Finalize waits for them.
	inCalls atomic.Int64
)

// markHosted records that Python itself loaded godlpack (module exec), so that Go
// code of an extension may call back into it, and that a fork on a thread of Go's
// is refused there (fork_guard.c).
func markHosted() {
	if interpState.CompareAndSwap(interpNone, interpHosted) {
		forksafe.GuardGoThreads()
	}
}

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
	inCalls.Add(1)
	defer inCalls.Add(-1)
	switch interpState.Load() {
	case interpEmbedded:
	case interpHosted:
		if C.gd_interpreter_gone() != 0 {
			return ErrNotStarted
		}
	default:
		return ErrNotStarted
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, hop, err := l.admit()
	if err != nil {
		return err
	}
	state := C.gd_gil_enter()
	defer C.gd_gil_leave(state)
	if pendingDecrefs.n.Load() != 0 {
		pendingDecrefs.drain()
	}
	err = s.inChain(hop, f)
	var pe *pyError
	switch {
	case err == nil:
	case err == errPySet || errors.Is(err, errPySet):
		err = takePythonError()
	case errors.As(err, &pe):
		// a Python rule checked in Go (a conversion): the same error type as Python's
		C.PyErr_Clear()
		raiseString(pe.kind, err.Error())
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

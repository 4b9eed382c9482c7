//go:build godlpack_python

package godlpack

// ext_lend_cpython.go: ext_lend.go's calls into Python: a call's lent objects
// released when it returns, and the rules for Go code using them while it runs.
//
// Two rules, both for callbacks that a call's Go function runs on goroutines of
// its own (and *Object arguments used there):
//   - A call that holds the GIL (HoldGIL) while its Go code waits for such a
//     goroutine would wait for ever: the goroutine's thread waits for the GIL. The
//     use is refused with RuntimeError naming ReleaseGIL (Keep's rule for tensors,
//     ext_call.c's gd_ext_keep). A default call lending Python objects releases the
//     GIL (cTable), so it never holds it.
//   - A callback that calls the extension again, whose Go code calls back on a new
//     goroutine again, holds one OS thread per level: Go aborts the process at
//     10,000 ("fatal error: thread exhaustion"). Each level is a hop, counted along
//     the chain through a thread-local count (hops) that a callback's thread carries
//     while the callback runs and that the calls it makes start from; past
//     maxHops (or sys.getrecursionlimit(), if lower) the callback raises
//     RecursionError instead of running.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "gd_python.h"
// #include <pthread.h>
// #include <stdlib.h>
// static GD_HOT_TLS int32_t gd_hops; /* the hops of the chain of calls this thread serves */
// static int32_t gd_hops_swap(int32_t n) { int32_t old = gd_hops; gd_hops = n; return old; }
// static int32_t gd_hops_now(void) { return gd_hops; }
// static uintptr_t gd_thread_self(void) { return (uintptr_t)pthread_self(); }
// static int gd_thread_is(uintptr_t t) { return pthread_equal(pthread_self(), (pthread_t)t); }
// static void gd_raise_recursion(const char *msg) { PyErr_SetString(PyExc_RecursionError, msg); }
// int gd_gil_enter(void);
// void gd_gil_leave(int state);
// PyObject *gd_tensor_to_py(DLManagedTensorVersioned *m);
// /* A tensor argument (GD_CB_TENSOR: a managed tensor Go exported, its address in i)
//  * is made a godlpack.Array for the callable only once the call is sure to run (GIL
//  * held: gd_cb_tensor_args), an array of the call's framework fw (ResultIn,
//  * ResultLike: its callbacks' tensors are what its results are): a NumPy one made
//  * directly, else through the Array; one whose call does not run is released by
//  * its deleter (gd_cb_release_tensor: a Go tensor's, any thread). */
// enum { GD_CB_TENSOR = 8 };
// static void gd_cb_tensor_args(gd_cb_frame *fr, int fw) {
//     for (int j = 0; j < fr->n; j++) {
//         if (fr->args[j].kind != GD_CB_TENSOR) continue;
//         DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)(uintptr_t)fr->args[j].i;
//         PyObject *o = NULL; /* NULL: gd_cb_call raises its error */
//         if (fw != GD_EXT_FW_NUMPY || !gd_ext_numpy_from_managed(m, &o)) {
//             o = gd_tensor_to_py(m);
//             o = o != NULL && fw != GD_EXT_FW_GODLPACK ? gd_ext_array_in(o, fw) : o;
//         }
//         fr->args[j].o = o;
//         fr->args[j].kind = GD_CB_OBJ;
//     }
// }
// static void gd_cb_release_tensor(uintptr_t m) { gd_call_deleter((void *)m, 1); }
// /* A callback's call in one crossing (ext_callback.go, callback.invoke): f (a
//  * uintptr_t, as caller) called with n (at most two) arguments of GD_CB_INT,
//  * GD_CB_FLOAT or GD_CB_TENSOR kinds k0, k1, all passed by value and the answer
//  * returned by value, so that no pointer crosses for cgo to check or to move to the
//  * heap. On its call's
//  * own thread (caller), the interpreter running, the chain no deeper than the limits:
//  * what withGILFor does (the GIL, this thread serving the chain at hops) around
//  * gd_cb_call, with its answer in rc, an exception fetched (Go raises it again with
//  * the GIL: gd_cb_restore). rc GD_CB_SLOW, nothing done, for the rest: withGILFor's
//  * own path, with its errors. */
// typedef struct {
//     int rc;
//     long long i;
//     double d;
//     PyObject *res, *exc_type, *exc_value, *exc_tb;
// } gd_cb_out;
// /* Whether this thread holds the GIL already through its own thread state (a
//  * HoldGIL call's thread), so that a callback does not take it again: the case
//  * where PyGILState_Ensure would only count, and Release uncount (with the check
//  * before them, three thread-specific lookups: ~5% of a callback). Pointers are
//  * compared, never read: before 3.12 the current state is any thread's, the GIL
//  * holder's, and may be freed meanwhile. */
// static int gd_gil_held_here(PyThreadState **mine) {
// #if PY_VERSION_HEX >= 0x030D0000
//     PyThreadState *ts = PyThreadState_GetUnchecked();
// #else
//     PyThreadState *ts = _PyThreadState_UncheckedGet();
// #endif
//     *mine = PyGILState_GetThisThreadState();
//     return ts != NULL && ts == *mine;
// }
// static gd_cb_out gd_cb_fast(uintptr_t caller, int32_t hops, int32_t max_hops, uintptr_t f,
//                             int n, int want, int fw, int k0, long long i0, double d0,
//                             int k1, long long i1, double d1) {
//     gd_cb_out out = {.rc = GD_CB_SLOW};
//     if (!pthread_equal(pthread_self(), (pthread_t)caller) || gd_interpreter_gone()) return out;
//     /* Only what gd_cb_call reads: an initializer zeroed the whole frame (four
//      * arguments, ~180 bytes: a rep stos that was ~10 ns of a ~140 ns callback). */
//     gd_cb_frame fr;
//     fr.n = n, fr.want = want, fr.i = 0, fr.d = 0, fr.res = NULL;
//     fr.args[0] = (gd_cb_arg){k0, i0, d0, NULL};
//     fr.args[1] = (gd_cb_arg){k1, i1, d1, NULL};
//     /* Not held: the call's own thread, whose state the call saved when it gave the
//      * GIL back (its thread called the extension from Python, so it has one): that
//      * state restored and saved again, what PyGILState_Ensure and Release do here
//      * less their lookups and count (~10 ns of a callback). */
//     PyThreadState *mine;
//     int held = gd_gil_held_here(&mine);
//     if (!held && mine == NULL) return out; /* no state of its own: withGILFor's path */
//     if (!held) PyEval_RestoreThread(mine);
//     int limit = hops > 0 ? Py_GetRecursionLimit() : 1; /* a limit is at least 1 */
//     if (hops > (limit < max_hops ? limit : max_hops)) {
//         if (!held) (void)PyEval_SaveThread();
//         return out;
//     }
//     if (k0 == GD_CB_TENSOR || k1 == GD_CB_TENSOR) {
//         gd_cb_tensor_args(&fr, fw); /* past every GD_CB_SLOW: the tensors are the call's now */
//     }
//     int32_t prev = gd_hops_swap(hops);
//     out.rc = gd_cb_call((PyObject *)f, &fr);
//     gd_hops = prev;
//     if (out.rc == -1) PyErr_Fetch(&out.exc_type, &out.exc_value, &out.exc_tb);
//     if (!held) (void)PyEval_SaveThread();
//     out.i = fr.i;
//     out.d = fr.d;
//     out.res = fr.res;
//     return out;
// }
// static void gd_cb_restore(gd_cb_frame *fr) { PyErr_Restore(fr->exc_type, fr->exc_value, fr->exc_tb); }
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// maxHops bounds a chain's goroutine hops whatever sys.getrecursionlimit() says:
// each holds an OS thread (and a Python thread state), and Go's limit is 10,000
// threads in all.
const maxHops = 1000

// openScope begins a call of f that lends Python objects, on the calling OS
// thread (goExtCall's goroutine); fw is the framework of its arrays.
func openScope(f *Function, fw cInt32) *callScope {
	s := &callScope{fn: f.name, caller: uintptr(C.gd_thread_self()), holdsGIL: f.gil == extGilHold,
		hops: int32(C.gd_hops_now()), fw: fw}
	s.running.Store(true)
	return s
}

// close releases the objects the call lent that its Go code did not keep.
func (s *callScope) close() {
	objs := s.returned()
	if len(objs) == 0 {
		return
	}
	_ = withGIL(func() error {
		for _, o := range objs {
			if p := o.p.Swap(nil); p != nil {
				o.cleanup.Stop()
				C.gd_decref(p)
			}
		}
		return nil
	})
}

// admit checks, on the locked OS thread about to take the GIL, that Go code may
// use argument l now: it returns l's call while that call runs (nil after, when
// nothing is checked) and whether this thread is another than the call's.
func (l *argLease) admit() (*callScope, bool, error) {
	if l == nil || !l.scope.running.Load() {
		return nil, false, nil
	}
	s := l.scope
	other := C.gd_thread_is(C.uintptr_t(s.caller)) == 0
	if other && s.holdsGIL {
		return nil, false, RuntimeError.Errorf("godlpack: %s(): argument %s used from a goroutine other "+
			"than the function's own while the call holds the GIL (HoldGIL): the goroutine would wait "+
			"for the GIL for ever; declare the function with ReleaseGIL()", s.fn, l.param)
	}
	return s, other, nil
}

// callFast is gd_cb_fast on s's thread and chain with fr's arguments (at most two,
// scalars or exported tensors; callback.invoke: the C code needs this file's hops),
// its answer stored in fr. A call that ran took fr's tensors: they are marked taken.
func (s *callScope) callFast(p *C.PyObject, fr *C.gd_cb_frame) {
	a, b := &fr.args[0], &fr.args[1]
	o := C.gd_cb_fast(C.uintptr_t(s.caller), C.int32_t(s.hops), maxHops, C.uintptr_t(uintptr(unsafe.Pointer(p))),
		fr.n, fr.want, C.int(s.fw), a.kind, a.i, a.d, b.kind, b.i, b.d)
	takeOut(fr, o)
	if o.rc != C.GD_CB_SLOW {
		for i := range int(fr.n) {
			if fr.args[i].kind == C.GD_CB_TENSOR {
				fr.args[i].kind = C.GD_CB_INT // the Array made of it owns it now
			}
		}
	}
}

// callScalar is gd_cb_fast on s's thread and chain with one argument crossing by
// value (kind, i, d: callScalar in ext_callback.go) for a result read in C (want).
func (s *callScope) callScalar(p *C.PyObject, want, kind C.int, i C.longlong, d C.double) C.gd_cb_out {
	return C.gd_cb_fast(C.uintptr_t(s.caller), C.int32_t(s.hops), maxHops, C.uintptr_t(uintptr(unsafe.Pointer(p))),
		1, want, C.int(s.fw), kind, i, d, C.GD_CB_NONE, 0, 0)
}

// notRun is gd_cb_fast's answer where nothing was done (GD_CB_SLOW).
var notRun = C.gd_cb_out{rc: C.GD_CB_SLOW}

// takeOut stores gd_cb_fast's answer o in fr, as gd_cb_call's would be.
func takeOut(fr *C.gd_cb_frame, o C.gd_cb_out) {
	fr.rc, fr.i, fr.d, fr.res = o.rc, o.i, o.d, o.res
	fr.exc_type, fr.exc_value, fr.exc_tb = o.exc_type, o.exc_value, o.exc_tb
}

// exportTensorArgs exports the tensor arguments setArg left in objs, so that they
// cross as GD_CB_TENSOR (gd_cb_fast makes their Arrays): an export's error names
// the function, the callback and the argument, the tensors exported before it
// released.
func (c *callback) exportTensorArgs(fr *C.gd_cb_frame, objs *[C.GD_CB_MAX_ARGS]any) error {
	for i := range int(fr.n) {
		t, ok := objs[i].(*tensor.Tensor)
		if !ok || t == nil {
			continue
		}
		m, err := t.Export()
		if err != nil {
			releaseTensorArgs(fr)
			return fmt.Errorf("%s(): callback %s: argument %d: %w", c.f.name, c.p.name, i, err)
		}
		fr.args[i].kind, fr.args[i].i, objs[i] = C.GD_CB_TENSOR, C.longlong(uintptr(m)), nil
	}
	return nil
}

// releaseTensorArgs releases fr's tensor arguments that no call took (their
// deleters: Go's, any thread, no GIL). Each crosses by value: a frame passed to C
// would be moved to the heap for cgo, on every callback's path.
func releaseTensorArgs(fr *C.gd_cb_frame) {
	for i := range int(fr.n) {
		if fr.args[i].kind == C.GD_CB_TENSOR {
			C.gd_cb_release_tensor(C.uintptr_t(fr.args[i].i))
			fr.args[i].kind = C.GD_CB_INT
		}
	}
}

// convertTensorArgs makes fr's tensor arguments the callable's arrays (GIL held),
// of the framework of l's call (godlpack.Arrays for a callable no call lent):
// gd_cb_call then takes them as any argument.
func convertTensorArgs(fr *C.gd_cb_frame, l *argLease) {
	fw := C.int(0)
	if l != nil {
		fw = C.int(l.scope.fw)
	}
	C.gd_cb_tensor_args(fr, fw)
}

// restoreFetched sets again the exception gd_cb_fast fetched into fr (GIL held).
func restoreFetched(fr *C.gd_cb_frame) { C.gd_cb_restore(fr) }

// inChain runs f (GIL held) with this thread serving s's chain of calls, one hop
// deeper when hop (a callback on another thread than its call's): the calls f
// makes into the extension count from there. Too deep: RecursionError, f not run.
func (s *callScope) inChain(hop bool, f func() error) error {
	if s == nil {
		return f()
	}
	hops := s.hops
	if hop {
		hops++
	}
	if limit := min(int32(C.Py_GetRecursionLimit()), maxHops); hops > limit {
		msg := C.CString(fmt.Sprintf("maximum recursion depth exceeded in %s(): %d callbacks run on "+
			"goroutines of their own, each calling the extension again (each holds an OS thread; "+
			"at most %d: sys.getrecursionlimit(), and never more than %d)", s.fn, hops, limit, maxHops))
		C.gd_raise_recursion(msg)
		C.free(unsafe.Pointer(msg))
		return errPySet
	}
	prev := C.gd_hops_swap(C.int32_t(hops))
	defer C.gd_hops_swap(prev)
	return f()
}

// lendArg converts an argument that lends Python objects (p.lends) and makes them
// the call's: a callback, or a value holding *Objects.
func lendArg(f *Function, p *param, a *C.gd_ext_arg, s *callScope) (reflect.Value, error) {
	if p.goType.Kind() == reflect.Func {
		return callbackArg(f, p, a, s)
	}
	v, err := objectArg(f, p, a)
	if err == nil && a.obj != nil { // not a default: the author's own value
		s.lendIn(v, p.name)
	}
	return v, err
}

// keepForeignFunc is KeepFunc's answer for a func it does not know: every func
// a Python caller passes is a callback argument, so this one is the author's, or
// its call has returned.
func keepForeignFunc() error {
	return errors.New("godlpack: KeepFunc: not a callback argument of a running call " +
		"(keep a callback during its call; a Go func of your own needs no keeping)")
}

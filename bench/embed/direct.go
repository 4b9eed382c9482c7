//go:build godlpack_python

package main

// direct.go: the twin that the godlpack rows are measured against, a Go program
// calling CPython's C API itself through cgo, as fast as that can be written: one
// cgo call per Python call, and a thread state made once per goroutine (its OS
// thread locked for good) and swapped in and out with PyEval_RestoreThread /
// PyEval_SaveThread, cheaper than PyGILState_Ensure. It shares the interpreter
// pyembed started, and nothing else of godlpack's.

/*
#include <Python.h>
#include <stdlib.h>

static PyObject *direct_inc, *direct_frombuffer;

// direct_setup defines the twin's own Python functions (GIL held).
static int direct_setup(void) {
    PyObject *g = PyDict_New();
    if (g == NULL) return -1;
    if (PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) < 0) return -1;
    PyObject *r = PyRun_String(
        "import numpy as np\n"
        "def inc(x):\n"
        "    return x + 1\n"
        "def frombuffer(m):\n"
        "    return np.frombuffer(m, np.float32)\n",
        Py_file_input, g, g);
    if (r == NULL) { PyErr_Print(); return -1; }
    Py_DECREF(r);
    direct_inc = PyDict_GetItemString(g, "inc");
    direct_frombuffer = PyDict_GetItemString(g, "frombuffer");
    Py_XINCREF(direct_inc);
    Py_XINCREF(direct_frombuffer);
    Py_DECREF(g);
    return direct_inc && direct_frombuffer ? 0 : -1;
}

// direct_thread makes the calling OS thread's state once (the goroutine keeps the
// thread locked) and returns it without the GIL.
static PyThreadState *direct_thread(void) {
    PyGILState_STATE s = PyGILState_Ensure();
    (void)s;
    return PyEval_SaveThread();
}

static int direct_setup_locked(void) {
    PyGILState_STATE s = PyGILState_Ensure();
    int r = direct_setup();
    PyGILState_Release(s);
    return r;
}

// inc(x) and its int result: one GIL entry.
static long long direct_call_int(PyThreadState *ts, long long x, int *failed) {
    PyEval_RestoreThread(ts);
    long long v = -1;
    PyObject *a = PyLong_FromLongLong(x);
    PyObject *r = a ? PyObject_CallOneArg(direct_inc, a) : NULL;
    Py_XDECREF(a);
    if (r != NULL) {
        v = PyLong_AsLongLong(r);
        Py_DECREF(r);
    }
    *failed = PyErr_Occurred() != NULL;
    PyErr_Clear();
    PyEval_SaveThread();
    return v;
}

// n float32 at data to NumPy without a copy (a memoryview over them; NumPy's
// frombuffer) and back (the array's buffer): the address NumPy's array reads.
static void *direct_roundtrip(PyThreadState *ts, float *data, Py_ssize_t n) {
    PyEval_RestoreThread(ts);
    void *got = NULL;
    PyObject *m = PyMemoryView_FromMemory((char *)data, n * (Py_ssize_t)sizeof(float), PyBUF_WRITE);
    PyObject *a = m ? PyObject_CallOneArg(direct_frombuffer, m) : NULL;
    Py_XDECREF(m);
    if (a != NULL) {
        Py_buffer b;
        if (PyObject_GetBuffer(a, &b, PyBUF_STRIDES | PyBUF_FORMAT) == 0) {
            got = b.buf;
            PyBuffer_Release(&b);
        }
        Py_DECREF(a);
    }
    PyErr_Clear();
    PyEval_SaveThread();
    return got;
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

func directSetup() error {
	if C.direct_setup_locked() != 0 {
		return errors.New("direct twin: setup failed")
	}
	return nil
}

// directThread locks the goroutine to its OS thread for good and gives that thread
// its Python thread state (the twin's goroutines end with the program).
func directThread() *C.PyThreadState {
	runtime.LockOSThread()
	return C.direct_thread()
}

func directCallInt(ts *C.PyThreadState, x int64) (int64, bool) {
	var failed C.int
	v := C.direct_call_int(ts, C.longlong(x), &failed)
	return int64(v), failed == 0
}

// directData is the twin's float32 buffer, C memory (C may not keep a Go pointer
// past the call, and NumPy's array would).
func directData(n int) (*C.float, func()) {
	p := (*C.float)(C.calloc(C.size_t(n), 4))
	return p, func() { C.free(unsafe.Pointer(p)) }
}

func directRoundTrip(ts *C.PyThreadState, data *C.float, n int) bool {
	return C.direct_roundtrip(ts, data, C.Py_ssize_t(n)) == unsafe.Pointer(data)
}

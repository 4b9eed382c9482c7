//go:build godlpack_python

/* immortal.c: on a free-threaded build, the objects every thread calls through are
 * made immortal, so that calling them writes nothing shared.
 *
 * A free-threaded CPython counts an object's references in two parts: its owning
 * thread's, plainly, and every other thread's, atomically, in one shared word next to
 * the first. Each call of a module function increments and decrements its function
 * object's count (the eval loop holds the callable while it calls it), each instance
 * made or freed its heap type's, each method call the descriptor's: when two threads
 * call one function at once, the object's header moves between their cores on every
 * call. Measured (3.13t, 2 cores, goext.touch from two threads): +35-40 ns of CPU a
 * call, 1.6x the throughput of one thread instead of 2x; perf put most of it on the
 * eval loop's Py_DECREF of the callable. CPython makes its own shared objects immortal
 * for this reason (static types, interned strings); nanobind does the same for its
 * functions and types. An immortal object's count is never written, and the object
 * is never freed: for godlpack's and an extension's functions and types, which live
 * until the process ends (a Go runtime is never unloaded), nothing is lost but their
 * release at exit. */
#include "immortal.h"

void gd_immortalize(PyObject *o) {
#ifdef Py_GIL_DISABLED
    if (o == NULL || _Py_IsImmortal(o)) {
        return;
    }
    /* The collector has nothing to find in an object that never dies. */
    if (PyObject_IS_GC(o) && PyObject_GC_IsTracked(o)) {
        PyObject_GC_UnTrack(o);
    }
    /* No owner, the immortal local count, nothing shared: the layout CPython's own
     * immortal objects have (refcount.h, Py_GIL_DISABLED). Plain writes: the object is
     * new and no other thread has seen it (module exec holds the import lock). */
    o->ob_tid = 0;
    o->ob_ref_local = _Py_IMMORTAL_REFCNT_LOCAL;
    o->ob_ref_shared = 0;
#else
    (void)o;
#endif
}

void gd_immortalize_type(PyTypeObject *t) {
#ifdef Py_GIL_DISABLED
    PyObject *dict = PyType_GetDict(t);
    if (dict != NULL) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        Py_BEGIN_CRITICAL_SECTION(dict);
        while (PyDict_Next(dict, &pos, &key, &value)) {
            /* methods, instancemethods and descriptors: what attribute lookups hand
             * out on every call (names and docs are never counted per call) */
            if (Py_TYPE(value)->tp_descr_get != NULL || PyCallable_Check(value)) {
                gd_immortalize(value);
            }
        }
        Py_END_CRITICAL_SECTION();
        Py_DECREF(dict);
    }
    gd_immortalize((PyObject *)t);
#else
    (void)t;
#endif
}

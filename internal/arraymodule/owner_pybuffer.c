//go:build godlpack_python

/* owner_pybuffer.c: owners that hold a Python buffer (Py_buffer and an optional
 * extra object), so an Array can wrap memory that Python owns without copying it:
 * the buffers pickle protocol 5 hands to loads (bytearray in band, the caller's
 * buffers out of band, Ray's object store, Dask's frames) and the mmap of a
 * shared-memory segment; and owners that hold a Python object alone, a
 * numpy.ndarray imported from its own fields (dlpack_import.c).
 *
 * Owner release may run on any thread, without the GIL, and after interpreter
 * finalization (a consumer's deleter drops the last reference). Releasing a Python
 * object needs the GIL, so release takes it with PyGILState_Ensure; once the
 * interpreter is finalizing or gone, the buffer is leaked instead, as NumPy's
 * DLPack deleter does: touching Python then could crash or hang the thread. */
#include "arraymodule.h"

#include <stdlib.h>

typedef struct {
    Py_buffer view;
    PyObject *keep; /* NULL or an object that must live as long as the memory */
} gd_pybuffer;

/* Takes a C-contiguous buffer of obj into a new owner: writable when writable is
 * set and obj allows it, else read-only. keep gets a new reference. NULL with a
 * Python exception set on failure. The Py_buffer lives inside the owner because
 * exporters may point its fields at itself (PyBuffer_FillInfo's shape is &len). */
gd_owner *gd_owner_new_pybuffer(PyObject *obj, int writable, PyObject *keep) {
    gd_owner *o = malloc(sizeof(gd_owner) + sizeof(gd_pybuffer));
    if (o == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    gd_pybuffer *pb = (gd_pybuffer *)(o + 1);
    memset(pb, 0, sizeof *pb);
    int got = -1;
    if (writable) {
        got = PyObject_GetBuffer(obj, &pb->view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE);
        if (got < 0 && PyErr_ExceptionMatches(PyExc_BufferError)) {
            PyErr_Clear(); /* a read-only buffer: the Array will be read-only too */
        } else if (got < 0) {
            free(o);
            return NULL;
        }
    }
    if (got < 0 && PyObject_GetBuffer(obj, &pb->view, PyBUF_C_CONTIGUOUS) < 0) {
        free(o);
        return NULL;
    }
    pb->keep = keep;
    Py_XINCREF(keep);
    atomic_init(&o->refs, 1);
    o->kind = GD_OWNER_PYBUFFER;
    o->foreign = pb;
    o->nbytes = (int64_t)pb->view.len;
    gd_live_add(1);
    return o;
}

Py_buffer *gd_owner_pybuffer_view(gd_owner *o) { return &((gd_pybuffer *)o->foreign)->view; }

PyObject *gd_owner_keep(gd_owner *o) {
    if (o != NULL && o->kind == GD_OWNER_PYOBJECT) {
        return o->foreign;
    }
    if (o == NULL || o->kind != GD_OWNER_PYBUFFER) {
        return NULL;
    }
    return ((gd_pybuffer *)o->foreign)->keep;
}

void gd_owner_release_pybuffer(gd_owner *o) {
    gd_pybuffer *pb = o->foreign;
    if (gd_interpreter_gone()) {
        return; /* leaked on purpose: see the comment at the top */
    }
    PyGILState_STATE st = PyGILState_Ensure();
    PyBuffer_Release(&pb->view);
    Py_XDECREF(pb->keep);
    PyGILState_Release(st);
}

gd_owner *gd_owner_new_pyobject(PyObject *obj) {
    gd_owner *o = malloc(sizeof *o);
    if (o == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    atomic_init(&o->refs, 1);
    o->kind = GD_OWNER_PYOBJECT;
    o->foreign = Py_NewRef(obj);
    o->nbytes = 0;
    gd_live_add(1);
    return o;
}

void gd_owner_release_pyobject(gd_owner *o) {
    if (gd_interpreter_gone()) {
        return; /* leaked on purpose: see the comment at the top */
    }
    PyGILState_STATE st = PyGILState_Ensure();
    Py_DECREF((PyObject *)o->foreign);
    PyGILState_Release(st);
}

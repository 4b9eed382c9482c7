//go:build godlpack_python

/* ext_class.c: Go types bound as Python classes (godlpack.Class, ext_class.go).
 * An instance is a gd_ext_instance: its Go value is kept in Go's instance table,
 * put there by the constructor (or by any function returning a *T), released
 * exactly once, at dealloc (gd_ext_instance_release). Methods, dunders, property getters and setters
 * are ordinary extension functions (gd_ext_call: same arguments, GIL policy, errors
 * and panics) whose first parameter is the instance: methods and dunders are put in
 * the class's dict wrapped in instancemethod (which binds the instance), properties
 * are getset descriptors calling their functions. */
#include "ext.h"
#include "_cgo_export.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030C0000
#define GD_T_PYSSIZET Py_T_PYSSIZET
#define GD_READONLY Py_READONLY
#else
#include <structmember.h>
#define GD_T_PYSSIZET T_PYSSIZET
#define GD_READONLY READONLY
#endif

gd_ext_class gd_ext_classes[GD_EXT_MAX_CLASSES];
PyObject *gd_ext_exceptions[GD_EXT_MAX_EXCEPTIONS];
static int nclasses; /* 1 + the highest id made */

/* The bound class type is or derives from (a Python subclass), or NULL. */
static gd_ext_class *class_of(PyTypeObject *type) {
    for (PyTypeObject *t = type; t != NULL; t = t->tp_base) {
        for (int i = 0; i < nclasses; i++) {
            if (gd_ext_classes[i].type == t) {
                return &gd_ext_classes[i];
            }
        }
    }
    return NULL;
}

/* What the class's tp_alloc (PyType_GenericAlloc) does, for the one layout a bound
 * class has: PyObject_New (the documented allocation of an object the collector does
 * not track, its header set up as on every build, free-threaded too) and the three
 * fields set, with no size computed from the type, no memset of the whole object
 * and no check of GC flags (~3% of a creation's samples: docs/performance.md,
 * Classes). Freed by the class's tp_free (PyObject_Free), as tp_alloc's memory. */
PyObject *gd_ext_instance_new(PyTypeObject *t, uintptr_t id) {
    gd_ext_instance *in = PyObject_New(gd_ext_instance, t); /* takes a reference to t */
    if (in == NULL) {
        return NULL;
    }
    in->handle = id;
    in->weaklist = NULL;
    in->pinned = NULL;
    in->initing = 1; /* made with its Go value: no __init__ may replace it */
    return (PyObject *)in;
}

PyObject *gd_ext_instance_new_of(PyTypeObject *t, uintptr_t id) {
    if (class_of(t) != NULL && class_of(t)->type == t) {
        return gd_ext_instance_new(t, id);
    }
    /* A Python subclass: its own allocation (its __dict__, the collector's header),
     * as its tp_new would, with the Go value set instead of __init__ making one. */
    gd_ext_instance *in = (gd_ext_instance *)t->tp_alloc(t, 0);
    if (in == NULL) {
        return NULL;
    }
    in->handle = id;
    in->initing = 1; /* made with its Go value: no __init__ may replace it */
    return (PyObject *)in;
}

/* Releases the Go value; safe after finalization (Go only empties
 * table slots). */
static void instance_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    if (((gd_ext_instance *)self)->weaklist != NULL) {
        PyObject_ClearWeakRefs(self); /* their callbacks see the object gone, as Python's */
    }
    uintptr_t h = ((gd_ext_instance *)self)->handle;
    void *pinned = ((gd_ext_instance *)self)->pinned;
    ((gd_ext_instance *)self)->handle = 0;
    ((gd_ext_instance *)self)->pinned = NULL;
    if (h != 0 && pinned != NULL) { /* an AtomicProperty was read: unpinned, then released */
        goExtReleasePinnedInstance(h);
    } else if (h != 0) {
        gd_ext_instance_release(h);
    }
    tp->tp_free(self);
    Py_DECREF(tp); /* a heap type's instances hold it */
}

/* __init__: runs the Go constructor and takes the Go value of the instance it made.
 * Once per instance: a second __init__ would release a value a method running
 * without the GIL may be using. The instance is claimed (`initing`, a compare-and-swap)
 * before the constructor runs, since the constructor's argument conversion may run
 * Python (an __index__) and its Go call may release the GIL: a second __init__ meanwhile,
 * re-entrant or from another thread, would otherwise also find no handle and both
 * would store one, leaking the first Go value (tests/test_goext_func.py,
 * test_init_twice_at_once_is_refused_and_leaks_nothing). A failed __init__ gives the
 * claim back, so that the instance may be initialized again. */
static int take_go_value(gd_ext_instance *in, gd_ext_class *c, PyObject *made, const char *what);

static int instance_init(PyObject *self, PyObject *args, PyObject *kwargs) {
    gd_ext_class *c = class_of(Py_TYPE(self));
    gd_ext_instance *in = (gd_ext_instance *)self;
    if (c == NULL || c->init == NULL) {
        PyErr_Format(PyExc_TypeError, "cannot create '%.200s' instances", Py_TYPE(self)->tp_name);
        return -1;
    }
    int32_t unclaimed = 0;
    if (!__atomic_compare_exchange_n(&in->initing, &unclaimed, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        PyErr_Format(PyExc_RuntimeError, "%.200s.__init__() called twice on one instance",
                     c->type->tp_name);
        return -1;
    }
    return take_go_value(in, c, PyObject_Call(c->init, args, kwargs), "constructor");
}

/* Gives in, claimed (initing), the Go value of made, a new instance a Go function
 * made (NULL: its exception, the claim given back): __init__'s and __setstate__'s end. */
static int take_go_value(gd_ext_instance *in, gd_ext_class *c, PyObject *made, const char *what) {
    if (made != NULL && (!PyObject_TypeCheck(made, c->type) || ((gd_ext_instance *)made)->handle == 0)) {
        PyErr_Format(PyExc_TypeError, "%.200s(): the Go %s returned nil", c->type->tp_name, what);
        Py_CLEAR(made);
    }
    if (made == NULL) {
        __atomic_store_n(&in->initing, 0, __ATOMIC_RELEASE);
        return -1;
    }
    in->pinned = ((gd_ext_instance *)made)->pinned; /* the id's pin */
    __atomic_store_n(&in->handle, ((gd_ext_instance *)made)->handle, __ATOMIC_RELEASE);
    ((gd_ext_instance *)made)->handle = 0;
    ((gd_ext_instance *)made)->pinned = NULL;
    Py_DECREF(made);
    return 0;
}

/* __setstate__(state) of a class with Pickle: unpickling made the instance with
 * Cls.__new__ (no Go value); Pickle's restore, called with the state's items, makes
 * the Go value, which the instance takes as from __init__ (claimed the same way:
 * once, and never over a Go value it has). */
static PyObject *instance_setstate(PyObject *self, PyObject *state) {
    gd_ext_class *c = class_of(Py_TYPE(self));
    gd_ext_instance *in = (gd_ext_instance *)self;
    if (c == NULL || c->setstate == NULL) {
        PyErr_Format(PyExc_TypeError, "'%.200s' object cannot be unpickled", Py_TYPE(self)->tp_name);
        return NULL;
    }
    if (!PyTuple_Check(state)) {
        PyErr_Format(PyExc_TypeError,
                     "%.200s.__setstate__(): the state must be a tuple (what __getstate__ returns), not %.200s",
                     c->type->tp_name, Py_TYPE(state)->tp_name);
        return NULL;
    }
    int32_t unclaimed = 0;
    if (!__atomic_compare_exchange_n(&in->initing, &unclaimed, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        PyErr_Format(PyExc_RuntimeError,
                     "%.200s.__setstate__() on an instance that has its Go value: only unpickling calls it",
                     c->type->tp_name);
        return NULL;
    }
    if (take_go_value(in, c, PyObject_Call(c->setstate, state, NULL), "restore") < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef pickle_methods[] = {
    {"__setstate__", instance_setstate, METH_O,
     "__setstate__($self, state, /)\n--\n\nGives an unpickled instance its Go value, made from state "
     "(what __getstate__ returned) by the class's Go restore function."},
    {NULL, NULL, 0, NULL},
};

/* A vectorcall made a tp_call (tuple and dict), for a callable that is not a bound class. */
static PyObject *vectorcall_as_tp_call(PyObject *callable, ternaryfunc call, PyObject *const *args,
                                       size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *tuple = PyTuple_New(nargs);
    PyObject *kwargs = nkw != 0 ? PyDict_New() : NULL;
    if (tuple == NULL || (nkw != 0 && kwargs == NULL)) {
        Py_XDECREF(tuple);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    }
    for (Py_ssize_t j = 0; j < nkw; j++) {
        if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, j), args[nargs + j]) < 0) {
            Py_DECREF(tuple);
            Py_DECREF(kwargs);
            return NULL;
        }
    }
    PyObject *r = call(callable, tuple, kwargs);
    Py_DECREF(tuple);
    Py_XDECREF(kwargs);
    return r;
}

/* Cls(...) of the bound class itself (its tp_vectorcall; a Python subclass does not
 * inherit it and goes through tp_new and __init__): the constructor's function makes
 * the one instance, with no tp_new, argument tuple or second instance whose Go value
 * __init__ would move (those were a third of a creation's C time: docs/performance.md,
 * Classes). */
static PyObject *class_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
    PyTypeObject *type = (PyTypeObject *)callable;
    gd_ext_class *c = NULL;
    for (int i = 0; i < nclasses && c == NULL; i++) {
        c = gd_ext_classes[i].type == type ? &gd_ext_classes[i] : NULL;
    }
    if (c == NULL || c->init == NULL) { /* not a bound class: type's own call */
        return vectorcall_as_tp_call(callable, PyType_Type.tp_call, args, nargsf, kwnames);
    }
    /* The constructor's table called directly: no function object's call between
     * (its vectorcall, the module state's read). */
    PyObject *made = c->init_func != NULL
                         ? gd_ext_call_func(c->init_func, args, PyVectorcall_NARGS(nargsf), kwnames)
                         : PyObject_Vectorcall(c->init, args, nargsf, kwnames);
    if (made != NULL && !PyObject_TypeCheck(made, type)) { /* None: a nil *T */
        Py_DECREF(made);
        PyErr_Format(PyExc_TypeError, "%.200s(): the Go constructor returned nil", type->tp_name);
        return NULL;
    }
    return made;
}

/* __iter__: an iterator over the sequence the Go function returns. */
static PyObject *instance_iter(PyObject *self) {
    gd_ext_class *c = class_of(Py_TYPE(self));
    if (c == NULL || c->iter == NULL) {
        PyErr_Format(PyExc_TypeError, "'%.200s' object is not iterable", Py_TYPE(self)->tp_name);
        return NULL;
    }
    PyObject *seq = PyObject_CallOneArg(c->iter, self);
    if (seq == NULL) {
        return NULL;
    }
    PyObject *it = PyObject_GetIter(seq);
    Py_DECREF(seq);
    return it;
}

/* ---- go_iterator: a Python iterator pulling a Go sequence (iter.Seq, iter.Seq2) ----
 * A function returning a Go iterator returns one (ext_result.go's pulledSeq): each
 * next() asks Go for one item, the GIL released while the sequence runs; its end is
 * StopIteration (NULL with no exception), for good. Its dealloc ends the sequence
 * (goExtIterStop: its yield returns false, its deferred calls run), so an iterator
 * dropped halfway leaves no goroutine behind. Two threads' next() on one iterator
 * (free-threaded) take turns in Go. */
typedef struct {
    PyObject_HEAD
    int64_t id;
} gd_ext_iter;

static PyTypeObject *iter_type; /* made at the first exec (gd_ext_iter_ready), kept for good */

static PyObject *iter_next(PyObject *self) {
    GD_EXT_RESULT_INIT(res);
    int more;
    Py_BEGIN_ALLOW_THREADS
    more = goExtIterNext(((gd_ext_iter *)self)->id, &res);
    Py_END_ALLOW_THREADS
    if (more == 0) {
        gd_ext_result_free(&res);
        return NULL; /* StopIteration */
    }
    return gd_ext_build(&res); /* an item, or the error written into res */
}

static void iter_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    gd_ext_iter_release(((gd_ext_iter *)self)->id);
    tp->tp_free(self);
    Py_DECREF(tp);
}

void gd_ext_iter_release(int64_t id) { goExtIterStop(id); }

PyObject *gd_ext_iter_new(int64_t id) {
    gd_ext_iter *it = PyObject_New(gd_ext_iter, iter_type);
    if (it != NULL) {
        it->id = id;
    }
    return (PyObject *)it;
}

int gd_ext_iter_ready(void) {
    static PyType_Slot slots[] = {
        {Py_tp_iter, (void *)PyObject_SelfIter},
        {Py_tp_iternext, (void *)iter_next},
        {Py_tp_dealloc, (void *)iter_dealloc},
        {Py_tp_doc, (void *)"An iterator over a Go sequence (iter.Seq, iter.Seq2)."},
        {0, NULL},
    };
    static PyType_Spec spec = {"godlpack.go_iterator", sizeof(gd_ext_iter), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, slots};
    if (iter_type != NULL) {
        return 0;
    }
    PyTypeObject *t = (PyTypeObject *)PyType_FromSpec(&spec);
    if (t == NULL) {
        return -1;
    }
    gd_immortalize_type(t); /* every thread makes and drops iterators: as the classes */
    iter_type = t;
    return 0;
}

/* ==, != of a class with __eq__: an object __eq__ does not take (not an instance of
 * its other's class) is NotImplemented, so that Python tries the other side and ==
 * falls back to identity (False), as for a Python class's __eq__ returning
 * NotImplemented; never a TypeError for comparing unlike things. */
static PyObject *instance_richcompare(PyObject *self, PyObject *other, int op) {
    gd_ext_class *c = class_of(Py_TYPE(self));
    if ((op != Py_EQ && op != Py_NE) || c == NULL || c->eq == NULL) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (c->eq_other >= 0) {
        PyTypeObject *want = gd_ext_classes[c->eq_other].type;
        if (want == NULL || !PyObject_TypeCheck(other, want) ||
            ((gd_ext_instance *)other)->handle == 0) {
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    PyObject *args[2] = {self, other};
    PyObject *r = PyObject_Vectorcall(c->eq, args, 2, NULL);
    if (r == NULL || op == Py_EQ) {
        return r;
    }
    int truth = PyObject_IsTrue(r);
    Py_DECREF(r);
    return truth < 0 ? NULL : PyBool_FromLong(!truth);
}

/* ---- the buffer protocol (ClassDef.Buffer): a read-only 1-D view of a Go slice ----
 * Go pins the slice's array from the view's making to its release (goExtGetBuffer,
 * goExtReleaseBuffer) and the view holds the instance (view->obj), so the memory
 * neither moves nor goes while the view exists. The view's shape and stride live in
 * view->internal, freed at the release. */
typedef struct {
    Py_ssize_t shape, stride;
    uint64_t token;
} buffer_dims;

static char empty_buffer[8]; /* an empty slice's view: an address, never read */

static int instance_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    gd_ext_class *c = class_of(Py_TYPE(self));
    uintptr_t h = __atomic_load_n(&((gd_ext_instance *)self)->handle, __ATOMIC_ACQUIRE);
    view->obj = NULL;
    if (c == NULL || c->buffer_format == NULL) {
        PyErr_Format(PyExc_TypeError, "a bytes-like object is required, not '%.200s'",
                     Py_TYPE(self)->tp_name);
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
        PyErr_Format(PyExc_BufferError, "%.200s's buffer is read-only: it shows Go's memory",
                     c->type->tp_name);
        return -1;
    }
    if (h == 0) {
        PyErr_Format(PyExc_BufferError, "%.200s: no Go value to view (__init__ not run)",
                     c->type->tp_name);
        return -1;
    }
    buffer_dims *d = malloc(sizeof(buffer_dims));
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    gd_ext_buffer_out out = {0};
    if (goExtGetBuffer((int32_t)(c - gd_ext_classes), h, &out) < 0) {
        PyErr_SetString(PyExc_RuntimeError, out.err != NULL ? out.err : "the buffer's Go function failed");
        free(out.err);
        free(d);
        return -1;
    }
    d->shape = (Py_ssize_t)out.len;
    d->stride = c->buffer_itemsize;
    d->token = out.token;
    view->buf = out.len > 0 ? (void *)out.buf : empty_buffer;
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)out.len * c->buffer_itemsize;
    view->itemsize = c->buffer_itemsize;
    view->readonly = 1;
    view->ndim = 1;
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)c->buffer_format : NULL;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? &d->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &d->stride : NULL;
    view->suboffsets = NULL;
    view->internal = d;
    return 0;
}

static void instance_releasebuffer(PyObject *self, Py_buffer *view) {
    (void)self;
    buffer_dims *d = view->internal;
    if (d != NULL) {
        if (d->token != 0) {
            goExtReleaseBuffer(d->token);
        }
        free(d);
        view->internal = NULL;
    }
}

static PyObject *property_get(PyObject *self, void *closure) {
    return gd_ext_call_getter(((gd_ext_property *)closure)->get_func, self);
}

/* An AtomicProperty: its field loaded atomically from the instance's Go value, with
 * no call into Go but the first, which pins the value (goExtPinInstance) until its
 * release at dealloc. The caller holds self, so its Go value is alive; Go writes
 * the field only atomically, so the load races nothing. Two threads' first reads
 * both ask Go, which pins once and gives both the same address. */
static PyObject *field_get(PyObject *self, void *closure) {
    gd_ext_property *p = closure;
    gd_ext_instance *in = (gd_ext_instance *)self;
    char *base = __atomic_load_n(&in->pinned, __ATOMIC_ACQUIRE);
    if (base == NULL) {
        if (in->handle == 0) { /* no Go value (an __init__ not run): the getter says so */
            return property_get(self, closure);
        }
        base = (char *)goExtPinInstance(in->handle);
        __atomic_store_n(&in->pinned, base, __ATOMIC_RELEASE);
    }
    const void *at = base + p->field_offset;
    switch (p->field_kind) {
    case GD_EXT_FIELD_INT64:
        return PyLong_FromLongLong(__atomic_load_n((const int64_t *)at, __ATOMIC_SEQ_CST));
    case GD_EXT_FIELD_UINT64:
        return PyLong_FromUnsignedLongLong(__atomic_load_n((const uint64_t *)at, __ATOMIC_SEQ_CST));
    case GD_EXT_FIELD_INT32:
        return PyLong_FromLong(__atomic_load_n((const int32_t *)at, __ATOMIC_SEQ_CST));
    case GD_EXT_FIELD_UINT32:
        return PyLong_FromUnsignedLong(__atomic_load_n((const uint32_t *)at, __ATOMIC_SEQ_CST));
    case GD_EXT_FIELD_BOOL: /* atomic.Bool: a uint32, 0 or 1 */
        return PyBool_FromLong(__atomic_load_n((const uint32_t *)at, __ATOMIC_SEQ_CST) != 0);
    }
    PyErr_Format(PyExc_SystemError, "godlpack: a field property of unknown kind %d", p->field_kind);
    return NULL;
}

static int property_set(PyObject *self, PyObject *value, void *closure) {
    gd_ext_property *p = closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete a property of a Go class");
        return -1;
    }
    if (p->set == NULL) {
        PyErr_Format(PyExc_AttributeError, "property of '%.200s' object is read-only",
                     Py_TYPE(self)->tp_name);
        return -1;
    }
    PyObject *args[2] = {self, value};
    PyObject *r = gd_ext_call_func(p->set_func, args, 2, NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

PyTypeObject *gd_ext_class_new(int32_t id, const char *qualname, const char *doc, int final,
                               int has_init, int has_iter, int has_eq, int has_buffer,
                               int has_pickle, int nprops, const char **prop_names,
                               const char **prop_docs, gd_ext_property *props) {
    if (id < 0 || id >= GD_EXT_MAX_CLASSES) {
        PyErr_Format(PyExc_ImportError, "at most %d classes are supported", GD_EXT_MAX_CLASSES);
        return NULL;
    }
    /* The spec, slots and getset table live for good: a type may keep pointers into them. */
    PyGetSetDef *gs = calloc((size_t)nprops + 1, sizeof(PyGetSetDef));
    PyType_Slot *slots = calloc(13, sizeof(PyType_Slot));
    PyMemberDef *members = calloc(2, sizeof(PyMemberDef));
    PyType_Spec *spec = calloc(1, sizeof(PyType_Spec));
    if (gs == NULL || slots == NULL || spec == NULL || members == NULL) {
        free(members);
        free(gs);
        free(slots);
        free(spec);
        PyErr_NoMemory();
        return NULL;
    }
    for (int i = 0; i < nprops; i++) {
        gs[i].name = prop_names[i];
        gs[i].doc = prop_docs[i];
        gs[i].get = props[i].field_kind != 0 ? field_get : property_get;
        gs[i].set = property_set;
        gs[i].closure = &props[i];
    }
    int n = 0;
    slots[n++] = (PyType_Slot){Py_tp_dealloc, (void *)instance_dealloc};
    slots[n++] = (PyType_Slot){Py_tp_doc, (void *)doc};
    slots[n++] = (PyType_Slot){Py_tp_getset, gs};
    /* __weaklistoffset__: how a type made from a spec says where its weakref list is. */
    members[0] = (PyMemberDef){"__weaklistoffset__", GD_T_PYSSIZET,
                               offsetof(gd_ext_instance, weaklist), GD_READONLY, NULL};
    slots[n++] = (PyType_Slot){Py_tp_members, members};
    if (has_eq) {
        slots[n++] = (PyType_Slot){Py_tp_richcompare, (void *)instance_richcompare};
    }
    if (has_iter) {
        slots[n++] = (PyType_Slot){Py_tp_iter, (void *)instance_iter};
    }
    if (has_pickle) {
        slots[n++] = (PyType_Slot){Py_tp_methods, pickle_methods};
    }
    if (has_buffer) {
        slots[n++] = (PyType_Slot){Py_bf_getbuffer, (void *)instance_getbuffer};
        slots[n++] = (PyType_Slot){Py_bf_releasebuffer, (void *)instance_releasebuffer};
    }
    if (has_init) {
        slots[n++] = (PyType_Slot){Py_tp_new, (void *)PyType_GenericNew};
        slots[n++] = (PyType_Slot){Py_tp_init, (void *)instance_init};
    }
    slots[n] = (PyType_Slot){0, NULL};
    spec->name = qualname;
    spec->basicsize = sizeof(gd_ext_instance);
    spec->flags = Py_TPFLAGS_DEFAULT | (final ? 0 : Py_TPFLAGS_BASETYPE) |
                  (has_init ? 0 : Py_TPFLAGS_DISALLOW_INSTANTIATION);
    spec->slots = slots;
    PyTypeObject *t = (PyTypeObject *)PyType_FromSpec(spec);
    if (t == NULL) {
        return NULL;
    }
    if (has_init) {
        t->tp_vectorcall = class_vectorcall; /* set before any call: read only afterwards */
    }
    if (has_eq && PyObject_SetAttrString((PyObject *)t, "__hash__", Py_None) < 0) {
        Py_DECREF(t); /* unhashable, as a class statement defining __eq__ makes it */
        return NULL;
    }
    gd_ext_classes[id].type = t; /* the reference is kept for good */
    const char *dot = strrchr(qualname, '.');
    gd_ext_classes[id].name = dot != NULL ? dot + 1 : qualname;
    if (id >= nclasses) {
        nclasses = id + 1;
    }
    return t;
}

/* ---- gd_method: an instance method as a method descriptor ----
 * A method's function in the class dict, as nanobind's nb_method: a descriptor whose
 * type has Py_TPFLAGS_METHOD_DESCRIPTOR, so that h.m(...) (LOAD_METHOD, CALL) and a
 * dunder's slot call it with the instance first and make no bound method. An
 * instancemethod made one per call (PyMethod_New, its vectorcall and its dealloc):
 * ~70 ns of h.counts()'s ~440 (docs/performance.md, Crossings). Read as h.m, it is
 * a bound method as a function's; read on the class, itself, with the function's
 * name, qualname, doc, text signature and module (what inspect and help() read). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *func;        /* the function object (gd_ext_function), for its attributes */
    const gd_ext_func *f;  /* its C table, called directly */
} gd_method;

static PyTypeObject *method_type; /* made at the first method, kept for good */

static PyObject *method_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames) {
    return gd_ext_call_func(((gd_method *)self)->f, args, PyVectorcall_NARGS(nargsf), kwnames);
}

static PyObject *method_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None) { /* read on the class */
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyObject *method_attr(PyObject *self, void *name) {
    return PyObject_GetAttrString(((gd_method *)self)->func, (const char *)name);
}

static PyObject *method_repr(PyObject *self) { return PyObject_Repr(((gd_method *)self)->func); }

static void method_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(((gd_method *)self)->func);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static int method_ready(void) {
    static PyGetSetDef getset[] = {
        {"__name__", method_attr, NULL, NULL, "__name__"},
        {"__qualname__", method_attr, NULL, NULL, "__qualname__"},
        {"__doc__", method_attr, NULL, NULL, "__doc__"},
        {"__text_signature__", method_attr, NULL, NULL, "__text_signature__"},
        {"__module__", method_attr, NULL, NULL, "__module__"},
        {NULL, NULL, NULL, NULL, NULL},
    };
    static PyMemberDef members[] = {
        {"__vectorcalloffset__", GD_T_PYSSIZET, offsetof(gd_method, vectorcall), GD_READONLY, NULL},
        {NULL, 0, 0, 0, NULL},
    };
    static PyType_Slot slots[] = {
        {Py_tp_dealloc, (void *)method_dealloc},
        {Py_tp_descr_get, (void *)method_get},
        {Py_tp_call, (void *)PyVectorcall_Call},
        {Py_tp_repr, (void *)method_repr},
        {Py_tp_getset, getset},
        {Py_tp_members, members},
        {0, NULL},
    };
    static PyType_Spec spec = {"godlpack.go_method", sizeof(gd_method), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION |
                                   Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_HAVE_VECTORCALL,
                               slots};
    if (method_type == NULL) {
        PyTypeObject *t = (PyTypeObject *)PyType_FromSpec(&spec);
        if (t == NULL) {
            return -1;
        }
        gd_immortalize_type(t); /* its methods are made immortal with their class's dict */
        method_type = t;
    }
    return 0;
}

/* fn, f's function object, as a gd_method (a new reference), or NULL with an error. */
static PyObject *method_new(PyObject *fn, const gd_ext_func *f) {
    if (method_ready() < 0) {
        return NULL;
    }
    gd_method *m = PyObject_New(gd_method, method_type);
    if (m == NULL) {
        return NULL;
    }
    m->vectorcall = method_vectorcall;
    m->func = Py_NewRef(fn);
    m->f = f;
    return (PyObject *)m;
}

int gd_ext_class_set_method(PyObject *type, PyObject *fn, int how, const gd_ext_func *f) {
    /* A method is a gd_method (above); setting it on the type updates the slot of a
     * dunder (__repr__, __len__, __getitem__), whose slot then calls it unbound too.
     * staticmethod and classmethod are Python's own descriptors, as @staticmethod and
     * @classmethod make them. */
    PyObject *name = PyObject_GetAttrString(fn, "__name__");
    PyObject *m = name == NULL                   ? NULL
                  : how == GD_EXT_STATIC_METHOD ? PyStaticMethod_New(fn)
                  : how == GD_EXT_CLASS_METHOD  ? PyClassMethod_New(fn)
                                                : method_new(fn, f);
    int rc = m != NULL ? PyObject_SetAttr(type, name, m) : -1;
    Py_XDECREF(m);
    Py_XDECREF(name);
    return rc;
}

/* An instance's dealloc releases its Go value's id with no call into Go (~40 ns of a
 * creation-and-drop: docs/performance.md, Crossings): a push onto a lock-free stack
 * in C memory, which Go takes whole and empties the slots of (when, and why C
 * cannot empty them itself: ext_class_cpython.go). Any thread, with or without
 * the GIL, after finalization too. */
uint32_t gd_ext_released_head;
uint32_t *gd_ext_released_next[GD_EXT_ID_CHUNKS];

void gd_ext_instance_release(uintptr_t id) {
    uint32_t **chunk_at = &gd_ext_released_next[id >> GD_EXT_ID_CHUNK_BITS];
    uint32_t *chunk = __atomic_load_n(chunk_at, __ATOMIC_ACQUIRE);
    if (chunk == NULL) { /* the first release in this chunk of ids */
        uint32_t *fresh = calloc((size_t)1 << GD_EXT_ID_CHUNK_BITS, sizeof(uint32_t));
        if (fresh == NULL) { /* no memory for the link: released by a call */
            goExtReleaseInstances(&id, 1);
            return;
        }
        if (__atomic_compare_exchange_n(chunk_at, &chunk, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            chunk = fresh;
        } else {
            free(fresh); /* another thread's came first: chunk is it */
        }
    }
    uint32_t *next = &chunk[id & ((1u << GD_EXT_ID_CHUNK_BITS) - 1)];
    uint32_t head = __atomic_load_n(&gd_ext_released_head, __ATOMIC_RELAXED);
    do { /* the link before the push that publishes it (release order) */
        __atomic_store_n(next, head, __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&gd_ext_released_head, &head, (uint32_t)id, 1,
                                          __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

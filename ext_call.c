//go:build godlpack_python

/* ext_call.c: the per-call path of a function of an extension written in Go (ext.h
 * has the flow): bind the arguments to the parameters, convert each in C, release
 * the GIL around ONE cgo call into Go, then build the result. A C->Go crossing
 * costs ~70-90 ns, so nothing here calls Go but goExtCall itself; the rules a
 * tensor must meet (dtype, ndim, shape, layout, writable) are Go's, checked
 * inside that one call. */
#include "ext.h"
#include "_cgo_export.h"
#include "gd_python.h" /* gd_numpy_lend */

#include <stdlib.h>
#include <string.h>

const gd_capi *gd_ext_capi;

PyObject *gd_ext_exc_type(int32_t k) {
    switch (k) {
    case GD_EXT_EXC_TYPE: return PyExc_TypeError;
    case GD_EXT_EXC_RUNTIME: return PyExc_RuntimeError;
    case GD_EXT_EXC_INDEX: return PyExc_IndexError;
    case GD_EXT_EXC_KEY: return PyExc_KeyError;
    case GD_EXT_EXC_OVERFLOW: return PyExc_OverflowError;
    case GD_EXT_EXC_ZERO_DIVISION: return PyExc_ZeroDivisionError;
    case GD_EXT_EXC_MEMORY: return PyExc_MemoryError;
    case GD_EXT_EXC_BUFFER: return PyExc_BufferError;
    case GD_EXT_EXC_NOT_IMPLEMENTED: return PyExc_NotImplementedError;
    case GD_EXT_EXC_OS: return PyExc_OSError;
    }
    if (k >= GD_EXT_EXC_COUNT && k - GD_EXT_EXC_COUNT < GD_EXT_MAX_EXCEPTIONS &&
        gd_ext_exceptions[k - GD_EXT_EXC_COUNT] != NULL) {
        return gd_ext_exceptions[k - GD_EXT_EXC_COUNT]; /* the module's own (ErrorClass) */
    }
    switch (k) {
    default: return PyExc_ValueError;
    }
}

/* ---- binding: positional and keyword arguments to parameters ---- */

static int param_index(const gd_ext_func *f, PyObject *name) {
    for (int i = 0; i < f->nparams; i++) {
        if (f->params[i].name_obj == name && i != f->varargs && i != f->varkw) {
            return i;
        }
    }
    for (int i = 0; i < f->nparams; i++) {
        if (i != f->varargs && i != f->varkw && PyUnicode_Compare(f->params[i].name_obj, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* How many arguments a call of f converts: its parameters, *args standing for the
 * positional arguments past npositional (none: nparams - 1). */
static int nbound(const gd_ext_func *f, Py_ssize_t nargs) {
    if (f->varargs < 0) {
        return f->nparams;
    }
    return f->nparams - 1 + (int)(nargs > f->npositional ? nargs - f->npositional : 0);
}

/* bound[i]: the argument of parameter i (borrowed from the call), NULL for a default;
 * *args's elements last (nbound), **kwargs a new dict, *kwdict, released by the caller.
 * Python's rules and messages; ext_gocall_nopython.go's boundArgs is the same in Go. */
static int bind(const gd_ext_func *f, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                PyObject **bound, PyObject **kwdict) {
    const char *name = f->def.ml_name;
    if (nargs > f->npositional && f->varargs < 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given", name,
                     f->npositional, f->npositional == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < f->nparams; i++) {
        bound[i] = i < nargs && i < f->npositional ? args[i] : NULL;
    }
    for (Py_ssize_t j = f->npositional; j < nargs; j++) { /* *args's (nbound) */
        bound[f->varargs + (j - f->npositional)] = args[j];
    }
    if (f->varkw >= 0) {
        *kwdict = PyDict_New();
        if (*kwdict == NULL) {
            return -1;
        }
        bound[f->varkw] = *kwdict;
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *kw = PyTuple_GET_ITEM(kwnames, j);
        int i = param_index(f, kw);
        if (i < 0 && f->varkw >= 0) {
            if (PyDict_SetItem(*kwdict, kw, args[nargs + j]) < 0) {
                return -1;
            }
            continue;
        }
        if (i < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", name, kw);
            return -1;
        }
        if (bound[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                         f->params[i].name);
            return -1;
        }
        bound[i] = args[nargs + j];
    }
    for (int i = 0; i < f->nparams; i++) {
        if (bound[i] == NULL && !f->params[i].has_default && i != f->varargs && i != f->varkw) {
            if (i >= f->npositional) { /* after "*": it has no position to name */
                PyErr_Format(PyExc_TypeError, "%s() missing required keyword-only argument '%s'",
                             name, f->params[i].name);
            } else {
                PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", name,
                             f->params[i].name, i + 1);
            }
            return -1;
        }
    }
    return 0;
}

/* ---- conversion of one argument ---- */

static int expected(const gd_ext_func *f, const gd_ext_param *p, const char *what, PyObject *o) {
    PyErr_Format(PyExc_TypeError, "%s(): argument %s: expected %s, got %.200s", f->def.ml_name,
                 p->name, what, Py_TYPE(o)->tp_name);
    return -1;
}

/* add_note adds note to the exception value (PEP 678: add_note; on 3.10, which has
 * none, the __notes__ list that backports print). A note that cannot be added (an
 * exception refusing attributes, a __notes__ that is no list) is left out: the
 * exception matters, not its note. Called with no exception pending; leaves none. */
static void add_note(PyObject *value, PyObject *note) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *r = PyObject_CallMethod(value, "add_note", "O", note);
#else
    PyObject *r = PyObject_GetAttrString(value, "__notes__");
    if (r != NULL && PyList_Check(r)) {
        Py_SETREF(r, PyList_Append(r, note) == 0 ? Py_NewRef(Py_None) : NULL);
    } else if (r == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyObject *notes = PyList_New(1);
        if (notes != NULL) {
            PyList_SET_ITEM(notes, 0, Py_NewRef(note));
            r = PyObject_SetAttrString(value, "__notes__", notes) == 0 ? Py_NewRef(Py_None) : NULL;
            Py_DECREF(notes);
        }
    }
#endif
    Py_XDECREF(r);
    PyErr_Clear();
}

void gd_ext_add_note(PyObject *exc, const char *note, Py_ssize_t n) {
    PyObject *s = PyUnicode_DecodeUTF8(note, n, "replace");
    if (s != NULL) {
        add_note(exc, s);
        Py_DECREF(s);
    }
    PyErr_Clear(); /* no memory for the note: the exception is raised without it */
}

/* The pending exception, raised by the argument's own code (its __dlpack__,
 * __index__, __float__, a str that UTF-8 cannot encode) or by the import, passed on
 * as it is, with "f(): argument x" added as a note (add_note). Never rebuilt as
 * type(e)(prefix + str(e)): that breaks exceptions whose constructor takes other
 * arguments (UnicodeEncodeError's five, a producer's E(a, b)), loses their args and
 * attributes (SystemExit(3)'s status) and quotes a KeyError's message twice. */
static int note_error(const gd_ext_func *f, const gd_ext_param *p) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *note = value != NULL ? PyUnicode_FromFormat("%s(): argument %s", f->def.ml_name,
                                                          p->name)
                                   : NULL;
    if (note != NULL) {
        add_note(value, note);
        Py_DECREF(note);
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return -1;
}

/* Whether o offers a tensor, so that a TypeError of its import is its own (its
 * __dlpack__'s, a malformed capsule's) and passes on; else the argument is no tensor
 * at all and "expected a tensor" says so. Runs with the pending exception aside. */
static int offers_tensor(PyObject *o) {
    if (PyCapsule_CheckExact(o)) {
        return 1;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *m = PyObject_GetAttrString(o, "__dlpack__");
    int has = m != NULL;
    Py_XDECREF(m);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return has;
}

/* numpy.ndarray, once an argument was one: its tensors are read from its fields
 * here, with the godlpack module's own reader (internal/cpython/numpy_lend.c,
 * compiled into every extension too), not through its C-API's lend, whose call and type lookup cost
 * ~3 ns of a ~75 ns call. One NumPy is imported in a process at most; until it is
 * seen, the last other type is remembered, so that a program passing only other
 * tensors (PyTorch's) asks gd_numpy_type_is once per type change, not per call.
 * Each type is held (a reference), so that its address is never another type's.
 * Both are swapped atomically: on a free-threaded build threads passing different
 * types replace other_type at once, and each must drop the reference of the type it
 * replaced, never the same one twice (Py_XSETREF's read-then-write did). */
static PyTypeObject *numpy_type;
static PyTypeObject *other_type;

static int numpy_type_is(PyTypeObject *tp) {
    PyTypeObject *np = __atomic_load_n(&numpy_type, __ATOMIC_ACQUIRE);
    if (tp == np) {
        return 1;
    }
    if (np != NULL || tp == __atomic_load_n(&other_type, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    if (!gd_numpy_type_is(tp)) {
        PyTypeObject *held = (PyTypeObject *)Py_NewRef((PyObject *)tp);
        Py_XDECREF(__atomic_exchange_n(&other_type, held, __ATOMIC_ACQ_REL));
        return 0;
    }
    PyTypeObject *none = NULL, *held = (PyTypeObject *)Py_NewRef((PyObject *)tp);
    if (!__atomic_compare_exchange_n(&numpy_type, &none, held, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        Py_DECREF(held); /* another thread saw NumPy first: one NumPy per process */
    }
    return 1;
}

static int convert_tensor(const gd_ext_func *f, const gd_ext_param *p, PyObject *o, gd_ext_arg *a) {
    /* A godlpack.Array is read in place; a producer may lend its tensor (PyTorch
     * through its exchange API, NumPy its buffer: no allocation); anything else goes
     * through the godlpack module's from_dlpack flow (JAX, TVM-FFI by __dlpack__, raw
     * capsules consumed), and the Array it makes is held for the call. */
    a->obj = o;
    a->view.obj = NULL;
    if ((void *)Py_TYPE(o) == gd_ext_capi->array_type && gd_ext_capi->array_borrow(o, &a->m) == 0) {
        a->array = o;
        return 0;
    }
    a->array = NULL;
    if (numpy_type_is(Py_TYPE(o)) && gd_numpy_lend(o, &a->m, a->dims, GD_EXT_LEND_NDIM)) {
        return 0;
    }
    int writes = (p->kind | GD_EXT_OPTIONAL) == (GD_EXT_MUT_TENSOR | GD_EXT_OPTIONAL);
    int lent = gd_ext_capi->lend(o, &a->m, a->dims, GD_EXT_LEND_NDIM, writes, &a->view);
    if (lent != 0) {
        return lent > 0 ? 0 : note_error(f, p);
    }
    PyObject *arr = gd_ext_capi->from_dlpack(o);
    if (arr == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && !offers_tensor(o)) {
            PyErr_Clear();
            return expected(f, p, "a tensor (a DLPack producer or capsule)", o);
        }
        return note_error(f, p);
    }
    a->hold = arr;
    a->array = arr;
    gd_ext_capi->array_borrow(arr, &a->m);
    return 0;
}

/* An optional tensor (Default(name, nil) in Go): None or no argument is no tensor
 * (obj NULL, which Go's converter reads as Tensor.IsNone); 1 then, else 0 and the
 * argument converts as any tensor's. Apart from convert_tensor, which keeps its one
 * call site, so that the compiler inlines it as before: the path of a tensor that is
 * not optional is the code it was. */
static int absent_tensor(PyObject *o, gd_ext_arg *a) {
    if (o != NULL && o != Py_None) {
        return 0;
    }
    a->obj = NULL;
    a->array = NULL;
    return 1;
}

/* A tensor parameter standing for a Go slice (Function.Slices, accepts set): None
 * is no tensor, as an optional one's (a nil slice), and a list or tuple is copied
 * into a new 1-D array of the slice's element type (type_name) by
 * godlpack.asarray, held for the call. 1 when done, -1 with an exception, 0 for
 * anything else (convert_tensor's). */
static int slice_arg(const gd_ext_func *f, const gd_ext_param *p, PyObject *o, gd_ext_arg *a) {
    if (o == NULL || o == Py_None) {
        a->obj = NULL;
        a->array = NULL;
        return 1;
    }
    if (!PyList_Check(o) && !PyTuple_Check(o)) {
        return 0;
    }
    PyObject *mod = PyImport_ImportModule("godlpack");
    if (mod == NULL) {
        return -1;
    }
    PyObject *asarray = PyObject_GetAttrString(mod, "asarray");
    Py_DECREF(mod);
    if (asarray == NULL) {
        return -1;
    }
    PyObject *args = PyTuple_Pack(1, o), *kw = Py_BuildValue("{ss}", "dtype", p->type_name);
    PyObject *arr = args != NULL && kw != NULL ? PyObject_Call(asarray, args, kw) : NULL;
    Py_DECREF(asarray);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    if (arr == NULL) {
        note_error(f, p);
        return -1;
    }
    a->obj = o;
    a->view.obj = NULL;
    a->hold = arr;
    a->array = arr;
    gd_ext_capi->array_borrow(arr, &a->m);
    return 1;
}

/* An INT argument from a Python int (o: an int or an int subclass). Too large for
 * int64 is an OverflowError of our own, naming the parameter and, for a narrower Go
 * type, its range (type_name), which Go checks for the ints that fit int64. */
static int int64_arg(const gd_ext_func *f, const gd_ext_param *p, PyObject *o, gd_ext_arg *a) {
    int overflow;
    a->i = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) {
        if (p->is_enum) { /* the rule of an IntEnumFor parameter (ext_constant.go's notMember) */
            PyErr_Format(PyExc_ValueError, "%s(): argument %s: %R is not a member of %s",
                         f->def.ml_name, p->name, o, p->type_name);
        } else if (p->type_name != NULL) {
            PyErr_Format(PyExc_OverflowError, "%s(): argument %s: int out of range for %s",
                         f->def.ml_name, p->name, p->type_name);
        } else {
            PyErr_Format(PyExc_OverflowError, "%s(): argument %s: int too large for int64",
                         f->def.ml_name, p->name);
        }
        return -1;
    }
    return a->i == -1 && PyErr_Occurred() ? note_error(f, p) : 0;
}

/* A UINT argument (uint, uint64), its bits in a->i: negative or beyond uint64 is an
 * OverflowError naming the parameter, as CPython's for an unsigned C integer. */
static int uint64_arg(const gd_ext_func *f, const gd_ext_param *p, PyObject *o, gd_ext_arg *a) {
    if (o == NULL) {
        a->i = p->def_i;
        return 0;
    }
    if (PyFloat_Check(o) || !PyIndex_Check(o)) {
        return expected(f, p, "an int", o);
    }
    PyObject *idx = PyNumber_Index(o);
    if (idx == NULL) {
        return note_error(f, p);
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(idx);
    Py_DECREF(idx);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return note_error(f, p);
        }
        PyErr_Format(PyExc_OverflowError, "%s(): argument %s: int out of range for uint64 (0 to %llu)",
                     f->def.ml_name, p->name, (unsigned long long)-1);
        return -1;
    }
    a->i = (int64_t)v;
    return 0;
}

/* Whether o is of a kind an OBJECT parameter takes (GD_EXT_ACCEPT_* bits). */
static int accepts(int32_t bits, PyObject *o) {
    return ((bits & GD_EXT_ACCEPT_NONE) && o == Py_None) ||
           ((bits & GD_EXT_ACCEPT_SEQ) && (PyList_Check(o) || PyTuple_Check(o))) ||
           ((bits & GD_EXT_ACCEPT_DICT) && PyDict_Check(o)) ||
           ((bits & GD_EXT_ACCEPT_BYTES) && PyObject_CheckBuffer(o)) /* bytes-like */ ||
           ((bits & GD_EXT_ACCEPT_NUMBER) &&
            (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || PyIndex_Check(o))) ||
           ((bits & GD_EXT_ACCEPT_CALLABLE) && PyCallable_Check(o)) ||
           ((bits & GD_EXT_ACCEPT_STR) && PyUnicode_Check(o));
}

static int convert(const gd_ext_func *f, const gd_ext_param *p, PyObject *o, gd_ext_arg *a) {
    switch (p->kind) {
    case GD_EXT_OBJECT:
        a->obj = o; /* borrowed: the caller holds the arguments for the call */
        if (o != NULL && p->accepts != 0 && !accepts(p->accepts, o)) {
            return expected(f, p, p->type_name, o);
        }
        return 0;
    case GD_EXT_INSTANCE: {
        a->obj = o;
        a->i = 0;
        if (o == NULL || (o == Py_None && p->has_default)) {
            return 0; /* nil */
        }
        PyTypeObject *cls = gd_ext_classes[p->cls].type;
        if (cls == NULL || !PyObject_TypeCheck(o, cls)) {
            return expected(f, p, cls != NULL ? gd_ext_classes[p->cls].name : "a bound class", o);
        }
        a->i = (int64_t)((gd_ext_instance *)o)->handle;
        if (a->i == 0) {
            PyErr_Format(PyExc_TypeError, "%s(): argument %s: the %s was not initialized (its __init__ did not run)",
                         f->def.ml_name, p->name, Py_TYPE(o)->tp_name);
            return -1;
        }
        return 0;
    }
    case GD_EXT_UINT:
        return uint64_arg(f, p, o, a);
    case GD_EXT_TENSOR | GD_EXT_OPTIONAL:
    case GD_EXT_MUT_TENSOR | GD_EXT_OPTIONAL:
        if (absent_tensor(o, a)) {
            return 0;
        }
        /* fall through */
    case GD_EXT_TENSOR:
        if (p->accepts != 0) {
            int rc = slice_arg(f, p, o, a);
            if (rc != 0) {
                return rc < 0 ? -1 : 0;
            }
        }
        return convert_tensor(f, p, o, a);
    case GD_EXT_MUT_TENSOR:
        return convert_tensor(f, p, o, a);
    case GD_EXT_INT: {
        if (o == NULL) {
            a->i = p->def_i;
            return 0;
        }
        if (PyLong_Check(o)) {
            return int64_arg(f, p, o, a);
        }
        if (PyFloat_Check(o) || !PyIndex_Check(o)) {
            if (p->is_enum) {
                PyErr_Format(PyExc_TypeError, "%s(): argument %s: expected a member of %s or its int, got %.200s",
                             f->def.ml_name, p->name, p->type_name, Py_TYPE(o)->tp_name);
                return -1;
            }
            return expected(f, p, "an int", o);
        }
        /* An object with __index__: what it raises is its own, passed on. */
        PyObject *idx = PyNumber_Index(o);
        if (idx == NULL) {
            return note_error(f, p);
        }
        int rc = int64_arg(f, p, idx, a);
        Py_DECREF(idx);
        return rc;
    }
    case GD_EXT_FLOAT:
        if (o == NULL) {
            a->f = p->def_f;
            return 0;
        }
        if (PyFloat_CheckExact(o)) {
            a->f = PyFloat_AS_DOUBLE(o);
            return 0;
        }
        if (!PyFloat_Check(o)) {
            /* PyFloat_AsDouble's own rule, checked first: what __float__ or __index__
             * raises (a TypeError too) is then the object's own, passed on. */
            PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
            if (nb == NULL || (nb->nb_float == NULL && nb->nb_index == NULL)) {
                return expected(f, p, "a float", o);
            }
        }
        a->f = PyFloat_AsDouble(o); /* floats, ints, objects with __float__ or __index__ */
        if (a->f == -1.0 && PyErr_Occurred()) {
            if (PyLong_Check(o) && PyErr_ExceptionMatches(PyExc_OverflowError)) {
                /* an int beyond a double: the conversion's own refusal, worded as ours are */
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError,
                             "%s(): argument %s: int too large to convert to float",
                             f->def.ml_name, p->name);
                return -1;
            }
            return note_error(f, p);
        }
        return 0;
    case GD_EXT_BOOL:
        if (o == NULL) {
            a->i = p->def_i;
        } else if (o == Py_True || o == Py_False) {
            a->i = o == Py_True;
        } else {
            return expected(f, p, "a bool", o);
        }
        return 0;
    case GD_EXT_STR:
        if (o == NULL) {
            a->s = p->def_s;
            a->slen = p->def_slen;
            return 0;
        }
        if (!PyUnicode_Check(o)) {
            return expected(f, p, "a str", o);
        }
        a->s = PyUnicode_AsUTF8AndSize(o, &a->slen); /* owned by o, which the caller holds */
        return a->s == NULL ? note_error(f, p) : 0; /* UnicodeEncodeError: a lone surrogate */
    }
    PyErr_Format(PyExc_SystemError, "%s(): parameter %s of unknown kind %d", f->def.ml_name, p->name,
                 p->kind);
    return -1;
}

/* ---- the result ---- */

void gd_ext_result_free(gd_ext_result *r) {
    switch (r->kind) {
    case GD_EXT_R_ARRAY:
        if (r->p != NULL) {
            DLManagedTensorVersioned *m = r->p;
            if (m->deleter != NULL) {
                m->deleter(m);
            }
        }
        break;
    case GD_EXT_R_STR:
    case GD_EXT_R_ERROR:
        if (r->p != r->small) {
            free(r->p);
        }
        break;
    case GD_EXT_R_INSTANCE:
        if (r->i != 0) {
            gd_ext_instance_release((uintptr_t)r->i);
        }
        break;
    case GD_EXT_R_ITER:
        if (r->i != 0) {
            gd_ext_iter_release(r->i);
        }
        break;
    case GD_EXT_R_RAISE:
    case GD_EXT_R_OBJECT: {
        /* Freed by Go too (writeError), where the GIL may be released. */
        PyGILState_STATE g = PyGILState_Ensure();
        Py_XDECREF((PyObject *)r->p);
        PyGILState_Release(g);
        break;
    }
    case GD_EXT_R_TUPLE:
        for (int64_t i = 0; i < r->n; i++) {
            gd_ext_result_free((gd_ext_result *)r->p + i);
        }
        free(r->p);
        break;
    }
    r->kind = GD_EXT_R_NONE;
    r->p = NULL;
}

/* The Python value of r (NULL with an exception set); r's memory is released. cls,
 * when not NULL, is the class a class method was called on (gd_ext_func.cls_result):
 * an instance of the method's own class is made of cls. */
static PyObject *build(gd_ext_result *r, PyObject *cls) {
    PyObject *out = NULL;
    switch (r->kind) {
    case GD_EXT_R_NONE:
        out = Py_NewRef(Py_None);
        break;
    case GD_EXT_R_ARRAY: {
        void *obj = NULL;
        if (gd_ext_capi->exchange->managed_tensor_to_py_object_no_sync(r->p, &obj) == 0) {
            r->p = NULL; /* the Array owns it now */
            out = obj;
        } else {
            PyObject *type, *value, *tb; /* the deleter below may run Python code */
            PyErr_Fetch(&type, &value, &tb);
            gd_ext_result_free(r);
            PyErr_Restore(type, value, tb);
        }
        break;
    }
    case GD_EXT_R_NUMPY_SMALL:
        out = gd_ext_numpy_small(r);
        break;
    case GD_EXT_R_INT:
        out = PyLong_FromLongLong(r->i);
        break;
    case GD_EXT_R_FLOAT:
        out = PyFloat_FromDouble(r->f);
        break;
    case GD_EXT_R_BOOL:
        out = PyBool_FromLong((long)r->i);
        break;
    case GD_EXT_R_STR:
        out = PyUnicode_DecodeUTF8(r->p, (Py_ssize_t)r->n, "replace");
        break;
    case GD_EXT_R_TUPLE: {
        gd_ext_result *items = r->p;
        out = PyTuple_New((Py_ssize_t)r->n);
        for (int64_t i = 0; i < r->n; i++) {
            PyObject *item = out != NULL ? build(&items[i], NULL) : NULL;
            if (item == NULL) {
                Py_CLEAR(out); /* the remaining items are released below */
            } else {
                PyTuple_SET_ITEM(out, i, item);
            }
        }
        break;
    }
    case GD_EXT_R_INSTANCE: {
        PyTypeObject *t = gd_ext_classes[r->n].type;
        if (cls != NULL && cls != (PyObject *)t) { /* a class method's own class: cls's instance */
            if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, t)) {
                PyErr_Format(PyExc_TypeError, "%.200s's class method: %R is not a subclass of %.200s",
                             t->tp_name, cls, t->tp_name);
                break;
            }
            t = (PyTypeObject *)cls;
        }
        out = gd_ext_instance_new_of(t, (uintptr_t)r->i);
        if (out != NULL) {
            r->i = 0; /* the instance's now */
        }
        break;
    }
    case GD_EXT_R_RAISE: {
        PyObject *exc = r->p;
        r->p = NULL; /* raised: the reference is the interpreter's */
#if PY_VERSION_HEX >= 0x030C0000
        PyErr_SetRaisedException(exc);
#else
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, PyException_GetTraceback(exc));
#endif
        break;
    }
    case GD_EXT_R_ENUM: { /* the member, as Enum(value) finds it (a ValueError if none) */
        PyObject *e = r->n >= 0 && r->n < GD_EXT_MAX_ENUMS ? gd_ext_enums[r->n] : NULL;
        PyObject *v = e != NULL ? PyLong_FromLongLong(r->i) : NULL;
        out = v != NULL ? PyObject_CallOneArg(e, v) : NULL;
        Py_XDECREF(v);
        if (e == NULL) {
            PyErr_SetString(PyExc_SystemError, "godlpack extension: an enum result of no enum class");
        }
        break;
    }
    case GD_EXT_R_OBJECT:
        out = r->p;
        r->p = NULL; /* the reference is the result's now */
        break;
    case GD_EXT_R_ITER:
        out = gd_ext_iter_new(r->i);
        if (out != NULL) {
            r->i = 0; /* the iterator's now */
        }
        break;
    case GD_EXT_R_ERROR: {
        PyObject *msg = PyUnicode_DecodeUTF8(r->p, (Py_ssize_t)r->n, "replace");
        if (msg != NULL) {
            PyErr_SetObject(gd_ext_exc_type(r->exc), msg);
            Py_DECREF(msg);
        }
        break;
    }
    default:
        PyErr_Format(PyExc_SystemError, "godlpack extension: unknown result kind %d", r->kind);
    }
    gd_ext_result_free(r);
    return out;
}

PyObject *gd_ext_build(gd_ext_result *r) { return build(r, NULL); }

/* build, with the usual results (None, an int, a float: nothing to free) made inline:
 * build's call and its free's were ~7 ns of a ~110 ns property read. */
static inline PyObject *build_result(gd_ext_result *r, PyObject *cls) {
    switch (r->kind) {
    case GD_EXT_R_NONE:
        return Py_NewRef(Py_None);
    case GD_EXT_R_INT:
        return PyLong_FromLongLong(r->i);
    case GD_EXT_R_FLOAT:
        return PyFloat_FromDouble(r->f);
    }
    return build(r, cls);
}

/* ---- the framework of the arrays returned (Function.ResultIn, ResultLike) ---- */

/* The framework of a tensor argument, by its type: NumPy's, PyTorch's (torch and
 * its subclasses' modules), JAX's (jax, jaxlib); anything else (a godlpack.Array,
 * a capsule, another producer) is godlpack's. */
static int framework_of(PyObject *o) {
    if (o == NULL || numpy_type_is(Py_TYPE(o))) {
        return o == NULL ? GD_EXT_FW_GODLPACK : GD_EXT_FW_NUMPY;
    }
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__module__");
    const char *s = mod != NULL && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
    int fw = GD_EXT_FW_GODLPACK;
    if (s != NULL && strncmp(s, "torch", 5) == 0) {
        fw = GD_EXT_FW_TORCH;
    } else if (s != NULL && strncmp(s, "jax", 3) == 0) {
        fw = GD_EXT_FW_JAX;
    }
    Py_XDECREF(mod);
    PyErr_Clear();
    return fw;
}

/* The from_dlpack of a framework, imported once and kept. */
static PyObject *from_dlpack_of(int fw) {
    static PyObject *fns[GD_EXT_FW_COUNT];
    static const char *modules[GD_EXT_FW_COUNT] = {NULL, "numpy", "torch", "jax.numpy"};
    if (fns[fw] == NULL) {
        PyObject *m = PyImport_ImportModule(modules[fw]);
        fns[fw] = m != NULL ? PyObject_GetAttrString(m, "from_dlpack") : NULL;
        Py_XDECREF(m);
    }
    return fns[fw];
}

/* The framework's from_dlpack refused array, a read-only result, with a BufferError:
 * JAX's asks for a legacy capsule, which has no read-only flag, so godlpack cannot
 * export it, and its error spoke of __dlpack__ and max_version, which the caller
 * never passed. Said here as what it is, with the fix; any other error stays. */
static void read_only_refused(const gd_ext_func *f, PyObject *array, int fw) {
    static const char *names[GD_EXT_FW_COUNT] = {"godlpack", "NumPy", "PyTorch", "JAX"};
    DLManagedTensorVersioned m;
    if (f == NULL || !PyErr_ExceptionMatches(PyExc_BufferError) ||
        gd_ext_capi->array_borrow(array, &m) != 0 || (m.flags & GD_FLAG_READ_ONLY) == 0) {
        return;
    }
    PyErr_Clear();
    PyErr_Format(PyExc_BufferError,
                 "%s(): the result is read-only, and %s cannot import a read-only array (its "
                 "from_dlpack takes no read-only flag), so no copy is made for it: return a "
                 "writable tensor (a Clone), or declare another framework (ResultIn)",
                 f->def.ml_name, names[fw]);
}

/* out, a result, with its godlpack.Array items (itself, or a tuple's) made arrays of
 * framework fw by its from_dlpack: zero-copy, the new array holding the Array's
 * memory (a read-only one a framework refuses: read_only_refused, f NULL: the
 * framework's error as it is). A new reference;
 * out is released. */
static PyObject *in_framework(const gd_ext_func *f, PyObject *out, int fw) {
    if (fw == GD_EXT_FW_GODLPACK || out == NULL) {
        return out;
    }
    if ((void *)Py_TYPE(out) == gd_ext_capi->array_type) {
        if (fw == GD_EXT_FW_NUMPY) { /* NumPy's C-API, with no Python call (ext_numpy_result.c) */
            PyObject *nd = gd_ext_numpy_array(out);
            if (nd != NULL || PyErr_Occurred()) {
                Py_DECREF(out);
                return nd;
            }
        }
        PyObject *fn = from_dlpack_of(fw);
        PyObject *r = fn != NULL ? PyObject_CallOneArg(fn, out) : NULL;
        if (r == NULL && fn != NULL) {
            read_only_refused(f, out, fw);
        }
        Py_DECREF(out);
        return r;
    }
    if (PyTuple_CheckExact(out)) {
        Py_ssize_t n = PyTuple_GET_SIZE(out);
        PyObject *t = PyTuple_New(n);
        for (Py_ssize_t i = 0; t != NULL && i < n; i++) {
            PyObject *item = in_framework(f, Py_NewRef(PyTuple_GET_ITEM(out, i)), fw);
            if (item == NULL) {
                Py_CLEAR(t);
            } else {
                PyTuple_SET_ITEM(t, i, item);
            }
        }
        Py_DECREF(out);
        return t;
    }
    return out;
}

PyObject *gd_ext_array_in(PyObject *array, int fw) { return in_framework(NULL, array, fw); }

/* ---- the GIL ---- */

/* Calls that released the GIL, made by this thread: each thread counts its own, so
 * that the hot path writes no memory another thread writes (a shared counter,
 * incremented by every call of every thread, serialised free-threaded calls on its
 * cache line, and raced) and a test reads what its own calls did. */
static GD_HOT_TLS int64_t gil_releases;

int64_t gd_ext_gil_releases(void) { return gil_releases; }

/* Whether the GIL should be released around a GD_EXT_GIL_AUTO call: when another
 * thread state exists, in this interpreter or another. Only a thread with a thread
 * state can be waiting for the GIL or start to meanwhile, and releasing and taking
 * it back costs ~36 ns, more than all the rest of a short call but the C->Go
 * crossing; a Python program with one thread does not pay it. A thread with no
 * thread state yet that calls PyGILState_Ensure during the call (a C library's
 * callback thread) waits until the call ends, as during any C function that holds
 * the GIL; Go code that waits for such a thread needs ReleaseGIL. Reads pointers
 * only, comparing them with this thread's own state (never dereferencing another
 * thread's, which could be going away): two calls, a few ns. A thread state made
 * just after the look waits for the call, like one made by PyGILState_Ensure. */
static int gil_wanted(void) {
#ifdef Py_GIL_DISABLED
    return 1; /* free-threaded: detach, so that a stop-the-world does not wait for Go */
#else
    /* Thread states are listed newest first (me->prev: a newer one, me->next: an
     * older one); so are interpreters, and an extension runs in the main one (it
     * refuses others), the oldest: any other is the head. */
    PyThreadState *me = PyThreadState_Get();
#if PY_VERSION_HEX < 0x03100000
    /* prev, next and interp lead PyThreadState in 3.11-3.15 alike (cpython/pystate.h,
     * re-checked in 3.14.8's and 3.15.0's): read, they save three calls into libpython
     * (docs/performance.md, "Extension calls": where a call's time goes). */
    return me->next != NULL || me->prev != NULL || PyInterpreterState_Head() != me->interp;
#else
    /* A CPython not checked yet: the same look through the public calls. */
    PyInterpreterState *interp = PyThreadState_GetInterpreter(me);
    return PyInterpreterState_ThreadHead(interp) != me || PyThreadState_Next(me) != NULL ||
           PyInterpreterState_Head() != interp;
#endif
#endif
}

/* ---- the call ---- */

/* Whether the pending exception of an argument that did not convert says it does not
 * fit (a TypeError: not of its type; an OverflowError: not in its range), so that an
 * overload set tries its next alternative; any other is raised as it is. */
static int unfit_error(void) {
    return PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_OverflowError);
}

/* One call of f. *mismatch (when not NULL) is set when the arguments did not bind or
 * convert (unfit_error), in C or in Go before the function ran (gd_ext_result.unfit):
 * an overload set then tries its next alternative. */
static inline PyObject *invoke(const gd_ext_func *f, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, int *mismatch) {
    PyObject *bound_stack[GD_EXT_STACK_PARAMS], **bound_kw = bound_stack;
    PyObject *const *bound = args; /* every parameter passed by position: bound already */
    gd_ext_arg argv_stack[GD_EXT_STACK_PARAMS], *argv = argv_stack;
    int nargv = nbound(f, nargs), room = nargv > f->nparams ? nargv : f->nparams;
    if (room > GD_EXT_STACK_PARAMS) { /* any number of arguments: on the heap */
        bound_kw = PyMem_Malloc((size_t)room * sizeof(PyObject *));
        argv = PyMem_Malloc((size_t)room * sizeof(gd_ext_arg));
        if (bound_kw == NULL || argv == NULL) {
            PyMem_Free(bound_kw);
            PyMem_Free(argv);
            return PyErr_NoMemory();
        }
    }
    PyObject *out = NULL, *kwdict = NULL; /* **kwargs's dict (bind) */
    int n = 0;
    if (kwnames != NULL || nargs != f->fast_nargs) {
        if (bind(f, args, nargs, kwnames, bound_kw, &kwdict) < 0) {
            if (mismatch != NULL) {
                *mismatch = PyErr_ExceptionMatches(PyExc_TypeError);
            }
            goto release;
        }
        bound = bound_kw;
    }
    pthread_t caller = nargv > 0 ? pthread_self() : 0; /* for Keep's rule (gd_ext_keep) */
    for (; n < nargv; n++) {
        argv[n].hold = NULL;
        argv[n].view.obj = NULL;
        argv[n].go_tensor = 0;
        argv[n].caller = caller;
        argv[n].keep_anywhere = f->gil == GD_EXT_GIL_RELEASE;
        const gd_ext_param *p = &f->params[n < f->nparams ? n : f->nparams - 1];
        gd_ext_param element; /* an element of *args: its parameter, named with its index */
        char element_name[128];
        if (f->varargs >= 0 && n >= f->varargs) {
            element = *p;
            snprintf(element_name, sizeof element_name, "%s[%d]", p->name, n - f->varargs);
            element.name = element_name;
            p = &element;
        }
        if (convert(f, p, bound[n], &argv[n]) < 0) {
            if (mismatch != NULL) {
                *mismatch = unfit_error();
            }
            goto release;
        }
    }
    GD_EXT_RESULT_INIT(res);
    /* Resolved before the call, for its callbacks' tensor arguments as for its result:
     * framework_of clears what it meets, and no exception is pending here. */
    int fw = f->result_fw == GD_EXT_FW_LIKE ? framework_of(bound[f->result_like]) : f->result_fw;
    res.fw = fw;
    if (f->gil == GD_EXT_GIL_RELEASE || (f->gil == GD_EXT_GIL_AUTO && gil_wanted())) {
        gil_releases++;
        Py_BEGIN_ALLOW_THREADS
        goExtCall(f->id, argv, nargv, &res);
        Py_END_ALLOW_THREADS
    } else {
        goExtCall(f->id, argv, nargv, &res);
    }
    int arg_failed = res.unfit; /* build releases res */
    out = build_result(&res, f->cls_result ? bound[0] : NULL);
    if (mismatch != NULL && out == NULL && arg_failed) {
        *mismatch = unfit_error();
    }
    if (out != NULL && fw != GD_EXT_FW_GODLPACK) {
        out = in_framework(f, out, fw);
    }
release:
    Py_XDECREF(kwdict);
    /* Releasing an imported Array may run its producer's code (a NumPy array's
     * deleter): keep a pending exception aside meanwhile. */
    int held = 0;
    for (int i = 0; i < n; i++) {
        held |= argv[i].hold != NULL || argv[i].view.obj != NULL;
    }
    if (held) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        for (int i = 0; i < n; i++) {
            Py_XDECREF(argv[i].hold);
            if (argv[i].view.obj != NULL) {
                PyBuffer_Release(&argv[i].view);
            }
        }
        PyErr_Restore(type, value, tb);
    }
    if (argv != argv_stack) {
        PyMem_Free(bound_kw);
        PyMem_Free(argv);
    }
    return out;
}

/* Why an alternative did not fit: str() of the pending exception (cleared), without
 * the "f(): " every message of f starts with; NULL if it cannot be had. */
static PyObject *refusal(const gd_ext_func *f) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *s = value != NULL ? PyObject_Str(value) : NULL; /* may run its __str__ */
    PyObject *prefix = PyUnicode_FromFormat("%s(): ", f->def.ml_name);
    if (s != NULL && prefix != NULL && PyUnicode_Tailmatch(s, prefix, 0, PY_SSIZE_T_MAX, -1) == 1) {
        Py_SETREF(s, PyUnicode_Substring(s, PyUnicode_GET_LENGTH(prefix), PyUnicode_GET_LENGTH(s)));
    }
    Py_XDECREF(prefix);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    return s;
}

/* The signatures of f's alternatives, each followed by why the call's arguments did
 * not fit it (reasons: one str each, in order): since an argument that converts but
 * not to an alternative's dtype or range gives way too, the one line that says what
 * was wrong is kept. NULL (no error set) if it cannot be made: the signatures alone. */
static PyObject *signatures_with_refusals(const gd_ext_func *f, PyObject *reasons) {
    PyObject *all = PyUnicode_FromString(f->overload_sigs);
    PyObject *lines = all != NULL ? PyUnicode_Splitlines(all, 0) : NULL;
    Py_XDECREF(all);
    PyObject *out = NULL;
    if (lines != NULL && PyList_GET_SIZE(lines) == PyList_GET_SIZE(reasons)) {
        out = PyList_New(0);
        for (Py_ssize_t i = 0; out != NULL && i < PyList_GET_SIZE(lines); i++) {
            PyObject *item = PyUnicode_FromFormat("%U\n        %U", PyList_GET_ITEM(lines, i),
                                                  PyList_GET_ITEM(reasons, i));
            if (item == NULL || PyList_Append(out, item) < 0) {
                Py_CLEAR(out);
            }
            Py_XDECREF(item);
        }
    }
    PyObject *nl = PyUnicode_FromString("\n");
    PyObject *joined = out != NULL && nl != NULL ? PyUnicode_Join(nl, out) : NULL;
    Py_XDECREF(nl);
    Py_XDECREF(out);
    Py_XDECREF(lines);
    PyErr_Clear();
    return joined;
}

/* A call of an overload set (gd_ext_call_overloads): the first alternative whose
 * arguments bind and convert runs; one they do not fit (a TypeError or OverflowError
 * converting them, in C or in Go: invoke's mismatch, a tensor's dtype included) gives
 * way to the next, as nanobind's; none: a TypeError listing every signature, with why
 * each refused, and the types passed (shown: the call's own arguments). */
static PyObject *call_overloads(const gd_ext_func *f, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames, PyObject *const *shown) {
    /* Made at the first refusal: a list made on every call (a GC-tracked object)
     * was ~30% of a call of streamstats.clip's first alternative, with the young
     * collections its allocations brought on. */
    PyObject *reasons = NULL;
    int reasons_lost = 0;
    for (int i = 0; i < f->noverloads; i++) {
        int mismatch = 0;
        PyObject *r = invoke(f->overloads[i], args, nargs, kwnames, &mismatch);
        if (r != NULL || !mismatch) {
            Py_XDECREF(reasons);
            return r;
        }
        PyObject *why = refusal(f->overloads[i]);
        if (reasons == NULL && !reasons_lost) {
            reasons = PyList_New(0);
        }
        if (why == NULL || reasons == NULL || PyList_Append(reasons, why) < 0) {
            Py_CLEAR(reasons); /* the signatures alone, then */
            reasons_lost = 1;
        }
        Py_XDECREF(why);
        PyErr_Clear();
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *types = PyList_New(0);
    for (Py_ssize_t i = 0; types != NULL && i < nargs + nkw; i++) {
        PyObject *t = i < nargs ? PyUnicode_FromString(Py_TYPE(shown[i])->tp_name)
                                : PyUnicode_FromFormat("%U=%s", PyTuple_GET_ITEM(kwnames, i - nargs),
                                                       Py_TYPE(shown[i])->tp_name);
        if (t == NULL || PyList_Append(types, t) < 0) {
            Py_CLEAR(types);
        }
        Py_XDECREF(t);
    }
    PyObject *sigs = reasons != NULL ? signatures_with_refusals(f, reasons) : NULL;
    if (sigs == NULL) {
        sigs = PyUnicode_FromString(f->overload_sigs);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = types != NULL && sep != NULL ? PyUnicode_Join(sep, types) : NULL;
    if (joined != NULL && sigs != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): incompatible arguments. The supported signatures are:\n%U\n"
                     "Invoked with types: %U",
                     f->def.ml_name, sigs, joined);
    }
    Py_XDECREF(sigs);
    Py_XDECREF(joined);
    Py_XDECREF(sep);
    Py_XDECREF(types);
    Py_XDECREF(reasons);
    return NULL;
}

/* A raw DLPack capsule can be imported once: an alternative's conversion consumed it,
 * and the next alternative met a used capsule (ValueError) where it should have been
 * tried on the tensor (a float64 capsule never reached total's float64 alternative).
 * So an overload set imports each capsule argument once, as a godlpack.Array that every
 * alternative is given; the TypeError still names the types passed. */
PyObject *gd_ext_call_overloads(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    const gd_ext_func *f = *(gd_ext_func **)PyModule_GetState(self);
    Py_ssize_t n = nargs + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames)), made = 0;
    int capsules = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        capsules |= PyCapsule_CheckExact(args[i]);
    }
    if (!capsules) {
        return call_overloads(f, args, nargs, kwnames, args);
    }
    PyObject **own = PyMem_Malloc((size_t)n * sizeof(PyObject *)), *out = NULL;
    if (own == NULL) {
        return PyErr_NoMemory();
    }
    for (; made < n; made++) {
        own[made] = PyCapsule_CheckExact(args[made]) ? gd_ext_capi->from_dlpack(args[made])
                                                      : Py_NewRef(args[made]);
        if (own[made] == NULL) {
            break; /* a capsule that does not import: its error, as a function's call raises */
        }
    }
    if (made == n) {
        out = call_overloads(f, own, nargs, kwnames, args);
    }
    for (Py_ssize_t i = 0; i < made; i++) {
        Py_DECREF(own[i]);
    }
    PyMem_Free(own);
    return out;
}

PyObject *gd_ext_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    /* self is the function's own module object (ext_module.c's self_def): only
     * CPython passes it, so its state is read with no check. */
    const gd_ext_func *f = *(gd_ext_func **)PyModule_GetState(self);
    return invoke(f, args, nargs, kwnames, NULL);
}

PyObject *gd_ext_call_func(const gd_ext_func *f, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    return invoke(f, args, nargs, kwnames, NULL);
}

/* A property getter's call: f of the one parameter self, an instance of its class
 * holding a Go value, converted here with nothing of invoke's binding, argument loop
 * and releases (an int getter's ~90 ns had ~10 of them: docs/performance.md,
 * Crossings); anything else, invoke, with its errors. */
PyObject *gd_ext_call_getter(const gd_ext_func *f, PyObject *self) {
    const gd_ext_param *p = &f->params[0];
    PyTypeObject *cls = f->nparams == 1 && p->kind == GD_EXT_INSTANCE ? gd_ext_classes[p->cls].type : NULL;
    uintptr_t handle = cls != NULL && PyObject_TypeCheck(self, cls) ? ((gd_ext_instance *)self)->handle : 0;
    if (handle == 0 || f->result_fw != GD_EXT_FW_GODLPACK || f->cls_result) {
        return invoke(f, &self, 1, NULL, NULL);
    }
    gd_ext_arg a;
    a.hold = NULL;
    a.view.obj = NULL;
    a.go_tensor = 0;
    a.obj = self;
    a.i = (int64_t)handle;
    a.caller = 0; /* read only by a tensor's Keep (gd_ext_keep): not asked of an instance */
    a.keep_anywhere = f->gil == GD_EXT_GIL_RELEASE;
    GD_EXT_RESULT_INIT(res); /* fw GODLPACK: only such a getter comes here */
    if (f->gil == GD_EXT_GIL_RELEASE || (f->gil == GD_EXT_GIL_AUTO && gil_wanted())) {
        gil_releases++;
        Py_BEGIN_ALLOW_THREADS
        goExtCall(f->id, &a, 1, &res);
        Py_END_ALLOW_THREADS
    } else {
        goExtCall(f->id, &a, 1, &res);
    }
    return build_result(&res, NULL);
}

DLManagedTensorVersioned *gd_ext_keep(gd_ext_arg *a, char **err) {
    if (!a->keep_anywhere && !pthread_equal(pthread_self(), a->caller)) {
        /* This call may hold the GIL (HoldGIL, or the default in a program with one
         * thread) while the function waits for this goroutine: an error, not a hang. */
        *err = strdup("godlpack: Keep from a goroutine other than the function's own: the call "
                      "may hold the GIL meanwhile; declare the function with ReleaseGIL()");
        return NULL;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    DLManagedTensorVersioned *m = NULL;
    *err = NULL;
    PyObject *arr = a->array != NULL ? Py_NewRef(a->array) : gd_ext_capi->from_dlpack(a->obj);
    if (arr == NULL ||
        gd_ext_capi->exchange->managed_tensor_from_py_object_no_sync(arr, &m) != 0) {
        m = NULL;
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *msg = value != NULL ? PyObject_Str(value) : NULL;
        const char *s = msg != NULL ? PyUnicode_AsUTF8(msg) : NULL;
        *err = strdup(s != NULL ? s : "godlpack: Keep failed");
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
    }
    Py_XDECREF(arr); /* the export holds the owner, not the Array */
    PyGILState_Release(g);
    return m;
}

//go:build godlpack_python

/* lazy_view.c: refusing what PyTorch's exchange API drops on import: the lazy
 * conjugate and negative bits, requires_grad, and (on failure) the tensor's kind.
 *
 * torch.Tensor.conj() of a complex tensor, and .imag of such a view, return tensors
 * whose memory holds the values before conjugation or negation, with a bit that says
 * so (is_conj(), is_neg()). DLPack has no flag for either: PyTorch's __dlpack__
 * refuses the conjugate bit (BufferError) but not the negative one, and its C
 * exchange API ignores both, so importing such a tensor as it is returns silently
 * wrong values. godlpack asks the producer's type for the bits and refuses with
 * BufferError, as numpy.from_dlpack does for the conjugate bit.
 *
 * The question is asked of any type that has is_conj()/is_neg() (PyTorch's
 * convention). The methods are looked up once per type (dlpack_import.c's cache) and,
 * when they are plain C methods taking no arguments (torch's are), called through
 * their C function. Even so one question costs ~55 ns inside PyTorch, against ~87 ns
 * for a whole from_dlpack(torch_tensor), so the fast path (the exchange API, where
 * the tensor's layout is known) asks only where a public PyTorch operation can have
 * set a bit (gd_lazy_questions, inline in arraymodule.h):
 * - complex tensors: the conjugate bit (conj() sets it on nothing else);
 * - other dtypes: the negative bit, only if the layout could be .imag of complex
 *   memory (the only public operation that sets it): elements present and every
 *   dimension longer than 1 with an even stride. A real tensor with an odd stride,
 *   such as any C-contiguous one whose last dimension is longer than 1, costs nothing.
 * Not caught there: views made by torch._neg_view (a private operation), unless their
 * layout is asked about anyway. Every other path (keywords, __dlpack__), where a
 * question costs little against the whole, asks both questions always.
 *
 * requires_grad: torch.Tensor.__dlpack__ refuses a tensor that requires grad
 * (BufferError naming .detach()), as numpy.from_dlpack does, since a consumer's
 * writes to it would bypass autograd; the exchange API does not. It is asked on
 * every path, of every tensor but integer and bool ones (which PyTorch does not let
 * require grad): through the C getter of the type's getset descriptor (torch's
 * requires_grad is one), with no method call or attribute lookup. PyTorch's getter
 * itself costs about what is_neg() does (its error and warning handling): measured
 * +~55 ns on from_dlpack(torch_tensor), the price of the check its __dlpack__ makes.
 *
 * Sparse, quantized, meta, nested and MKL-DNN tensors make the exchange API raise a
 * RuntimeError with a C++ backtrace (and __dlpack__ BufferErrors that name no fix):
 * on failure only, gd_explain_unsupported asks the tensor's kind and raises
 * BufferError naming it and its fix, chained to PyTorch's error. */
#include "arraymodule.h"

static PyObject *s_is_conj, *s_is_neg, *s_requires_grad;

int gd_lazy_view_init(void) {
    s_is_conj = PyUnicode_InternFromString("is_conj");
    s_is_neg = PyUnicode_InternFromString("is_neg");
    s_requires_grad = PyUnicode_InternFromString("requires_grad");
    return (s_is_conj && s_is_neg && s_requires_grad) ? 0 : -1;
}

/* How to ask instances of tp one question: through the C function of a METH_NOARGS
 * method descriptor tp inherits (valid for any instance of tp), else by a Python
 * method call; not at all if tp has no such callable attribute. */
static void probe_init(gd_bit_probe *p, PyTypeObject *tp, PyObject *name) {
    p->present = 0;
    p->direct = NULL;
    PyObject *d = PyObject_GetAttr((PyObject *)tp, name);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    p->present = PyCallable_Check(d); /* a data attribute of that name is not asked */
    if (p->present && Py_IS_TYPE(d, &PyMethodDescr_Type)) {
        PyMethodDescrObject *md = (PyMethodDescrObject *)d;
        if ((md->d_method->ml_flags & ~METH_COEXIST) == METH_NOARGS &&
            PyType_IsSubtype(tp, PyDescr_TYPE(md))) {
            /* The function lives in the extension that defines the type, loaded for
             * as long as the type exists; the cache holds a reference on the type. */
            p->direct = md->d_method->ml_meth;
        }
    }
    Py_DECREF(d);
}

/* How to read an attribute of instances of tp: through the C getter of a getset
 * descriptor tp inherits, else by getattr. Asked only of types that have is_conj or
 * is_neg (PyTorch's convention): a data attribute of another producer's type named
 * requires_grad may mean something else. */
static void attr_probe_init(gd_attr_probe *p, PyTypeObject *tp, PyObject *name) {
    p->present = 0;
    p->get = NULL;
    p->closure = NULL;
    PyObject *d = PyObject_GetAttr((PyObject *)tp, name);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    p->present = 1;
    if (Py_IS_TYPE(d, &PyGetSetDescr_Type)) {
        PyGetSetDescrObject *gd = (PyGetSetDescrObject *)d;
        if (gd->d_getset->get != NULL && PyType_IsSubtype(tp, PyDescr_TYPE(gd))) {
            /* Lives in the type's extension, loaded while the cached type lives. */
            p->get = gd->d_getset->get;
            p->closure = gd->d_getset->closure;
        }
    }
    Py_DECREF(d);
}

void gd_lazy_probes_init(gd_lazy_probes *p, PyTypeObject *tp) {
    probe_init(&p->conj, tp, s_is_conj);
    probe_init(&p->neg, tp, s_is_neg);
    p->grad.present = 0;
    if (p->conj.present || p->neg.present) {
        attr_probe_init(&p->grad, tp, s_requires_grad);
    }
    p->any = p->conj.present || p->neg.present;
}

/* 1 if x answers true, 0 if false or the type cannot be asked, -1 with an error. */
static int probe_ask(const gd_bit_probe *p, PyObject *x, PyObject *name) {
    if (!p->present) {
        return 0;
    }
    PyObject *r = p->direct != NULL ? p->direct(x, NULL) : PyObject_CallMethodNoArgs(x, name);
    if (r == NULL) {
        return -1;
    }
    int set = r == Py_True ? 1 : r == Py_False ? 0 : PyObject_IsTrue(r);
    Py_DECREF(r);
    return set;
}

/* 1 if x's attribute is true, 0 if false or the type has none, -1 with an error. */
static int attr_ask(const gd_attr_probe *p, PyObject *x, PyObject *name) {
    if (!p->present) {
        return 0;
    }
    PyObject *r = p->get != NULL ? p->get(x, p->closure) : PyObject_GetAttr(x, name);
    if (r == NULL) {
        return -1;
    }
    int set = r == Py_True ? 1 : r == Py_False ? 0 : PyObject_IsTrue(r);
    Py_DECREF(r);
    return set;
}

/* Raises BufferError naming x's type, module-qualified ("torch.Tensor"), and bit. */
static void refuse(PyObject *x, const char *what, const char *fix) {
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(x), "__module__");
    if (mod != NULL && PyUnicode_Check(mod)) {
        PyErr_Format(PyExc_BufferError, "from_dlpack(): this %U.%s %s; call .%s() first", mod,
                     Py_TYPE(x)->tp_name, what, fix);
    } else {
        PyErr_Clear();
        PyErr_Format(PyExc_BufferError, "from_dlpack(): this %s %s; call .%s() first",
                     Py_TYPE(x)->tp_name, what, fix);
    }
    Py_XDECREF(mod);
}

/* 0 if x answers false (or cannot be asked), -1 with BufferError if true or with the
 * method's error if it failed. */
static int ask_or_refuse(PyObject *x, const gd_bit_probe *p, PyObject *name, const char *what,
                         const char *fix) {
    int set = probe_ask(p, x, name);
    if (set > 0) {
        refuse(x, what, fix);
    }
    return set == 0 ? 0 : -1;
}

int gd_refuse_hidden_state(PyObject *x, const gd_lazy_probes *p, int questions) {
    int ask_neg = questions & GD_ASK_NEG, ask_conj = questions & GD_ASK_CONJ;
    if (questions & GD_ASK_GRAD) {
        int set = attr_ask(&p->grad, x, s_requires_grad);
        if (set != 0) {
            if (set > 0) {
                refuse(x, "requires grad: a consumer's writes to its memory would bypass autograd",
                       "detach");
            }
            return -1;
        }
    }
    if (ask_neg && ask_or_refuse(x, &p->neg, s_is_neg,
                                 "has its negative bit set (a lazy negation, such as .imag of a "
                                 ".conj() view): its memory holds the values before negation and "
                                 "DLPack cannot say so",
                                 "resolve_neg") < 0) {
        return -1;
    }
    if (ask_conj && ask_or_refuse(x, &p->conj, s_is_conj,
                                  "has its conjugate bit set (a lazy .conj() view): its memory "
                                  "holds the values before conjugation and DLPack cannot say so",
                                  "resolve_conj") < 0) {
        return -1;
    }
    return 0;
}

/* The kind of tensor x is, when DLPack cannot carry it, and the call that makes one
 * it can: the layout name for other layouts (torch.sparse_coo, torch._mkldnn,
 * torch.jagged...). 1 with *kind a new reference (a str) and *fix set, 0 if x is of
 * none of these kinds or could not be asked (no error left set). */
static int unsupported_kind(PyObject *x, PyObject **kind, const char **fix) {
    static const struct {
        const char *attr, *kind, *fix;
    } flags[] = {
        {"is_nested", "nested", "call .to_padded_tensor(0) first"},
        {"is_quantized", "quantized", "call .dequantize() first"},
        {"is_meta", "on the meta device (it has no data)",
         "make it on a real device (or call .to_empty(device='cpu'), uninitialized)"},
    };
    *kind = NULL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        PyObject *r = PyObject_GetAttrString(x, flags[i].attr);
        int set = r != NULL ? PyObject_IsTrue(r) : 0;
        Py_XDECREF(r);
        PyErr_Clear();
        if (set > 0) {
            *kind = PyUnicode_FromString(flags[i].kind);
            *fix = flags[i].fix;
            break;
        }
    }
    if (*kind == NULL) {
        PyObject *layout = PyObject_GetAttrString(x, "layout");
        PyObject *name = layout != NULL ? PyObject_Str(layout) : NULL;
        Py_XDECREF(layout);
        if (name != NULL && PyUnicode_CompareWithASCIIString(name, "torch.strided") != 0) {
            *kind = PyUnicode_FromFormat("of layout %U", name);
            *fix = "call .to_dense() first";
        }
        Py_XDECREF(name);
        PyErr_Clear();
    }
    return *kind != NULL;
}

void gd_explain_unsupported(PyObject *x, const gd_lazy_probes *p) {
    if (!p->any || !(PyErr_ExceptionMatches(PyExc_RuntimeError) ||
                     PyErr_ExceptionMatches(PyExc_BufferError))) {
        return;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL) {
        PyException_SetTraceback(value, tb);
    }
    PyObject *kind;
    const char *fix;
    if (value == NULL || !unsupported_kind(x, &kind, &fix)) {
        PyErr_Restore(type, value, tb);
        return;
    }
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(x), "__module__");
    if (mod == NULL || !PyUnicode_Check(mod)) {
        PyErr_Clear();
        Py_XSETREF(mod, PyUnicode_FromString("?"));
    }
    PyErr_Format(PyExc_BufferError,
                 "from_dlpack(): this %U.%s is %U, which DLPack cannot carry (it describes "
                 "dense strided tensors only); %s",
                 mod != NULL ? mod : Py_None, Py_TYPE(x)->tp_name, kind, fix);
    Py_XDECREF(mod);
    Py_DECREF(kind);
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    PyException_SetCause(v2, value); /* raise ... from the producer's error: steals value */
    Py_INCREF(value);
    PyException_SetContext(v2, value); /* steals */
    PyErr_Restore(t2, v2, tb2);
    Py_XDECREF(type);
    Py_XDECREF(tb);
}

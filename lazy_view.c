//go:build godlpack_python

/* lazy_view.c: refusing PyTorch's lazy conjugate and negative views on import.
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
 * set a bit (gd_lazy_questions, inline in godlpack.h):
 * - complex tensors: the conjugate bit (conj() sets it on nothing else);
 * - other dtypes: the negative bit, only if the layout could be .imag of complex
 *   memory (the only public operation that sets it): elements present and every
 *   dimension longer than 1 with an even stride. A real tensor with an odd stride,
 *   such as any C-contiguous one whose last dimension is longer than 1, costs nothing.
 * Not caught there: views made by torch._neg_view (a private operation), unless their
 * layout is asked about anyway. Every other path (keywords, __dlpack__), where a
 * question costs little against the whole, asks both questions always. */
#include "godlpack.h"

static PyObject *s_is_conj, *s_is_neg;

int gd_lazy_view_init(void) {
    s_is_conj = PyUnicode_InternFromString("is_conj");
    s_is_neg = PyUnicode_InternFromString("is_neg");
    return (s_is_conj && s_is_neg) ? 0 : -1;
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

void gd_lazy_probes_init(gd_lazy_probes *p, PyTypeObject *tp) {
    probe_init(&p->conj, tp, s_is_conj);
    probe_init(&p->neg, tp, s_is_neg);
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

int gd_refuse_lazy_view(PyObject *x, const gd_lazy_probes *p, int questions) {
    int ask_neg = questions & GD_ASK_NEG, ask_conj = questions & GD_ASK_CONJ;
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

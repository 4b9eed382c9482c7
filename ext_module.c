//go:build godlpack_python

/* ext_module.c: the module of an extension written in Go, and its IntEnum classes
 * (at the end). Its PyInit_<name> (a file the build backend generates:
 * godlpack_build/extension.py) returns godlpack_ext_init("<name>"): a multi-phase
 * module definition whose exec imports godlpack's C-API and adds the functions Go
 * registered (godlpack.Module). */
#include "ext.h"
#include "_cgo_export.h"

#include <stdlib.h>
#include <string.h>

/* Loads the godlpack module's C-API into gd_ext_capi, once (GIL held): 0, or -1 with
 * ImportError naming who needs it. An extension loads it at its exec; a Go program
 * that embeds Python, at its first tensor crossing (object.c), once pyembed.Start has
 * made the module in-process. */
int gd_capi_load(const char *who) {
    if (gd_ext_capi != NULL) {
        return 0;
    }
    const gd_capi *c = PyCapsule_Import(GD_CAPI_NAME, 0);
    if (c == NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        PyErr_Format(PyExc_ImportError, "%s needs godlpack (its C-API %s): %S", who, GD_CAPI_NAME,
                     value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    if (c->version != GD_CAPI_VERSION) {
        PyErr_Format(PyExc_ImportError,
                     "%s was built for godlpack C-API version %d, but the godlpack imported has "
                     "version %u: rebuild %s against this godlpack, or install the godlpack it "
                     "was built with",
                     who, GD_CAPI_VERSION, c->version, who);
        return -1;
    }
    gd_ext_capi = c;
    return 0;
}

static int ext_exec(PyObject *m) {
    /* The Go runtime and the functions' C tables are process-wide, as godlpack's are
     * (docs/decisions/sub-interpreters-refused.md). */
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        PyErr_Format(PyExc_ImportError,
                     "%s is an extension written in Go with godlpack and cannot be imported in a "
                     "subinterpreter; import it in the main interpreter only",
                     PyModule_GetDef(m)->m_name);
        return -1;
    }
    if (gd_capi_load(PyModule_GetDef(m)->m_name) < 0) {
        return -1;
    }
    return godlpack_ext_exec(m, PyModule_GetDef(m)->m_name);
}

/* The exec of the godlpack.Module named name on the module object m (GIL held): its
 * functions, classes and exception classes added, this runtime's fork hooks
 * registered; 0, or -1 with an exception. Extensions' exec (above) and the godlpack
 * module's (internal/arraymodule's module.c, through goModuleExec) call it. */
int godlpack_ext_exec(PyObject *m, const char *name) {
    return gd_ext_iter_ready() < 0 ? -1 : goExtExec(m, (char *)name);
}

gd_ext_func *gd_ext_func_new(int32_t nparams) {
    gd_ext_func *f = calloc(1, sizeof(gd_ext_func));
    gd_ext_param *params = calloc(nparams > 0 ? (size_t)nparams : 1, sizeof(gd_ext_param));
    if (f == NULL || params == NULL) {
        free(f);
        free(params);
        return NULL;
    }
    f->params = params;
    f->varargs = f->varkw = -1;
    return f;
}

/* The self of a function (its __self__): a module object of the module's name
 * whose state is the function's C table, which gd_ext_call reads (gd_ext_func_of).
 * A module, because CPython treats a builtin function whose self is a module as a
 * module-level function, as math.sqrt: it pickles by reference (its __module__ and
 * name: pickle, multiprocessing's Pool.map(goext.sum, ...)), and its repr and
 * __qualname__ are a function's. A capsule self made it a "method of PyCapsule",
 * which pickled as getattr(capsule, name) and failed. One def for every such self:
 * it has no slots, so PyModule_Create makes as many as asked. */
static PyModuleDef self_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "godlpack extension function",
    .m_size = sizeof(gd_ext_func *),
};

/* A new function object calling f, named as a function of module m (GIL held, at
 * exec), or NULL with an exception. f lives for good. */
/* Interns the names of f's parameters, and its alternatives' (an overload set). */
static int intern_names(gd_ext_func *f) {
    for (int i = 0; i < f->nparams; i++) {
        if (f->params[i].name_obj == NULL) {
            f->params[i].name_obj = PyUnicode_InternFromString(f->params[i].name);
            if (f->params[i].name_obj == NULL) {
                return -1;
            }
        }
    }
    for (int i = 0; i < f->noverloads; i++) {
        if (intern_names(f->overloads[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

PyObject *gd_ext_function(PyObject *m, gd_ext_func *f) {
    if (intern_names(f) < 0) {
        return NULL;
    }
    f->def.ml_meth = f->noverloads != 0 ? (PyCFunction)(void (*)(void))gd_ext_call_overloads
                                         : (PyCFunction)(void (*)(void))gd_ext_call;
    f->def.ml_flags = METH_FASTCALL | METH_KEYWORDS;
    PyObject *modname = PyModule_GetNameObject(m);
    if (modname == NULL) {
        return NULL;
    }
    PyObject *self = PyModule_Create(&self_def);
    if (self == NULL || PyObject_SetAttrString(self, "__name__", modname) < 0) {
        Py_XDECREF(self);
        Py_DECREF(modname);
        return NULL;
    }
    *(gd_ext_func **)PyModule_GetState(self) = f;
    PyObject *fn = PyCFunction_NewEx(&f->def, self, modname);
    Py_DECREF(modname);
    Py_DECREF(self);
    gd_immortalize(fn); /* every thread calls it: internal/cpython/immortal.c */
    return fn;
}

/* Adds f to module m as a function (GIL held, at exec). */
int gd_ext_add(PyObject *m, gd_ext_func *f) {
    PyObject *fn = gd_ext_function(m, f);
    if (fn == NULL) {
        return -1;
    }
    int rc = PyModule_AddObjectRef(m, f->def.ml_name, fn);
    Py_DECREF(fn);
    return rc;
}

static PyModuleDef_Slot ext_slots[] = {
    {Py_mod_exec, (void *)ext_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED /* free-threaded builds: safe without the GIL
                        * (docs/internals/free-threading.md); without this slot importing
                        * re-enables it */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

/* One module per extension library: PyInit_<name> is its only entry point. */
static PyModuleDef ext_def = {
    PyModuleDef_HEAD_INIT,
    .m_size = 0,
    .m_slots = ext_slots,
};

PyObject *godlpack_ext_init(const char *name) {
    if (ext_def.m_name == NULL) {
        char *doc = goExtModuleDoc((char *)name);
        if (doc == NULL) {
            return NULL; /* ImportError set by Go */
        }
        ext_def.m_name = strdup(name);
        ext_def.m_doc = doc;
        if (ext_def.m_name == NULL) {
            return PyErr_NoMemory();
        }
    }
    return PyModuleDef_Init(&ext_def);
}

/* A module's IntEnum classes (godlpack.IntEnum, ext_constant.go), made by enum's
 * functional API as a Python module's own would be. */
/* Adds to module m the class enum.IntEnum(name, [(names[i], values[i])...],
 * module=module) with docstring doc, and with export each member as a module
 * attribute too; an IntEnumFor's (id >= 0) is kept as gd_ext_enums[id], the class
 * its results are members of (the first made: a module imported again shares it).
 * 0, or -1 with an exception (GIL held). */
PyObject *gd_ext_enums[GD_EXT_MAX_ENUMS];

int gd_ext_add_intenum(PyObject *m, const char *module, const char *name, const char *doc, int n,
                       const char **names, const int64_t *values, int export, int id) {
    PyObject *members = PyList_New(n), *cls = NULL;
    if (members == NULL) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue("(sL)", names[i], (long long)values[i]);
        if (item == NULL) {
            Py_DECREF(members);
            return -1;
        }
        PyList_SET_ITEM(members, i, item);
    }
    PyObject *enum_mod = PyImport_ImportModule("enum");
    PyObject *int_enum = enum_mod != NULL ? PyObject_GetAttrString(enum_mod, "IntEnum") : NULL;
    Py_XDECREF(enum_mod);
    if (int_enum != NULL) {
        PyObject *args = Py_BuildValue("(sO)", name, members);
        PyObject *kw = Py_BuildValue("{ss}", "module", module);
        if (args != NULL && kw != NULL) {
            cls = PyObject_Call(int_enum, args, kw);
        }
        Py_XDECREF(args);
        Py_XDECREF(kw);
        Py_DECREF(int_enum);
    }
    Py_DECREF(members);
    if (cls == NULL) {
        return -1;
    }
    PyObject *docstr = PyUnicode_FromString(doc);
    int rc = docstr == NULL ? -1 : PyObject_SetAttrString(cls, "__doc__", docstr);
    Py_XDECREF(docstr);
    for (int i = 0; rc == 0 && export && i < n; i++) {
        PyObject *v = PyObject_GetAttrString(cls, names[i]);
        rc = v == NULL ? -1 : PyModule_AddObjectRef(m, names[i], v);
        Py_XDECREF(v);
    }
    if (rc == 0) {
        rc = PyModule_AddObjectRef(m, name, cls);
    }
    if (rc == 0 && id >= 0 && id < GD_EXT_MAX_ENUMS && gd_ext_enums[id] == NULL) {
        gd_ext_enums[id] = Py_NewRef(cls); /* kept for good, as the bound classes */
    }
    Py_DECREF(cls);
    return rc;
}

//go:build godlpack_python

/* embed.c: the C half of Go calling Python (embed.go, interp.go, exception.go): the
 * interpreter's start from a PyConfig, godlpack's own module made in-process, the
 * GIL taken per OS thread, and a Python exception taken apart for Go. */
#include "gd_python.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gd_fork_guard_thread(void); /* internal/forksafe/guard.c */

static char *dup_cstring(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) {
        memcpy(d, s, n);
    }
    return d;
}

/* Starts the interpreter as the executable `program` would start: CPython's path
 * calculation reads the prefix, a venv's pyvenv.cfg and so its site-packages from
 * that path. No signal handlers: Go's runtime owns the process's signals. 0 with the
 * calling thread holding the GIL, or -1 with *err a malloc'd message. */
int gd_embed_start(const char *program, char **err) {
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    config.parse_argv = 0;
    PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, program);
    if (!PyStatus_Exception(st)) {
        st = Py_InitializeFromConfig(&config);
    }
    PyConfig_Clear(&config);
    if (!PyStatus_Exception(st)) {
        return 0;
    }
    char buf[512];
    if (PyStatus_IsExit(st)) {
        snprintf(buf, sizeof buf, "the interpreter exited with status %d while starting",
                 st.exitcode);
    } else {
        snprintf(buf, sizeof buf, "%s%s%s", st.func ? st.func : "", st.func ? ": " : "",
                 st.err_msg ? st.err_msg : "unknown error");
    }
    *err = dup_cstring(buf);
    return -1;
}

/* Makes the module name from def (a PyModuleDef* as the PyObject* its init returns)
 * and executes it, as an import of an extension module would, and puts it in
 * sys.modules: godlpack's own module in a Go program, which cannot load its .so (a
 * second Go runtime). GIL held; 0, or -1 with an exception. */
int gd_embed_register_module(PyObject *def, const char *name) {
    PyObject *machinery = PyImport_ImportModule("importlib.machinery");
    if (machinery == NULL) {
        return -1;
    }
    PyObject *spec = PyObject_CallMethod(machinery, "ModuleSpec", "sO", name, Py_None);
    Py_DECREF(machinery);
    if (spec == NULL) {
        return -1;
    }
    PyObject *m = PyModule_FromDefAndSpec((PyModuleDef *)def, spec);
    Py_DECREF(spec);
    if (m == NULL) {
        return -1;
    }
    if (PyModule_ExecDef(m, (PyModuleDef *)def) < 0) {
        Py_DECREF(m);
        return -1;
    }
    int rc = PyDict_SetItemString(PyImport_GetModuleDict(), name, m);
    Py_DECREF(m);
    return rc;
}

/* Takes the GIL on the calling OS thread, which the Go caller keeps (LockOSThread)
 * until gd_gil_leave. A thread CPython has never seen gets a thread state that it
 * keeps for its life (PyGILState's count left at 1): Go reuses few OS threads, and a
 * state made and destroyed per call would cost more than the call. Returns the
 * PyGILState_STATE for gd_gil_leave. */
int gd_gil_enter(void) {
    int made = PyGILState_GetThisThreadState() == NULL;
    if (made) {
        (void)PyGILState_Ensure(); /* the thread's state, never released */
        (void)PyEval_SaveThread();
    }
    int state = (int)PyGILState_Ensure();
    if (made) {
        gd_fork_guard_thread(); /* internal/forksafe: a fork on this thread is refused */
    }
    return state;
}

void gd_gil_leave(int state) { PyGILState_Release((PyGILState_STATE)state); }

static char *utf8_dup(PyObject *s) {
    if (s == NULL) {
        PyErr_Clear();
        return NULL;
    }
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(s, &n);
    char *d = NULL;
    if (p == NULL) {
        PyErr_Clear();
    } else if ((d = malloc((size_t)n + 1)) != NULL) {
        memcpy(d, p, (size_t)n + 1);
    }
    Py_DECREF(s);
    return d;
}

/* The exception's type as Python prints it: ValueError, or module.QualName for
 * types outside builtins. A new str, or NULL (no exception set). */
static PyObject *exception_type_name(PyObject *exc) {
    PyObject *tp = (PyObject *)Py_TYPE(exc);
    PyObject *mod = PyObject_GetAttrString(tp, "__module__");
    PyObject *qual = PyObject_GetAttrString(tp, "__qualname__");
    PyObject *name = NULL;
    if (mod != NULL && qual != NULL && PyUnicode_Check(mod) && PyUnicode_Check(qual)) {
        name = PyUnicode_CompareWithASCIIString(mod, "builtins") == 0
                   ? Py_NewRef(qual)
                   : PyUnicode_FromFormat("%U.%U", mod, qual);
    }
    Py_XDECREF(mod);
    Py_XDECREF(qual);
    PyErr_Clear();
    return name != NULL ? name : PyUnicode_FromString(Py_TYPE(exc)->tp_name);
}

/* Takes the pending exception (GIL held) and writes its type's name, str() and
 * traceback (traceback.format_exception's lines, joined) as malloc'd UTF-8 strings,
 * each NULL where it could not be had. Clears the exception. 0 if none was set. */
int gd_take_exception(char **type_name, char **message, char **traceback, PyObject **keep) {
    PyObject *exc;
#if PY_VERSION_HEX >= 0x030C0000
    exc = PyErr_GetRaisedException();
#else
    PyObject *type, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc != NULL && tb != NULL) {
        PyException_SetTraceback(exc, tb);
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
#endif
    if (exc == NULL) {
        return 0;
    }
    *type_name = utf8_dup(exception_type_name(exc));
    *message = utf8_dup(PyObject_Str(exc));
    PyObject *lines = NULL, *tbmod = PyImport_ImportModule("traceback");
    if (tbmod != NULL) {
        lines = PyObject_CallMethod(tbmod, "format_exception", "O", exc);
        Py_DECREF(tbmod);
    }
    PyObject *empty = PyUnicode_FromString("");
    *traceback = utf8_dup(lines != NULL && empty != NULL ? PyUnicode_Join(empty, lines) : NULL);
    Py_XDECREF(empty);
    Py_XDECREF(lines);
    if (keep != NULL) {
        *keep = exc; /* the reference is the caller's */
    } else {
        Py_DECREF(exc);
    }
    PyErr_Clear();
    return 1;
}

/* immortal.h: objects every thread calls through, made immortal on free-threaded
 * builds (internal/cpython/immortal.c; docs/internals/free-threading.md). */
#ifndef GD_IMMORTAL_H
#define GD_IMMORTAL_H
#include <Python.h>

/* Makes o immortal on a free-threaded build (a no-op elsewhere): only for an object
 * just made at module exec, not yet seen by another thread, that lives as long as the
 * process anyway. */
void gd_immortalize(PyObject *o);
/* Makes type t, and every function and descriptor in its dict, immortal as above. */
void gd_immortalize_type(PyTypeObject *t);

#endif

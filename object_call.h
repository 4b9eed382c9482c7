/* object_call.h: object.c's calls in one entry into Python, for object.go and gil.go. */
#ifndef GD_OBJECT_CALL_H
#define GD_OBJECT_CALL_H

#include "gd_python.h"

#include <stdint.h>

/* gd_fast_call's kinds of argument and result, and its statuses. GD_FAST_TENSOR: an
 * argument a managed tensor Go exported (its address in ai), made a godlpack.Array;
 * a result made a managed tensor (gd_py_to_tensor; its address in out->res). */
enum { GD_FAST_NONE, GD_FAST_INT, GD_FAST_FLOAT, GD_FAST_OBJECT, GD_FAST_TENSOR };
enum { GD_FAST_DONE, GD_FAST_CLOSED, GD_FAST_CONVERT, GD_FAST_RAISED };

PyObject *gd_call_one(PyObject *f, PyObject *arg);
int gd_exact_int64(PyObject *r, long long *out);
int gd_take_exact_int64(PyObject *r, long long *out);
/* gd_fast_call's results. The objects are held as integers: a type with no pointer
 * in it is a Go allocation the collector does not scan and cgo's pointer check skips. */
typedef struct {
    long long i;
    double f;
    uintptr_t res;    /* PyObject *, or GD_FAST_TENSOR's DLManagedTensorVersioned * */
    uintptr_t exc[3]; /* PyObject *, as PyErr_Fetch gives them */
} gd_fast_out;
int gd_fast_call(PyObject **slot, int held, int arg_kind, long long ai, double af, int res_kind,
                 gd_fast_out *out);

#endif

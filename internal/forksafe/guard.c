//go:build godlpack_python

/* guard.c: os.fork() refused in Python code that this library's Go runtime
 * runs on a thread of its own (a callback a goroutine calls, in an extension).
 * fork() copies only the calling thread: the child of such a fork would have the
 * goroutine's thread, never the one that called into Go and whose Python frames
 * wait for the call to return, so the child could never return to Python once the
 * callback returned (it hung there for good). Forking from a callback that runs on
 * the calling thread is left alone: its child continues as the parent does.
 *
 * The refusal is an audit hook (PySys_AddAuditHook): os.fork() and os.forkpty()
 * raise their audit event before the fork and its before hooks, and a hook that
 * fails makes the call raise, in the would-be parent, with no child made. Only a
 * process in which Go made a Python thread state for one of its threads adds it
 * (gd_fork_guard_thread), so that no other pays a hook per audit event. Each
 * library (godlpack, each extension written in Go) judges only its own threads.
 * tests/test_goext_callback_threads.py, test_fork_in_a_callback_on_a_goroutine_is_refused. */
#include "gd_python.h"

#include <string.h>

static __thread int made_for_go; /* this thread's Python state was made for Go (gd_gil_enter) */
static int enabled;              /* Python hosts this library: an extension, not an embedding */
static int installed;            /* the hook is added (compare-and-swap: once) */

static int refuse_fork(const char *event, PyObject *args, void *unused) {
    (void)args;
    (void)unused;
    if (!made_for_go || (strcmp(event, "os.fork") != 0 && strcmp(event, "os.forkpty") != 0)) {
        return 0;
    }
    PyErr_SetString(PyExc_RuntimeError,
                    "os.fork() in Python code that Go runs on a goroutine's thread (a callback "
                    "called from a goroutine): the child would have only this thread, not the one "
                    "that called into Go, and could never return to it; fork where the callback "
                    "runs on the calling thread, or use multiprocessing's spawn or forkserver "
                    "start method");
    return -1;
}

/* Python loaded this library (module exec, GIL held): its threads' forks are judged. */
void gd_fork_guard_enable(void) { __atomic_store_n(&enabled, 1, __ATOMIC_RELEASE); }

/* gd_gil_enter made this thread's Python state (GIL held): a thread Go runs. */
void gd_fork_guard_thread(void) {
    made_for_go = 1;
    int no = 0;
    if (__atomic_load_n(&enabled, __ATOMIC_ACQUIRE) &&
        __atomic_compare_exchange_n(&installed, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
        PySys_AddAuditHook(refuse_fork, NULL) < 0) {
        PyErr_Clear(); /* another hook refused it with a BaseException: forks stay unguarded */
    }
}

//go:build godlpack_python

/* fork_wait.c: the os.fork "before" hook's wait outside Go (fork.go explains why).
 *
 * The forking thread must reach fork() holding no Go P, so that no runtime thread
 * (sysmon) is touching its goroutine at the instant of the fork. Only Go code on
 * another thread can take that P away (a stop-the-world takes the P of every
 * thread that is out of Go), and only while this thread is out of Go: so the hook
 * returns from Go (goForkPrepare starts the helper), says here that it is out, and
 * waits in C until the helper has stopped the world, then until the runtime's
 * threads are quiet (fork_quiet.c).
 *
 * That wait ends in os.fork()'s before hooks, and more Python code may run before
 * fork() itself: the hooks registered before this library's (os.register_at_fork
 * runs the before hooks newest first: those of every module imported before it,
 * logging's, concurrent.futures', an application's), and any of them may let the
 * GIL go (a blocking lock, a sleep, the eval loop's switch interval) or call Go.
 * Other Python threads then call into Go again (a call's entry takes a P under
 * sched.lock and wakes sysmon), and the fork could copy a runtime thread inside a
 * critical section: the child hung at its first Go call, on sched.lock (issue 19,
 * tests/test_free_threading.py's stress on CPython 3.15; a look inside fork()
 * found sysmon awake in 17 of 61 forks). So the hook arms a second wait that runs
 * inside fork(), as a pthread_atfork prepare handler: after every Python before
 * hook, on the forking thread, which holds the GIL until the child exists.
 * Normally it finds the runtime still quiet at its first look. */
#include "godlpack.h"
#include "_cgo_export.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

void gd_fork_wait_quiet(long limit_ns); /* fork_quiet.c */

/* How long the forking thread waits for the helper before forking anyway (the
 * helper needs a thread and a P, which the runtime always finds; this bounds a
 * pathological wait on a starved machine, it is not expected to expire). */
#define GD_FORK_WAIT_SECONDS 10
/* How long it then waits for the runtime's threads to go quiet (fork_quiet.c):
 * typically well under a millisecond; longer only when Go threads wait for a CPU
 * (a loaded machine, where waiting is what avoids the hang) or run Go code. */
#define GD_FORK_SETTLE_NS 500000000L

static _Atomic unsigned long long fork_out_of_go; /* generation whose thread waits here */
static _Atomic unsigned long long fork_quiet;     /* generation the helper finished */
static _Atomic int fork_armed; /* an os.fork() of ours is under way: fork()'s prepare waits again */

/* Called by the helper (Go): is the forking thread of fork gen out of Go and
 * waiting? Until it is, a stop-the-world would leave it its P. */
int gd_fork_thread_waiting(unsigned long long gen) {
    return atomic_load(&fork_out_of_go) == gen;
}

/* Called by the helper (Go) once it has stopped and started the world with the
 * forking thread out of Go, which took that thread's P. A store, not a semaphore:
 * the helper's thread makes no system call from C, which fork_quiet.c would take
 * for a thread that is not Go's. */
void gd_fork_helper_done(unsigned long long gen) {
    atomic_store(&fork_quiet, gen);
}

PyObject *gd_before_fork(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    unsigned long long gen = goForkPrepare();
    if (gen == 0) {
        Py_RETURN_NONE; /* a fork child or a nested fork: nothing to wait for */
    }
    struct timespec t0, t, pause = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    atomic_store(&fork_out_of_go, gen);
    /* The GIL stays held: other Python threads stay out of Go meanwhile. */
    while (atomic_load(&fork_quiet) != gen) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > GD_FORK_WAIT_SECONDS) {
            break; /* fork as before this wait existed */
        }
        nanosleep(&pause, NULL);
    }
    atomic_store(&fork_out_of_go, 0);
    if (atomic_load(&fork_quiet) == gen) {
        gd_fork_wait_quiet(GD_FORK_SETTLE_NS);
        atomic_store(&fork_armed, 1);
    }
    Py_RETURN_NONE;
}

/* fork()'s prepare handler (pthread_atfork): the last look before the copy, armed
 * by the before hook only, so a fork() that bypasses os.fork() (which has no
 * helper's stop of the world behind it) is left alone. A fork() that fails, or an
 * os.fork() whose later hook raised, leaves nothing armed: the flag is taken here. */
static void fork_prepare_last(void) {
    if (atomic_exchange(&fork_armed, 0)) {
        gd_fork_wait_quiet(GD_FORK_SETTLE_NS);
    }
}

/* Registers fork_prepare_last, once per library (fork_hooks.c, at the module's
 * first exec, with the os.register_at_fork hooks): 0, or an errno value. */
int gd_fork_register_prepare(void) {
    return pthread_atfork(fork_prepare_last, NULL, NULL);
}

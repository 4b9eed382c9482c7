//go:build godlpack_python

/* wait.c: the os.fork "before" hook's wait outside Go (prepare.go explains why).
 *
 * The forking thread must reach fork() holding no Go P, so that no runtime thread
 * (sysmon) is touching its goroutine at the instant of the fork. Only Go code on
 * another thread can take that P away (a stop-the-world takes the P of every
 * thread that is out of Go), and only while this thread is out of Go: so the hook
 * returns from Go (goForkPrepare starts the helper), says here that it is out, and
 * waits in C until the helper has stopped the world, then until the runtime's
 * threads are quiet (quiet.c).
 *
 * That wait ends in os.fork()'s before hooks, and more Python code may run before
 * fork() itself: the hooks registered before this library's (os.register_at_fork
 * runs the before hooks newest first: those of every module imported before it,
 * logging's, concurrent.futures', an application's), and any of them may let the
 * GIL go (a blocking lock, a sleep, the eval loop's switch interval) or call Go.
 * Other Python threads then call into Go again (a call's entry takes a P under
 * sched.lock and wakes sysmon), and the fork could copy a runtime thread inside a
 * critical section: the child hung at its first Go call, on sched.lock
 * (tests/test_free_threading.py's stress on CPython 3.15; a look inside fork()
 * found sysmon awake in 17 of 61 forks; tests/test_goext_fork.py's
 * test_python_before_hook_runs_go_after_the_runtimes_went_quiet holds it). So the hook arms a second wait that runs
 * inside fork(), as a pthread_atfork prepare handler: after every Python before
 * hook, on the forking thread, which holds the GIL until the child exists.
 * Normally it finds the runtime still quiet at its first look. */
#include "gd_python.h"
#include "_cgo_export.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

int gd_fork_wait_quiet(long limit_ns); /* quiet.c */

/* How long the forking thread waits for the helper before forking anyway. The
 * helper needs a thread and a P, which the runtime always finds: only a starved
 * machine makes it late (CI's parallel test runs: seconds), and forking then, with
 * the runtime not made quiet, is what hangs children, so the bound is for a
 * runtime that can no longer run at all. */
#define GD_FORK_WAIT_SECONDS 30
/* How much CPU time a Go thread may use while the forking thread waits for it to
 * park, before the fork goes ahead anyway (quiet.c): typically it parks in
 * well under a millisecond; a thread that uses this much is running Go code (a
 * goroutine's work), not finishing the runtime's. */
#define GD_FORK_SETTLE_NS 500000000L

/* The fork's handshake with its helper (prepare.go's forkQuiesce), one word: the
 * fork's generation (goForkPrepare numbers them) times 4 plus where it stands.
 * The helper may stop the world only while the forking thread is out of Go and
 * still waiting, and the thread must never fork while a stop of the world is under
 * way: a child copied in the middle of one has every P stopped, and its first Go
 * call waits for a P for ever (CI: a storm's child in stoplockedm). So the helper
 * claims the fork (WAITING -> STOPPING) before it stops the world, and the thread
 * gives up on a late helper only by claiming it first (WAITING -> ABANDONED):
 * exactly one of the two wins. */
enum { FORK_WAITING = 1, FORK_STOPPING = 2, FORK_DONE = 3, FORK_ABANDONED = 0 };
#define FORK_PHASE(gen, phase) ((gen) << 2 | (phase))
static _Atomic unsigned long long fork_phase;
static _Atomic int fork_armed; /* an os.fork() of ours is under way: fork()'s prepare waits again */

/* Forks made without a quiet runtime (a helper abandoned, or a wait for the Go
 * threads to park that ran out): a hung child's post-mortem reads it (gdb). */
unsigned long gd_fork_gave_up;

/* Called by the helper (Go) of fork gen before it stops the world: 1, it may (the
 * fork is now its own: the forking thread waits until gd_fork_helper_done); 0, not
 * yet (the thread is still in Go); -1, never (the thread gave up on it, or a later
 * fork began). */
int gd_fork_helper_begin(unsigned long long gen) {
    unsigned long long now = atomic_load(&fork_phase);
    if (now >> 2 != gen) {
        return now >> 2 > gen ? -1 : 0;
    }
    if ((now & 3) != FORK_WAITING) {
        return -1;
    }
    unsigned long long want = FORK_PHASE(gen, FORK_WAITING);
    return atomic_compare_exchange_strong(&fork_phase, &want, FORK_PHASE(gen, FORK_STOPPING)) ? 1 : -1;
}

/* Called by the helper (Go) once it has stopped and started the world with the
 * forking thread out of Go, which took that thread's P. A store, not a semaphore:
 * the helper's thread makes no system call from C, which quiet.c would take
 * for a thread that is not Go's. */
void gd_fork_helper_done(unsigned long long gen) {
    atomic_store(&fork_phase, FORK_PHASE(gen, FORK_DONE));
}

/* The forking thread's side of the handshake, from the moment it is out of Go:
 * waits until the helper of fork gen is done (1), or gives up on a helper that has
 * not begun within limit_s seconds (0). One that has begun stopping the world is
 * waited for however long it takes. */
int gd_fork_wait_helper(unsigned long long gen, long limit_s) {
    struct timespec t0, t, pause = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    atomic_store(&fork_phase, FORK_PHASE(gen, FORK_WAITING));
    for (;;) {
        unsigned long long now = atomic_load(&fork_phase);
        if (now == FORK_PHASE(gen, FORK_DONE)) {
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec >= limit_s) {
            unsigned long long want = FORK_PHASE(gen, FORK_WAITING);
            if (atomic_compare_exchange_strong(&fork_phase, &want, FORK_PHASE(gen, FORK_ABANDONED))) {
                return 0;
            }
        }
        nanosleep(&pause, NULL);
    }
}

PyObject *gd_before_fork(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    unsigned long long gen = goForkPrepare();
    if (gen == 0) {
        Py_RETURN_NONE; /* a fork child or a nested fork: nothing to wait for */
    }
    /* The GIL stays held: other Python threads stay out of Go meanwhile. */
    if (!gd_fork_wait_helper(gen, GD_FORK_WAIT_SECONDS)) {
        gd_fork_gave_up++; /* fork as before this wait existed */
        Py_RETURN_NONE;
    }
    if (!gd_fork_wait_quiet(GD_FORK_SETTLE_NS)) {
        gd_fork_gave_up++;
    }
    atomic_store(&fork_armed, 1);
    Py_RETURN_NONE;
}

/* fork()'s prepare handler (pthread_atfork): the last look before the copy, armed
 * by the before hook only, so a fork() that bypasses os.fork() (which has no
 * helper's stop of the world behind it) is left alone. A fork() that fails, or an
 * os.fork() whose later hook raised, leaves nothing armed: the flag is taken here. */
static void fork_prepare_last(void) {
    if (atomic_exchange(&fork_armed, 0) && !gd_fork_wait_quiet(GD_FORK_SETTLE_NS)) {
        gd_fork_gave_up++;
    }
}

/* Registers fork_prepare_last, once per library (hooks.c, at the module's
 * first exec, with the os.register_at_fork hooks): 0, or an errno value. */
int gd_fork_register_prepare(void) {
    return pthread_atfork(fork_prepare_last, NULL, NULL);
}

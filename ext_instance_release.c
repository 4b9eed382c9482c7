//go:build godlpack_python

/* ext_instance_release.c: an instance's dealloc releases its Go value's id in a
 * batch, not by a cgo call each: a crossing into Go (~70 ns) was a sixth of a
 * creation-and-drop (issue 20). A dealloc puts its id in the batch; the dealloc
 * that fills it hands the whole batch to Go in one call (goExtReleaseInstances).
 * So a Go value outlives its instance by at most BATCH - 1 other deallocs;
 * LiveInstances flushes first, so that it counts exactly.
 *
 * Lock-free, for deallocs on any thread with or without the GIL (a free-threaded
 * build), after finalization too: a dealloc claims a place by an atomic
 * increment of `claimed` and, once its id is written, counts it in `filled`; the
 * one that makes `filled` BATCH owns the full batch. While a batch is owned
 * (`claimed` >= BATCH) a dealloc releases its id by itself (one call, as before),
 * so nothing ever waits for a flush. A flush of a partial batch (n places) owns it
 * by moving `claimed` from n to BATCH, waits for the n writers' few instructions,
 * and hands n ids over. */
#include "ext.h"
#include "_cgo_export.h"

#include <pthread.h>
#include <sched.h>

#define BATCH 64

static uintptr_t batch[BATCH];
static int64_t claimed; /* places taken; >= BATCH: a flush owns the batch */
static int64_t filled;  /* places whose id is written */

/* Hands the batch's first n ids to Go and opens it again (the caller owns it). */
static void hand_over(int64_t n) {
    goExtReleaseInstances(batch, n);
    __atomic_store_n(&filled, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&claimed, 0, __ATOMIC_RELEASE); /* filled's reset seen first */
}

void gd_ext_instance_release(uintptr_t id) {
    int64_t i = __atomic_fetch_add(&claimed, 1, __ATOMIC_ACQ_REL);
    if (i >= BATCH) {
        goExtReleaseInstances(&id, 1); /* a flush owns the batch: do not wait for it */
        return;
    }
    batch[i] = id; /* published by filled's release below */
    if (__atomic_add_fetch(&filled, 1, __ATOMIC_ACQ_REL) == BATCH) {
        hand_over(BATCH);
    }
}

void gd_ext_instance_release_flush(void) {
    int64_t n = __atomic_load_n(&claimed, __ATOMIC_ACQUIRE);
    for (;;) {
        if (n == 0) {
            return;
        }
        if (n >= BATCH) { /* another thread hands a batch over: wait until it is done */
            sched_yield();
            n = __atomic_load_n(&claimed, __ATOMIC_ACQUIRE);
            continue;
        }
        if (__atomic_compare_exchange_n(&claimed, &n, BATCH, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            break; /* owned: the n places taken are being written, no more are taken */
        }
    }
    while (__atomic_load_n(&filled, __ATOMIC_ACQUIRE) != n) {
        sched_yield(); /* a dealloc between its claim and its write */
    }
    hand_over(n);
}

/* fork() copies only the forking thread: a batch owned by another thread at that
 * instant (or a place claimed and not yet written) would stay so in the child for
 * good (every release there its own call, a flush waiting forever). The child then
 * opens an empty batch; the ids that were in it stay taken in the child (at most
 * BATCH values, never freed there). A batch in a settled state is kept. */
static void open_in_child(void) {
    int64_t n = __atomic_load_n(&claimed, __ATOMIC_ACQUIRE);
    if (n < BATCH && n == __atomic_load_n(&filled, __ATOMIC_ACQUIRE)) {
        return;
    }
    __atomic_store_n(&filled, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&claimed, 0, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void register_fork_child(void) {
    pthread_atfork(NULL, NULL, open_in_child);
}

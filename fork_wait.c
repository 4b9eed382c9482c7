/* fork_wait.c: the os.fork "before" hook's wait outside Go (fork.go explains why).
 *
 * The forking thread must reach fork() holding no Go P, so that no runtime thread
 * (sysmon) is touching its goroutine at the instant of the fork. Only Go code on
 * another thread can take that P away (a stop-the-world takes the P of every
 * thread that is out of Go), and only while this thread is out of Go: so the hook
 * returns from Go (goForkPrepare starts the helper), says here that it is out, and
 * waits in C until the helper has stopped the world and seen the runtime idle. */
#include "godlpack.h"
#include "_cgo_export.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How long the forking thread waits for the helper before forking anyway (the
 * helper needs a thread and a P, which the runtime always finds; this bounds a
 * pathological wait on a starved machine, it is not expected to expire). */
#define GD_FORK_WAIT_SECONDS 10
/* How long it then waits for the runtime's threads to go quiet (wait_settled). */
#define GD_FORK_SETTLE_NS 50000000L

static _Atomic unsigned long long fork_out_of_go; /* generation whose thread waits here */
static _Atomic unsigned long long fork_quiet;     /* generation the helper finished */
static sem_t fork_sem;
static int fork_sem_ready;

/* Called by the helper (Go): is the forking thread of fork gen out of Go and
 * waiting? Until it is, a stop-the-world would leave it its P. */
int gd_fork_thread_waiting(unsigned long long gen) {
    return atomic_load(&fork_out_of_go) == gen;
}

/* Called by the helper (Go) when the world has been stopped (and started) with the
 * forking thread out of Go and the runtime has gone idle. */
void gd_fork_helper_done(unsigned long long gen) {
    atomic_store(&fork_quiet, gen);
    sem_post(&fork_sem);
}

/* Is thread tid of this process quiet: blocked in a system call other than
 * nanosleep? "running" (on a CPU or waiting for one) may be a Go thread inside the
 * runtime, holding its locks; nanosleep is only Go's usleep, i.e. sysmon between
 * two rounds (C's sleeps are clock_nanosleep). A thread whose state cannot be read
 * counts as quiet: there is nothing to learn from it. */
static int thread_quiet(const char *tid) {
    char path[64], buf[32];
    snprintf(path, sizeof path, "/proc/self/task/%s/syscall", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return 1;
    }
    buf[n] = 0;
    if (strncmp(buf, "running", 7) == 0) {
        return 0;
    }
    return atoi(buf) != SYS_nanosleep;
}

/* Are all threads of this process but the caller quiet (thread_quiet)? */
static int others_quiet(void) {
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL) {
        return 1;
    }
    long self = (long)syscall(SYS_gettid);
    int quiet = 1;
    struct dirent *e;
    while (quiet && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] != '.' && atol(e->d_name) != self) {
            quiet = thread_quiet(e->d_name);
        }
    }
    closedir(dir);
    return quiet;
}

/* Waits, at most GD_FORK_SETTLE_NS, until the runtime's threads have gone quiet:
 * the helper's thread parked, and sysmon, with every P idle, in its long sleep. */
static void wait_settled(void) {
    struct timespec t0, t, pause = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!others_quiet()) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > GD_FORK_SETTLE_NS) {
            if (getenv("GD_FORK_DEBUG")) fprintf(stderr, "settle timeout\n");
            return;
        }
        nanosleep(&pause, NULL);
    }
}

PyObject *gd_before_fork(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    if (!fork_sem_ready) { /* the GIL is held: no other thread runs this */
        if (sem_init(&fork_sem, 0, 0) != 0) {
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        fork_sem_ready = 1;
    }
    unsigned long long gen = goForkPrepare();
    if (gen == 0) {
        Py_RETURN_NONE; /* a fork child or a nested fork: nothing to wait for */
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += GD_FORK_WAIT_SECONDS;
    atomic_store(&fork_out_of_go, gen);
    /* The GIL stays held: other Python threads stay out of Go meanwhile. */
    while (atomic_load(&fork_quiet) != gen) {
        if (sem_timedwait(&fork_sem, &deadline) != 0 && errno == ETIMEDOUT) {
            if (getenv("GD_FORK_DEBUG")) fprintf(stderr, "helper timeout\n");
            break; /* fork as before this wait existed */
        }
    }
    atomic_store(&fork_out_of_go, 0);
    if (atomic_load(&fork_quiet) == gen) {
        wait_settled();
    }
    Py_RETURN_NONE;
}

//go:build godlpack_python

/* quiet.c: waiting, before a fork, until the Go runtime's threads are quiet
 * (prepare.go explains why). Quiet means no Go thread can be inside the runtime
 * holding one of its locks when fork() copies the memory, nor enter it by itself
 * meanwhile: every Go thread is parked, blocked in a futex wait (idle Ms, sysmon's
 * long sleep) or in the network poller, with no timeout or a long one
 * (parked_call). Linux shows each thread's state in /proc/self/task/TID/syscall:
 * "running" (on a CPU or waiting for one), or the call's number, its arguments,
 * stack pointer and program counter. A Go thread's calls come from the Go
 * runtime's own code in this module; a thread whose calls come from elsewhere
 * (Python, OpenMP, BLAS) is not Go's, once seen blocked there, and may run as it
 * likes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int gd_fork_wait_quiet(long limit_ns);

/* This module's code, where the Go runtime's system calls are made; found once
 * from /proc/self/maps ({0, 0}: unknown, and then every running thread counts). */
static uintptr_t text_lo, text_hi;
static int text_found;

/* What the threads seen so far are: Go's (seen in a system call made by the Go
 * runtime), not Go's (seen only in calls made elsewhere), or not yet known (only
 * seen running). Go's stays Go's: a Go thread also runs C code (cgo calls), where
 * it holds no runtime lock. */
enum { NOT_GO, GO, UNKNOWN };
#define SEEN_MAX 256
static long seen_tid[SEEN_MAX];
static char seen_kind[SEEN_MAX];
static int seen_len;
/* The CPU time a thread had used when a wait (its number, wait_no) last found it
 * not quiet, and how much it has used since that wait first did: what each thread
 * uses while it keeps the fork waiting is counted against the wait's limit
 * (gd_fork_wait_quiet). */
static long long seen_cpu_ns[SEEN_MAX];
static long long seen_busy_ns[SEEN_MAX];
static unsigned seen_wait_no[SEEN_MAX];
static unsigned wait_no;

static void find_text(void) {
    text_found = 1;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) {
        return;
    }
    uintptr_t here = (uintptr_t)&gd_fork_wait_quiet, lo, hi;
    char perms[8], line[512];
    while (fgets(line, sizeof line, maps) != NULL) {
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) == 3 &&
            perms[2] == 'x' && lo <= here && here < hi) {
            text_lo = lo;
            text_hi = hi;
            break;
        }
    }
    fclose(maps);
}

/* The entry for tid in seen_tid (added as UNKNOWN), or -1 when the table is full. */
static int seen(long tid) {
    for (int i = 0; i < seen_len; i++) {
        if (seen_tid[i] == tid) {
            return i;
        }
    }
    if (seen_len == SEEN_MAX) {
        return -1;
    }
    seen_tid[seen_len] = tid;
    seen_kind[seen_len] = UNKNOWN;
    seen_wait_no[seen_len] = 0;
    return seen_len++;
}

/* A wait counts as parked only when the thread will not end it by itself between
 * the check and the fork: with no timeout, or one of at least this many seconds
 * (sysmon's long sleep is 60 s). A shorter one is a timer due (an M polling until
 * the next timer, sysmon sleeping until it): the thread wakes on its own, takes
 * sched.lock and a P, and may do so while fork() copies the process (prepare.go). */
#define GD_LONG_WAIT_SEC 10

/* /proc/self/mem, to read a waiting thread's timeout: an address gone meanwhile is
 * an error there, not a crash (-1: not opened yet, -2: cannot be), and the process
 * that opened it (a fork child's copy of the descriptor reads its parent). */
static int self_mem = -1;
static pid_t self_mem_pid;

/* Is the relative timeout at addr (a struct timespec, in a waiting thread's memory;
 * 0: none) long? If it cannot be read, it counts as long, as every timed wait did
 * before timeouts were looked at. */
static int long_timeout(uint64_t addr) {
    if (addr == 0) {
        return 1;
    }
    if (self_mem == -1 || self_mem_pid != getpid()) {
        self_mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
        self_mem_pid = getpid();
        if (self_mem < 0) {
            self_mem = -2;
        }
    }
    struct timespec ts;
    if (self_mem < 0 || pread(self_mem, &ts, sizeof ts, (off_t)addr) != (ssize_t)sizeof ts) {
        return 1;
    }
    return ts.tv_sec >= GD_LONG_WAIT_SEC;
}

/* Is nr (with args, its arguments as /proc shows them) a system call in which a Go
 * thread waits holding no runtime lock, for long: a futex wait (a parked M,
 * sysmon's long sleep, a note) or the network poller's wait, untimed or long? Any
 * other call may be made inside a critical section (mmap growing the heap under
 * its lock, nanosleep in sysmon's rounds, sched_yield spinning on a lock), a futex
 * wake too: the runtime wakes sysmon holding sched.lock
 * (notewakeup(&sched.sysmonnote) in exitsyscallTryGetP, entersyscallWakeSysmon,
 * startTheWorldWithSema, Go 1.26's proc.go). */
static int parked_call(long nr, const char *args) {
    uint64_t a[4];
    char *p = (char *)args;
    for (int k = 0; k < 4; k++) {
        a[k] = strtoull(p, &p, 16);
    }
    switch (nr) {
    case SYS_futex: {
        /* a[1], op: its command, without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME;
         * a[3], the timeout: relative for FUTEX_WAIT (the runtime's), absolute for
         * FUTEX_WAIT_BITSET (taken untimed only). */
        long op = (long)(a[1] & 127);
        return (op == 0 /* FUTEX_WAIT */ && long_timeout(a[3])) ||
               (op == 9 /* FUTEX_WAIT_BITSET */ && a[3] == 0);
    }
    case SYS_epoll_pwait:
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
        /* a[3], the timeout in ms (an int; -1: none) */
        return (int32_t)a[3] < 0 || (int32_t)a[3] >= GD_LONG_WAIT_SEC * 1000;
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
        return long_timeout(a[3]); /* a struct timespec *, relative */
#endif
    default:
        return 0;
    }
}

/* Is nr a call the Go runtime makes through the C library, in a cgo build, from
 * inside a critical section (mmap and munmap growing or shrinking the heap under
 * its lock, through runtime/cgo's _cgo_mmap; sigaction; pthread_create's clone and
 * the new thread's stack)? Seen outside this module's code, such a call says
 * nothing of whose thread it is: a Go thread there once was taken for a thread
 * not Go's, and then counted quiet whenever it ran. They never block for long, so
 * whoever makes one is simply looked at again. */
static int runtime_via_libc(long nr) {
    switch (nr) {
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mprotect:
    case SYS_rt_sigaction:
    case SYS_clone:
#ifdef SYS_clone3
    case SYS_clone3:
#endif
        return 1;
    default:
        return 0;
    }
}

/* Is thread tid quiet (see the top of this file)? A thread whose state cannot be
 * read counts as quiet: there is nothing to learn from it. */
static int thread_quiet(long tid) {
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
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
    int i = seen(tid);
    if (strncmp(buf, "running", 7) == 0) {
        return i >= 0 && seen_kind[i] == NOT_GO; /* Go's may be in the runtime */
    }
    char *args;
    long nr = strtol(buf, &args, 10);
    char *last = strrchr(buf, ' ');
    uintptr_t pc = last != NULL ? (uintptr_t)strtoull(last + 1, NULL, 16) : 0;
    if (text_hi != 0 && (pc < text_lo || text_hi <= pc)) {
        if (runtime_via_libc(nr)) {
            return 0; /* Go's runtime or C, in a call that ends soon: look again */
        }
        if (i >= 0 && seen_kind[i] == UNKNOWN) {
            seen_kind[i] = NOT_GO;
        }
        return 1; /* in C: a thread not Go's, or a Go thread in a cgo call */
    }
    if (i >= 0) {
        seen_kind[i] = GO;
    }
    return parked_call(nr, args);
}

/* The CPU time thread tid has used, in ns (/proc's schedstat), or -1. */
static long long thread_cpu_ns(long tid) {
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
}

/* The CPU time thread tid has used since this wait first found it not quiet (0 the
 * first time); -1 when it cannot be read. */
static long long busy_since_waiting(long tid) {
    int i = seen(tid);
    long long cpu = thread_cpu_ns(tid);
    if (i < 0 || cpu < 0) {
        return -1;
    }
    if (seen_wait_no[i] != wait_no) {
        seen_wait_no[i] = wait_no;
        seen_busy_ns[i] = 0;
    } else if (cpu > seen_cpu_ns[i]) {
        seen_busy_ns[i] += cpu - seen_cpu_ns[i];
    }
    seen_cpu_ns[i] = cpu;
    return seen_busy_ns[i];
}

/* Are all threads of this process but the caller quiet? Every thread is looked at,
 * not only up to the first that is not: *busy_ns is the most CPU time any thread
 * not quiet has used while this wait found it so (-1: one's cannot be read). The
 * thread that keeps the runtime awake is not always the one found first: a
 * free-threaded CPython's thread calling Go in a loop keeps sysmon (an older
 * thread) polling, never parked, using almost no CPU itself. */
static int others_quiet(long long *busy_ns) {
    *busy_ns = 0;
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL) {
        return 1;
    }
    long self = (long)syscall(SYS_gettid);
    int quiet = 1;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        long tid = atol(e->d_name);
        if (tid > 0 && tid != self && !thread_quiet(tid)) {
            quiet = 0;
            long long busy = busy_since_waiting(tid);
            if (busy < 0 || *busy_ns < 0) {
                *busy_ns = -1;
            } else if (busy > *busy_ns) {
                *busy_ns = busy;
            }
        }
    }
    closedir(dir);
    return quiet;
}

/* A wait ends after this long whatever the threads do: a machine that gives the
 * runtime's threads no CPU for this long is not one a fork waits for. */
#define GD_QUIET_WALL_LIMIT_SEC 30

/* Waits until the Go runtime's threads are quiet: 1; or gives up, 0, once one of
 * the threads it waited for used limit_ns of CPU time meanwhile (running Go code,
 * not finishing the runtime's work), or after GD_QUIET_WALL_LIMIT_SEC. CPU time,
 * not time: on a starved machine (CI's parallel runs) a runtime thread preempted
 * inside a critical section waits for a CPU, for hundreds of milliseconds, and a
 * fork then copied it there (a child hung); where CPU time cannot be read, time
 * counts instead. Called by the forking thread with the GIL held, from the before
 * hook and fork()'s prepare handler only. */
int gd_fork_wait_quiet(long limit_ns) {
    if (!text_found) {
        find_text();
    }
    wait_no++;
    struct timespec t0, t, pause = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long busy_ns;
    while (!others_quiet(&busy_ns)) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long waited_ns = (t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec);
        if ((busy_ns < 0 ? waited_ns : busy_ns) > limit_ns || t.tv_sec - t0.tv_sec >= GD_QUIET_WALL_LIMIT_SEC) {
            return 0;
        }
        nanosleep(&pause, NULL);
    }
    return 1;
}

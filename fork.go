//go:build godlpack_python

package godlpack

// fork.go: keeping the Go runtime usable in a child made by os.fork() (the fork
// start method of multiprocessing, PyTorch's DataLoader workers). The Python
// package registers the three hooks below with os.register_at_fork.
//
// fork() copies only the calling thread. The Go runtime's other threads (sysmon,
// idle Ms, GC and scavenger workers, Ms of other Python threads) are gone in the
// child, but its bookkeeping still lists them. Measured without these hooks, a
// child hangs as soon as Go needs one of them:
//
//   - a garbage collection waits forever in forEachP / stop-the-world for a P
//     that a vanished thread was running, and starting the world hands Ps to idle
//     Ms that no longer exist (so even one collection that got through would lose
//     Ps and hang the next). The same holds for anything else that stops the
//     world: GOMAXPROCS changes, ReadMemStats, runtime.GC.
//   - sysmon is gone, and sysmon is what takes a P back from a thread that has
//     returned from Go into C (a cgo callback keeps its P "in a syscall"). In the
//     child every thread that has called into Go keeps a P until it exits, and a
//     thread that finds no free P waits forever: with GOMAXPROCS = 2 (this
//     machine's CPUs) a child's second Python thread calling godlpack hung.
//
// A third hazard is timing: fork() copies memory at one instant, and a runtime
// thread that is in the middle of a critical section at that instant leaves it
// unfinished in the child for good. The CI hang (a DataLoader worker stuck for
// 60 s) was this; reproduced by forking thousands of children in a row beside two
// busy loops (5 to 7 hung children in 8000-10000 forks, Go 1.26), the stuck
// children's stacks (gdb) were all in the child's first Go call, the after-fork
// hook:
//
//   - 4 of 6 spinning in exitsyscall -> casgstatus(_Gsyscall -> _Grunning): the
//     forking thread's goroutine was scan-locked. Returning to C leaves its P with
//     the thread "in a syscall", and sysmon, every 20 us to 10 ms, takes the scan
//     bit of such a goroutine to decide whether to retake the P (Go 1.26's
//     setBlockOnExitSyscall), releasing it a few instructions later: in the child
//     nobody releases it. Returning from the before hook even wakes sysmon.
//   - the others asleep in lock(&sched.lock) (exitsyscallTryGetP: sysmon had
//     retaken the P and held sched.lock handing it off) or lock(&mheap_.lock)
//     (the scavenger, woken by the collection before the fork, was at work).
//
// The runtime offers no way to pause sysmon or hold its locks across a fork, so
// the hooks make the fork happen at an instant when no Go thread can be inside
// the runtime: the forking thread holds no P (nothing touches its goroutine), every
// P is idle (so sysmon goes to its long sleep) and every other Go thread is parked.
// Measured with the same storm, the old and the new hooks side by side beside two
// busy loops: 5, 6 and 7 hung children in 8000 forks before, 0 in 8000 after. Not
// zero, though: over ~25000 more forks of tests/test_processes.py's storm (CPython
// 3.10-3.13, loaded machine) 1 child hung, in lock(&sched.lock) (no scan-locked
// goroutine since), i.e. some thread held sched.lock at the fork unseen by the
// quiet check; about 1 in 10^4 forks against 1 in 1200
// before. Session 6's CI met it once (a DataLoader worker of
// test_dataloader_two_fork_workers, same stack). One way to it, read in the
// runtime: a futex call counted as parked whatever its op, and the runtime wakes
// sysmon (a futex wake) while it holds sched.lock (exitsyscallTryGetP,
// entersyscallWakeSysmon, startTheWorldWithSema); now only futex waits count. Not
// the only way: a storm of 26818 forks after that change (240 s, two burners) still
// left 2 children hung, one in lock(&sched.lock), one parked in exitsyscallNoP with
// no idle P: some Go thread still runs at the fork. A lead, measured with the quiet
// check instrumented (a 3 s storm, 339 forks): at 311 of the 339 moments it judged
// quiet, a Go thread was in a timed wait due within about a second: sysmon in a
// futex wait of ~1.00 s, or an M in epoll_pwait with a ~999 ms timeout (netpoll
// until the next timer), i.e. a runtime timer ~1 s away. The same M waits so in
// an idle process that has collected (godlpack imported, some work, 0.5 s idle),
// and none does under GOGC=off from the start; GODEBUG=updatemaxprocs=0 keeps it,
// and so does a second runtime.GC() in the before hook. The background scavenger's
// paced sleep (mgcscavenge.go: >= 1 ms of work / sleepRatio ~0.001) would fit, but
// with the collector off its goal leaves it no work; not pinned down. Such a thread
// wakes by itself, after the check or during fork() itself,
// which copies a large process's page tables for milliseconds while its other
// threads run, and takes sched.lock and a P. Waiting for those timers out would
// cost up to a second a fork; stopping the scavenger first has no API. Left open. The before hook costs 0.5 ms (median; 1-3.5 ms at the 90th percentile on
// a busy machine) on 2 cores, the collection included.
//
// The hooks:
//
//   - before fork (gd_before_fork in fork_wait.c, calling goForkPrepare): switch
//     the collector off (SetGCPercent(-1) waits for a mark phase in progress to
//     end), then run one full collection, which also finishes sweeping, so the
//     child starts from a compact heap with no sweeping left; then start a helper
//     goroutine and return to C, where the forking thread (still holding the GIL,
//     so other Python threads stay out of Go) says it is out of Go and waits. The
//     helper then stops the world, by raising GOMAXPROCS to forkChildProcs (so the
//     child finds a free P whatever Ps the parent's threads held): a stop-the-world
//     takes the P of every thread that is out of Go, the forking thread's included,
//     and starting the world leaves those Ps idle. Once the helper is done, the
//     thread waits (fork_quiet.c, at most 500 ms) until every Go thread is parked:
//     blocked in a futex or network-poller wait, judged from
//     /proc/self/task/*/syscall (not nanosleep: sysmon between two rounds; not
//     mmap or sched_yield, which the runtime makes holding locks). A thread whose
//     system calls come from outside this module is not Go's (or is a Go thread in
//     C) and is not waited for. Only then does it return to os.fork().
//   - after fork, parent (afterForkParent): GOMAXPROCS back to what it was
//     (automatic again unless $GOMAXPROCS fixed it), then the collector.
//   - after fork, child (afterForkChild): keep the collector off for good, and
//     lift any memory limit (GOMEMLIMIT would otherwise start a collection as the
//     heap grows). It can never be switched back on safely in the child. Array
//     bytes are C memory and are freed by their owners as usual; what the child
//     never reclaims is its transient Go allocations: measured per call, none for
//     the export and import fast paths (C), ~100 B for a constructor or a slice,
//     ~500 B for asarray of a small list, ~26 KB for the repr of a 10x10 array.
//     Workers that make millions of such calls should use the spawn start method.
//
// What is left: the wait is bounded (a machine so starved that the runtime's
// threads get no CPU for 500 ms, or a goroutine that keeps running Go code, forks
// anyway, as before); a runtime timer that fires between the wait and the fork
// wakes a thread (godlpack sets none; the collector's and scavenger's are off);
// and without /proc (or where it cannot be read) only the stop-the-world part
// applies.
//
// What is safe in a fork child, and what is not (documented rather than detected:
// a hang happens inside the runtime, before any godlpack code could raise):
//
//   - the thread that forked (the main thread of a multiprocessing or DataLoader
//     worker) may use godlpack freely: its M is its own, and the 64 Ps leave one
//     free for it whatever Ps the parent's other threads held at the fork. Tested
//     with the parent's threads inside Go calls at the fork, with threads of the
//     parent that had called godlpack and exited, with forks of forks, and with
//     allocation far past the collector's goal.
//   - other threads of the child are not safe. A C thread entering Go takes an M
//     from the runtime's list of spare ("extra") Ms. An M left there by a thread of
//     the parent that called godlpack and then exited usually still has a P and a
//     preemption request that sysmon (or a stop-the-world) put on it; in the child,
//     honouring that request makes the scheduler hand the thread's P to an idle M
//     whose thread does not exist, and the thread waits forever. (Reproduced: the
//     parent runs and joins four threads calling godlpack, forks; the child's new
//     threads calling godlpack hang in stoplockedm.) With no such exited thread in
//     the parent they ran fine in every trial, but nothing makes it certain.
//   - a fork that bypasses os.fork() (a C library calling fork() and then not
//     exec) runs no hooks; subprocess and posix_spawn exec at once and are fine.
//   - the runtime stopping the world on its own in the parent at the instant of the
//     fork would leave the child stopped; with the collector off and GOMAXPROCS set
//     explicitly (which pauses its automatic updates), nothing left does that.

// #include "godlpack.h"
// int gd_fork_thread_waiting(unsigned long long gen);
// void gd_fork_helper_done(unsigned long long gen);
import "C"

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// forkChildProcs is the GOMAXPROCS a fork child gets (see above).
const forkChildProcs = 64

// forkLeaveGoLimit bounds the helper's wait for the forking thread to leave Go
// (fork_wait.c gives up waiting for the helper after 10 s and forks anyway).
const forkLeaveGoLimit = 5 * time.Second

var forkState struct {
	sync.Mutex
	depth     int    // forks under way in this process (before without after)
	gcPercent int    // the collector's setting before the outermost fork began
	procs     int    // GOMAXPROCS before the outermost fork began
	saved     bool   // gcPercent and procs hold what the parent must restore
	child     bool   // this process is a fork child: the collector stays off
	gen       uint64 // forks prepared so far: names the one a helper works for
}

// forkMemStats is the target of the stop-the-world used when GOMAXPROCS is
// already forkChildProcs or more (kept here: it is large).
var forkMemStats runtime.MemStats

// goForkPrepare runs on the forking thread from the before hook (fork_wait.c):
// it switches the collector off, collects, and starts the helper that will take
// this thread's P once it is out of Go. Returns the fork's generation for
// fork_wait.c to wait on, or 0 when there is nothing to wait for.
//
//export goForkPrepare
func goForkPrepare() C.ulonglong {
	forkState.Lock()
	defer forkState.Unlock()
	forkState.depth++
	if forkState.child || forkState.depth != 1 {
		// A fork child (the collector has been off since our own fork and a
		// collection here would hang), or a fork inside a fork's hooks.
		return 0
	}
	forkState.saved = true
	forkState.gcPercent = debug.SetGCPercent(-1)
	runtime.GC() // forced even when off; returns once sweeping is done too
	forkState.procs = runtime.GOMAXPROCS(0)
	forkState.gen++
	go forkQuiesce(forkState.gen, forkState.procs)
	return C.ulonglong(forkState.gen)
}

// forkQuiesce is the helper: once the forking thread waits in C, it stops the
// world (raising GOMAXPROCS for the child), which takes the P that thread kept on
// leaving Go, and tells the thread (fork_wait.c).
func forkQuiesce(gen uint64, procs int) {
	start := time.Now()
	for i := 0; C.gd_fork_thread_waiting(C.ulonglong(gen)) == 0; i++ {
		if time.Since(start) > forkLeaveGoLimit {
			return // the thread gave up waiting and forked
		}
		if i < 100 {
			runtime.Gosched() // it is on its way out: microseconds
		} else {
			time.Sleep(20 * time.Microsecond) // leave the CPU to it on a busy machine
		}
	}
	forkState.Lock()
	if procs < forkChildProcs {
		runtime.GOMAXPROCS(forkChildProcs)
	} else {
		runtime.ReadMemStats(&forkMemStats) // the stop-the-world alone
	}
	forkState.Unlock()
	C.gd_fork_helper_done(C.ulonglong(gen))
}

// afterForkParent is os.fork's after_in_parent hook (module_funcs.go).
func afterForkParent() (None, error) {
	forkState.Lock()
	defer forkState.Unlock()
	if forkState.depth == 0 {
		return None{}, nil // no fork of ours under way
	}
	forkState.depth--
	if forkState.depth == 0 && forkState.saved {
		forkState.saved = false
		if forkState.procs < forkChildProcs {
			if os.Getenv("GOMAXPROCS") == "" {
				runtime.SetDefaultGOMAXPROCS() // back to automatic, as before the fork
			} else {
				runtime.GOMAXPROCS(forkState.procs)
			}
		}
		debug.SetGCPercent(forkState.gcPercent)
	}
	return None{}, nil
}

// afterForkChild is os.fork's after_in_child hook (module_funcs.go).
func afterForkChild() (None, error) {
	// Only this thread exists now; if another thread of the parent held the lock,
	// it never unlocks: start from a fresh state instead of taking it.
	forkState.Mutex = sync.Mutex{}
	forkState.depth = 0
	forkState.saved = false
	forkState.child = true
	debug.SetGCPercent(-1) // already off since goForkPrepare; kept off for good
	debug.SetMemoryLimit(math.MaxInt64)
	return None{}, nil
}

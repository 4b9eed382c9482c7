//go:build godlpack_python

package forksafe

// prepare.go: keeping the Go runtime usable in a child made by os.fork() (the fork
// start method of multiprocessing, PyTorch's DataLoader workers). Every library
// built from this package (the godlpack module and each extension written in Go)
// has its own Go runtime and its own copy of this file, and registers its copy of
// the three hooks below with os.register_at_fork at its module's first exec
// (Register, hooks.c): each runtime is made quiet before the fork and restored after
// it by its own hooks, one after the other.
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
// zero, though: 1 child hung over ~25000 more forks, 2 over 26818 more (240 s
// storms, two burners), and a CI run met one (a DataLoader worker of
// test_dataloader_two_fork_workers): in lock(&sched.lock), or parked in
// exitsyscallNoP with no idle P, i.e. some Go thread still ran at the fork. Two
// ways to that, both closed (tests/test_processes.py::test_fork_storm_under_cpu_load):
//
//   - a futex call counted as parked whatever its op, and the runtime wakes sysmon
//     (a futex wake) while it holds sched.lock (exitsyscallTryGetP,
//     entersyscallWakeSysmon, startTheWorldWithSema): only waits count now.
//   - timed waits counted as parked, and at 311 of 339 quiet moments (the check
//     instrumented, a 3 s storm) a Go thread was in one due within about a second:
//     sysmon sleeping until the next timer, an M in epoll_pwait until it (~999
//     ms). gdb found the timer: the background scavenger's paced sleep
//     (mgcscavenge.go, >= 1 ms of work / sleepRatio ~0.001), armed by the work the
//     collections between forks leave it; woken early, it leaves its timer in a P's
//     heap as a stopped timer that still wakes the poller and sysmon at its time.
//     Such a thread wakes by itself, after the check or during fork() itself (which
//     copies a large process's page tables for milliseconds while the other threads
//     run), and takes sched.lock and a P. Now a timed wait shorter than 10 s is not
//     parked (quiet.c), and the hooks leave none: the before hook returns all
//     free memory to the OS (debug.FreeOSMemory: the scavenger has no work, so no
//     sleep), the helper's two stops of the world (GOMAXPROCS to 1, dropping the
//     stopped timers of the other Ps, then up) wake sysmon, and a 1 us sleep breaks
//     the poller's stale wait and cleans its P's heap head.
//
// After: 0 hung children in 33048 (CPython 3.11) and 33807 (3.13) forks of the
// 240 s storm, and in 11163 more before FreeOSMemory (when 1-2% of forks waited
// out the check's 500 ms limit for a scavenger timer); os.fork() of a small parent with godlpack loaded
// takes 1.7-2.8 ms (median; 3-7 ms at the 99th percentile) against 2.3 ms (6 ms)
// before, the before hook's collection and scavenging included.
//
// The hooks:
//
//   - before fork (gd_before_fork in wait.c, calling goForkPrepare): switch
//     the collector off (in a fork child forking again: already off, and no
//     collection; the rest as below) (SetGCPercent(-1) waits for a mark phase in progress to
//     end), then run one full collection, which also finishes sweeping, so the
//     child starts from a compact heap with no sweeping left, and return the free
//     memory to the OS (debug.FreeOSMemory does both); then start a helper
//     goroutine and return to C, where the forking thread (still holding the GIL,
//     so other Python threads stay out of Go) says it is out of Go and waits. The
//     helper then stops the world twice, setting GOMAXPROCS to 1 and then to
//     forkChildProcs (so the child finds a free P whatever Ps the parent's threads
//     held): a stop-the-world takes the P of every thread that is out of Go, the
//     forking thread's included, and starting the world leaves those Ps idle; then
//     it sleeps 1 us (see above). The helper claims the fork before it stops the
//     world, and the thread gives up on a helper (after 30 s: a starved machine)
//     only by claiming it first (wait.c): a fork never copies a stop of the
//     world half done (a CI run's child with every P stopped waited for one for
//     ever: tests/test_fork_wait.py::test_helper_and_forking_thread_agree_on_who_goes).
//     Once the helper is done, the thread waits (quiet.c)
//     until every Go thread is parked: blocked in a
//     futex or network-poller wait with no timeout or one of 10 s or more, judged
//     from /proc/self/task/*/syscall (not nanosleep: sysmon between two rounds; not
//     mmap or sched_yield, which the runtime makes holding locks; not a futex
//     wake). A thread whose system calls come from outside this module is not
//     Go's (or is a Go thread in C) and is not waited for, except in the calls
//     the runtime makes through the C library (mmap, munmap, sigaction, clone),
//     which say nothing of whose thread it is. The wait ends early only once one
//     of the threads it waits for has used 500 ms of CPU time meanwhile (running
//     Go code), or after 30 s: time spent waiting for a CPU (CI's parallel runs
//     starve Go's threads for hundreds of milliseconds) does not count. Only then does it
//     return to os.fork(), arming the same wait once more inside fork() itself
//     (wait.c's pthread_atfork prepare handler): the Python before hooks
//     that run after this one (those of modules imported before it) may let the
//     GIL go or call Go, and wake the runtime again (the CI stress's child hung
//     on sched.lock: tests/test_goext_fork.py's
//     test_python_before_hook_runs_go_after_the_runtimes_went_quiet).
//   - after fork, parent (afterForkParent): GOMAXPROCS back to what it was
//     (automatic again unless $GOMAXPROCS fixed it), then the collector.
//   - after fork, child (afterForkChild): repair the runtime's books (the
//     parent's Ms and Ps, sysmon, the poller: runtime_repair.go; else only
//     forget the parent's idle Ms, idle_ms.go), keep the collector off for good, and
//     lift any memory limit (GOMEMLIMIT would otherwise start a collection as the
//     heap grows). It can never be switched back on safely in the child. Array
//     bytes are C memory and are freed by their owners as usual; what the child
//     never reclaims is its transient Go allocations: measured per call, none for
//     the export and import fast paths (C), ~100 B for a constructor or a slice,
//     ~500 B for asarray of a small list, ~26 KB for the repr of a 10x10 array.
//     Workers that make millions of such calls should use the spawn start method.
//
// What is left: the wait is bounded (a machine so starved that the runtime's
// threads get no CPU for 30 s, a goroutine that keeps running Go code for 500 ms
// of CPU time, or an extension author's own timer due within 10 s at every look,
// forks anyway; gd_fork_gave_up in wait.c counts such forks, for a hung
// child's post-mortem); a Go thread woken between its runtime's wait and the fork (the runtimes
// are made quiet one after the other: an extension's a few milliseconds before the
// fork, while the later hooks run with the GIL held); and without /proc (or where
// it cannot be read) only the stop-the-world part applies (an unreadable timeout
// counts as long, as every timed wait did before). Each runtime's wait judges only
// its own threads: a thread whose system calls come from another library (another
// runtime's Go threads included) is not its runtime's.
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
//   - other threads of the child: a C thread entering Go takes an M from the
//     runtime's list of spare ("extra") Ms, possibly one left there by a thread of
//     the parent that called godlpack and exited, still holding a P and a
//     preemption request; honouring it handed the thread's P to an idle M whose
//     thread does not exist (reproduced: the parent runs and joins four threads
//     calling godlpack, forks; the child's new threads hung in stoplockedm).
//   - goroutines started in the child (an extension's parallel kernels), timers,
//     and goroutines locked to their threads that start others.
//     All three are what the child's repair of its runtime is for: in builds made
//     by godlpack's backends for the Go release it is written against, a file
//     added to package runtime (internal/forksafe/overlay/godlpack_fork.go,
//     runtime_repair.go) gives back the Ps and forgets the Ms of the
//     parent's threads, gives the child its own network poller and lets it
//     start its own template thread (docs/internals/fork.md, "In the child:
//     the runtime repairs itself"). Other builds
//     only drop the parent's idle Ms (idle_ms.go): their timers may never
//     fire in a child and locked goroutines hang in a child's child; built with
//     another Go release, goroutines hang in a fork child: use spawn or
//     forkserver there.
//   - a fork that bypasses os.fork() (a C library calling fork() and then not
//     exec) runs no hooks; subprocess and posix_spawn exec at once and are fine.
//   - the runtime stopping the world on its own in the parent at the instant of the
//     fork would leave the child stopped; with the collector off and GOMAXPROCS set
//     explicitly (which pauses its automatic updates), nothing left does that.

// #cgo CFLAGS: -I${SRCDIR}/../cheaders
// #include "gd_python.h"
// int gd_fork_helper_begin(unsigned long long gen);
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

var forkState struct {
	sync.Mutex
	depth     int    // forks under way in this process (before without after)
	gcPercent int    // the collector's setting before the outermost fork began
	procs     int    // GOMAXPROCS before the outermost fork began
	saved     bool   // gcPercent and procs hold what the parent must restore
	child     bool   // this process is a fork child: the collector stays off
	gen       uint64 // forks prepared so far: names the one a helper works for
}

// goForkPrepare runs on the forking thread from the before hook (wait.c):
// it switches the collector off, collects, and starts the helper that will take
// this thread's P once it is out of Go. Returns the fork's generation for
// wait.c to wait on, or 0 when there is nothing to wait for.
//
//export goForkPrepare
func goForkPrepare() C.ulonglong {
	forkState.Lock()
	defer forkState.Unlock()
	forkState.depth++
	if forkState.depth != 1 {
		return 0 // a fork inside a fork's hooks
	}
	if !schedLayoutMatches() && forkState.child {
		// A fork child whose runtime still lists the parent's idle Ms
		// (idle_ms_other.go): the helper goroutine would be handed to one.
		return 0
	}
	forkState.saved = true
	if forkState.child {
		// A fork child forking again: its collector is off for good
		// (afterForkChild), so no collection, but its runtime is made quiet as
		// the parent's is: its own threads (those its goroutines ran on) are as
		// likely to be inside the runtime at the instant of the fork. Measured
		// without it: 4 in 6 grandchildren hung at their first goext.sum.
		forkState.gcPercent = -1
	} else {
		forkState.gcPercent = debug.SetGCPercent(-1)
		// A collection (forced even when off), which returns once sweeping is
		// done too, and then all free memory back to the OS: the background
		// scavenger then has no work, so no paced sleep on a ~1 s timer, whose
		// wake-ups (sysmon's and the netpoller's) the quiet check would wait
		// for, up to its limit, or a fork meet (measured: 1-2% of forks waited
		// 500 ms without this, none with it).
		debug.FreeOSMemory()
	}
	forkState.procs = runtime.GOMAXPROCS(0)
	forkState.gen++
	go forkQuiesce(forkState.gen, forkState.procs)
	return C.ulonglong(forkState.gen)
}

// forkQuiesce is the helper: once the forking thread waits in C, it stops the
// world (GOMAXPROCS to 1, then raised for the child), which takes the P that
// thread kept on leaving Go, and tells the thread (wait.c). It first claims
// the fork from the thread (gd_fork_helper_begin): a thread that has given up on
// a late helper forks at once, and a stop of the world then would be copied half
// done into the child.
func forkQuiesce(gen uint64, procs int) {
	for i := 0; ; i++ {
		switch C.gd_fork_helper_begin(C.ulonglong(gen)) {
		case 0: // the thread is still on its way out of Go
		case 1:
			forkStopTheWorld(gen, procs)
			return
		default:
			return // given up on: the fork went ahead without this helper
		}
		if i < 100 {
			runtime.Gosched() // it is on its way out: microseconds
		} else {
			time.Sleep(20 * time.Microsecond) // leave the CPU to it on a busy machine
		}
	}
}

// forkStopTheWorld is the helper's work once the fork is its own.
func forkStopTheWorld(gen uint64, procs int) {
	forkState.Lock()
	// Two stops of the world. Down to one P first: the timers of the others move
	// to it, and their stopped ones, which stay in a P's heap until that P next
	// runs its timers and meanwhile still wake the netpoller and sysmon at their
	// time (the scavenger's, ~1 s away after it was woken early), are dropped
	// (runtime/time.go's take). Then up to forkChildProcs, so that the child finds
	// a free P whatever Ps the parent's threads held: each stop takes the P of every
	// thread out of Go, the forking thread's included, and leaves it idle.
	runtime.GOMAXPROCS(1)
	runtime.GOMAXPROCS(max(procs, forkChildProcs))
	forkState.Unlock()
	// Then a timer earlier than any other: adding it drops the stopped timers at
	// the head of this P's heap (runtime/time.go's cleanHead), and it breaks the
	// netpoller's wait, which then waits untimed once it has fired; the stops woke
	// sysmon, which sleeps again until the next timer (none now, as a rule: 60 s).
	// So no Go thread is left in a wait that ends by itself soon, which the quiet
	// check (quiet.c) would wait out, or a fork meet.
	time.Sleep(time.Microsecond)
	C.gd_fork_helper_done(C.ulonglong(gen))
}

// AfterForkParent is os.fork's after_in_parent hook (hooks.c calls it; the godlpack
// module also lists it as _after_fork_parent).
func AfterForkParent() {
	forkState.Lock()
	defer forkState.Unlock()
	if forkState.depth == 0 {
		return // no fork of ours under way
	}
	forkState.depth--
	if forkState.depth == 0 && forkState.saved {
		forkState.saved = false
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.SetDefaultGOMAXPROCS() // back to automatic, as before the fork
		} else {
			runtime.GOMAXPROCS(forkState.procs)
		}
		debug.SetGCPercent(forkState.gcPercent)
	}
}

// AfterForkChild is os.fork's after_in_child hook (hooks.c calls it; the godlpack
// module also lists it as _after_fork_child).
func AfterForkChild() {
	// Only this thread exists now; if another thread of the parent held the lock,
	// it never unlocks: start from a fresh state instead of taking it.
	// Before anything here may start or wake an M: the runtime's own repair where the
	// build has it (runtime_repair.go), else the idle Ms only (idle_ms.go).
	if !repairRuntimeInChild() {
		forgetParentIdleMs()
	}
	forkState.Mutex = sync.Mutex{}
	forkState.depth = 0
	forkState.saved = false
	forkState.child = true
	debug.SetGCPercent(-1) // already off since goForkPrepare; kept off for good
	debug.SetMemoryLimit(math.MaxInt64)
}

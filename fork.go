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
// The hooks:
//
//   - before fork (goBeforeFork): switch the collector off (SetGCPercent(-1) waits
//     for a mark phase in progress to end), then run one full collection, which
//     also finishes sweeping, so no background GC goroutine is mid-way through
//     the heap (holding span or heap locks) when the fork happens and the child
//     starts from a compact heap; then raise GOMAXPROCS to forkChildProcs, so the
//     child finds a free P whatever Ps the parent's threads held (a P that a thread
//     in or just back from a Go call held is lost in the child). 1-5 ms per fork.
//   - after fork, parent (goAfterForkParent): GOMAXPROCS back to what it was
//     (automatic again unless $GOMAXPROCS fixed it), then the collector.
//   - after fork, child (goAfterForkChild): keep the collector off for good, and
//     lift any memory limit (GOMEMLIMIT would otherwise start a collection as the
//     heap grows). It can never be switched back on safely in the child. Array
//     bytes are C memory and are freed by their owners as usual; what the child
//     never reclaims is its transient Go allocations: measured per call, none for
//     the export and import fast paths (C), ~100 B for a constructor or a slice,
//     ~500 B for asarray of a small list, ~26 KB for the repr of a 10x10 array.
//     Workers that make millions of such calls should use the spawn start method.
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
import "C"

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// forkChildProcs is the GOMAXPROCS a fork child gets (see above).
const forkChildProcs = 64

var forkState struct {
	sync.Mutex
	depth     int  // forks under way in this process (before without after)
	gcPercent int  // the collector's setting before the outermost fork began
	procs     int  // GOMAXPROCS before the outermost fork began
	saved     bool // gcPercent and procs hold what the parent must restore
	child     bool // this process is a fork child: the collector stays off
}

//export goBeforeFork
func goBeforeFork(_, _unused *C.PyObject) *C.PyObject {
	forkState.Lock()
	defer forkState.Unlock()
	forkState.depth++
	if forkState.child {
		// Already a fork child: the collector has been off since our own fork and
		// a collection here would hang.
		return C.gd_none()
	}
	if forkState.depth == 1 {
		forkState.saved = true
		forkState.gcPercent = debug.SetGCPercent(-1)
		runtime.GC() // forced even when off; returns once sweeping is done too
		forkState.procs = runtime.GOMAXPROCS(0)
		if forkState.procs < forkChildProcs {
			runtime.GOMAXPROCS(forkChildProcs)
		}
	}
	return C.gd_none()
}

//export goAfterForkParent
func goAfterForkParent(_, _unused *C.PyObject) *C.PyObject {
	forkState.Lock()
	defer forkState.Unlock()
	if forkState.depth == 0 {
		return C.gd_none() // no fork of ours under way
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
	return C.gd_none()
}

//export goAfterForkChild
func goAfterForkChild(_, _unused *C.PyObject) *C.PyObject {
	// Only this thread exists now; if another thread of the parent held the lock,
	// it never unlocks: start from a fresh state instead of taking it.
	forkState.Mutex = sync.Mutex{}
	forkState.depth = 0
	forkState.saved = false
	forkState.child = true
	debug.SetGCPercent(-1) // already off since goBeforeFork; kept off for good
	debug.SetMemoryLimit(math.MaxInt64)
	return C.gd_none()
}

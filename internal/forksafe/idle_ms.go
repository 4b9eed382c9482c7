//go:build godlpack_python && go1.26 && !go1.28 && !goexperiment.staticlockranking

package forksafe

// idle_ms.go: the fork child forgets the parent's idle threads (prepare.go).
//
// The runtime keeps its idle threads (Ms) on a list, sched.midle, and when a
// goroutine needs a thread it wakes one from that list (startm) before it makes
// a new one. In a fork child the list still names the parent's idle Ms, whose
// threads fork() did not copy: the first goroutine a child's call started was
// handed, with a P, to such an M, and so was the calling thread's own P when the
// call waited for its goroutines (a thread that entered Go from C is locked to
// its goroutine and must hand its P to another M while it waits): nothing ever
// ran them, and the call never returned (goext.sum in a fork child:
// tests/test_goext_fork.py::test_goroutines_in_a_fork_child_quick).
// Taking the idle Ms before the fork cannot be made exact (any M that finishes
// its work goes idle again, up to the fork's instant); the child, where the
// forking thread is the only thread, can empty the list exactly: with none idle,
// startm makes a new thread. Nothing else names those Ms as idle: the Ps they
// had are back on the idle P list (prepare.go's stops of the world), and the
// spinning count (Ms looking for work, of which there are none in the child)
// is reset too, since a count left by a parent's M would stop wakep from
// starting any.
//
// The runtime has no API for this, so this file reads and writes runtime.sched
// through a copy of the start of its type (runtime2.go's schedt). runtime.sched
// is one of the runtime's symbols kept linkable for other packages (badlinkname.go),
// so the link needs no flag; its layout is not a promise, so the copy is built
// only for the Go releases it was checked against (the build tags: 1.26 and 1.27,
// whose schedt, mutex and listHeadManual read the same; goreleases.SUPPORTED_GO in
// pyext/godlpack_build) and is checked once, in the parent, at import:
// schedLayoutMatches. Other releases build idle_ms_other.go, whose children still
// hang when a call starts goroutines.

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// schedPrefix is runtime.schedt (Go 1.26, 1.27) up to needspinning, field for field
// (blank where this file does not use them, named in comments), with
// sync/atomic's types where the runtime has its own atomic types (the same size
// and alignment) and unsafe.Pointer where it keeps an M's address in a uintptr
// (Ms are kept alive by the runtime's list of all Ms).
type schedPrefix struct {
	_ atomic.Uint64 // goidgen
	_ atomic.Int64  // lastpoll
	_ atomic.Int64  // pollUntil
	_ atomic.Int32  // pollingNet

	_ uintptr // lock, a mutex: its key (lockRankStruct is empty without staticlockranking)

	midle struct { // listHeadManual: the first M, and where in an M its node is
		obj         unsafe.Pointer
		initialized bool
		nodeOffset  uintptr
	}
	nmidle    int32
	_         int32 // nmidlelocked
	mnext     int64
	maxmcount int32
	_         int32 // nmsys
	_         int64 // nmfreed

	_ atomic.Int32 // ngsys
	_ atomic.Int32 // nGsyscallNoP

	_            uintptr      // pidle
	_            atomic.Int32 // npidle
	nmspinning   atomic.Int32
	needspinning atomic.Uint32
}

// idleNode is runtime.listNodeManual, an M's links on the idle list.
type idleNode struct {
	prev, next unsafe.Pointer
}

//go:linkname runtimeSched runtime.sched
var runtimeSched schedPrefix

// schedLayoutMatches says whether schedPrefix is this runtime's layout, checked
// once, in the parent at module exec (Register), against values the runtime
// sets: a thread limit set through the public API must show in maxmcount, the
// idle list must be initialized, and the thread counts must be sane. Two brief
// stops of the world (debug.SetMaxThreads), once per process.
var schedLayoutMatches = sync.OnceValue(func() bool {
	const probe = 12345 // a limit no one sets, well above any thread count here
	old := debug.SetMaxThreads(probe)
	seen := runtimeSched.maxmcount
	debug.SetMaxThreads(old)
	s := &runtimeSched
	return seen == probe && int(s.maxmcount) == old && s.midle.initialized &&
		s.nmidle >= 0 && int64(s.nmidle) <= s.mnext && s.mnext < int64(old)
})

// forgetParentIdleMs empties the idle M list (unlinking each M from it) and the spinning count in a fork
// child (afterForkChild: the only thread; see above). False when the layout
// check failed and nothing was done.
func forgetParentIdleMs() bool {
	if !schedLayoutMatches() {
		return false
	}
	idle := &runtimeSched.midle
	// At most as many as were ever made: a list damaged anyway is not walked for ever.
	for mp, n := idle.obj, int64(0); mp != nil && n <= runtimeSched.mnext; n++ {
		node := (*idleNode)(unsafe.Add(mp, idle.nodeOffset))
		mp = node.next
		// Unlinked too: restarting the world hands a P to its previous M if
		// that M is linked (mgetSpecific), whatever the list head says.
		node.prev, node.next = nil, nil
	}
	idle.obj = nil
	runtimeSched.nmidle = 0
	runtimeSched.nmspinning.Store(0)
	runtimeSched.needspinning.Store(0)
	return true
}

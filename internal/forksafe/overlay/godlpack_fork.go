//go:build ignore

// Added to package runtime by godlpack's builds (pyext/godlpack_build/runtime_patches.py's
// runtime_fork_repair, which drops the ignore line above: it keeps this file out of
// every build of this module's own packages, for the Go releases it was checked against: 1.26 and 1.27,
// goreleases.SUPPORTED_GO, whose scheduler, M, P and netpoll internals used here
// read the same): a fork child's repair, called by godlpack's after-fork hook
// (internal/forksafe) in every Go runtime godlpack loads.
//
// fork() copies the calling thread only; the runtime's books still name the
// parent's other threads. godlpack's before-fork hook makes every Go thread park
// outside the runtime first (internal/forksafe), so no lock is held and no structure is
// half-written at the fork; what the books still say of the vanished threads,
// this makes true of the child's one thread. Each step is a hang found in a
// child:
//
//   - idle and spinning Ms: startm would hand work and a P to an M whose thread
//     is gone (a goroutine a child's call starts never ran);
//   - Ps that an M of the parent owned (running, in a system call or a cgo call,
//     or handed to an M about to wake, m.nextp): never given back, so a stop of
//     the world, or a thread that needs a P, waits for ever (the parent's
//     goroutines queued on them are dropped, never run in the child);
//   - the network poller: sched.lastpoll 0 (a parent's M was polling) means no M
//     of the child polls, so timers never fire; and the epoll instance and its
//     wake-up eventfd are shared with the parent across fork(), so each process
//     would take the other's wake-ups: the child gets its own (descriptors a
//     parent's goroutine registered are the parent's);
//   - the template thread (a goroutine locked to its thread starts threads
//     through it) is the parent's: the child's first LockOSThread starts its own.
//
// sysmon is the parent's thread too, and the child goes without one, as before
// this file: GOMAXPROCS stays raised in a child (prepare.go), so a thread that
// needs a P finds one without sysmon taking Ps back from threads out in C.
// Starting one in every child made its fork cycle measurably slower.
//
// Nothing here frees or rewrites a lock: a lock a vanished thread held means
// the state it guards may be half-written, and a hang is better than using it.

package runtime

import (
	"internal/runtime/atomic"
	"unsafe"
)

// godlpackForkChild repairs the runtime of a fork child (see above). It must be
// the first Go the child runs in this runtime, on the forking thread, with no
// other thread in Go (godlpack's after-fork hook, called by os.fork's
// after_in_child with the GIL held).
//
//go:linkname godlpackForkChild
func godlpackForkChild() {
	systemstack(godlpackForkChildRepair)
}

func godlpackForkChildRepair() {
	mp := getg().m
	// The forking thread's M still names the parent's thread (minit set it): the
	// stop of the world's preemption signal (signalM) went to a thread the child
	// does not have, and gopreempt_m's patch reads it as "not repaired yet".
	mp.procid = uint64(gettid())
	now := nanotime()
	lock(&sched.lock)
	for mget() != nil { // the parent's idle Ms
	}
	sched.nmspinning.Store(0)
	sched.needspinning.Store(0)
	for m := allm; m != nil; m = m.alllink {
		if m != mp {
			// A parent's thread's M, or a spare (extra) M a thread of the parent
			// left: it holds no P in the child (its Ps are taken back below), so
			// a child's thread that takes the spare M gets a P as a new one would.
			m.nextp = 0
			m.p = 0
			m.oldp = 0
			m.spinning = false
		}
	}
	for _, pp := range allp {
		if pp == mp.p.ptr() || idlepMask.read(uint32(pp.id)) {
			continue // this thread's, or on the idle list
		}
		if pp.status != _Pidle && pp.status != _Prunning {
			continue
		}
		pp.m = 0
		pp.status = _Pidle
		// Its queue holds the parent's goroutines: left there they never ran in
		// the child (the P was lost); moved to the global queue they would, and
		// one locked to a parent's thread hands the P that runs it to that
		// thread's M, which does not exist (storms: ~1 child in 10,000 hung so).
		// They stay unrun, as before.
		for {
			if gp, _ := runqget(pp); gp == nil {
				break
			}
		}
		pp.limiterEvent.stamp.Store(0) // an event of the vanished M's, never ended
		pidleput(pp, now)
	}
	sched.lastpoll.Store(now)
	sched.pollUntil.Store(0)
	sched.pollingNet.Store(0)
	unlock(&sched.lock)

	if netpollinited() {
		closefd(epfd)
		closefd(int32(netpollEventFd))
		netpollWakeSig.Store(0)
		netpollinit()
	}
	godlpackMarkVanishedMs(mp)
	// The parent's template thread is gone: LockOSThread starts one again when a
	// goroutine of the child locks itself (the only kind of thread that asks it for
	// new threads). Ms the parent queued for it were given a P (dropped above):
	// they must not start.
	newmHandoff.newm = 0
	newmHandoff.waiting = false
	newmHandoff.wake = note{}
	atomic.Store(&newmHandoff.haveTemplateThread, 0)
}

// godlpackVanished holds the addresses of the Ms whose threads fork() left in the
// parent (every M but the forking thread's and the spare ones on the extra list,
// which the child's new threads take), up to its size; godlpackNVanished counts
// them. Addresses, not pointers: allm keeps the Ms alive.
var (
	godlpackVanished  [1024]uintptr
	godlpackNVanished int
)

// godlpackMarkVanishedMs records the Ms of vanished threads (sched.lock held or
// not: the child has one thread). A goroutine locked to one of them (the Go call
// a parent's thread was waiting in at the fork) may still be readied in the
// child, by a parent's timer or goroutine: schedule then hands the P that runs
// it to its M (startlockedm), whose thread does not exist, and the P is lost
// (the child's next stop of the world waits for it for ever). The patched
// startlockedm (runtime_patches.py) asks godlpackVanishedM first and drops such a
// goroutine instead: it never runs in the child, as its thread does not.
func godlpackMarkVanishedMs(self *m) {
	const locked = 1 // lockextra's sentinel
	head := extraM.Load()
	godlpackNVanished = 0
	for x := allm; x != nil; x = x.alllink {
		if x == self {
			continue
		}
		spare := false
		if head != locked {
			for e := (*m)(unsafe.Pointer(head)); e != nil; e = e.schedlink.ptr() {
				if e == x {
					spare = true
					break
				}
			}
		}
		if !spare && godlpackNVanished < len(godlpackVanished) {
			godlpackVanished[godlpackNVanished] = uintptr(unsafe.Pointer(x))
			godlpackNVanished++
		}
	}
}

// godlpackVanishedM says whether mp's thread was left in the parent by a fork
// (always false in a process that has not forked).
//
//go:nosplit
//go:nowritebarrierrec
func godlpackVanishedM(mp *m) bool {
	for i := 0; i < godlpackNVanished; i++ {
		if godlpackVanished[i] == uintptr(unsafe.Pointer(mp)) {
			return true
		}
	}
	return false
}

// godlpackStaleThread says whether mp is the forking thread's M in a fork child
// whose runtime is not repaired yet: its procid is still the parent's thread's.
// The patched gopreempt_m (runtime_patches.py) asks it before yielding: a stop of
// the world in the parent may leave its preemption request on the forking
// thread's goroutine (set after the goroutine's last stack check, before it went
// back to C), which the goroutine honours at its next stack check, in the child
// the first Go of the after-fork hook, before the repair: the yield handed the
// thread's P to an idle M of the parent's, whose thread is gone, and the child
// hung. The request was the parent's; the child drops it. A system call, made
// only when a goroutine is about to yield to a request.
//
//go:nosplit
func godlpackStaleThread(mp *m) bool {
	return mp.procid != uint64(gettid())
}

// godlpackLeavePreemptRequest leaves a preemption request on the calling
// goroutine, honoured at its next stack check after it returns to C, as a stop
// of the world can leave one (godlpackStaleThread): a test hook
// (tests/test_goext_fork.py, through forksafe's goForkTestLeavePreemptRequest).
//
//go:linkname godlpackLeavePreemptRequest
func godlpackLeavePreemptRequest() {
	getg().preempt = true
}

//go:build godlpack_python

package cpython

// interp.go: the interpreter's state as this Go runtime sees it, and the GIL taken
// from any goroutine. Go code enters Python in either direction: a Go program that
// embeds the interpreter (embed.go, pyembed) or a Go extension that Python loaded
// and whose function calls back into Python. Each entry locks the goroutine to its
// OS thread (a CPython thread state belongs to one OS thread), takes the GIL
// through that thread's state (gd_gil_enter: made once per OS thread and kept),
// runs, and gives both back: between calls no Go code holds the GIL, so Go work
// runs in parallel with Python's.

// #include "gd_python.h"
// int gd_gil_enter(void);
// void gd_gil_leave(int state);
import "C"

import (
	"sync/atomic"

	"github.com/godlpack/godlpack/internal/forksafe"
)

// State is the interpreter's state as this process sees it.
type State int32

// The states.
const (
	NoInterpreter State = iota // neither started by Start nor hosting us
	Hosted                     // a Python process imported this library (an extension, the godlpack module)
	Embedded                   // Start started it
	Finalizing                 // Finalize is waiting for calls to end, or finalizing
	Finalized                  // gone: every call is refused
	starting      State = -1   // Start is under way
)

var (
	state atomic.Int32
	// inCalls counts the entries in progress into an interpreter Start started, so
	// that Finalize waits for them. Entries into a hosting interpreter are not
	// counted: Hosted is for good (nothing finalizes it from Go, and no state
	// follows it), so the count would be two atomic adds a callback for nothing.
	// An entry and its ExitCall thus see the same
	// answer to "hosted?": a state that is Hosted at the entry still is at its exit,
	// and one that is not never becomes it.
	inCalls atomic.Int64
)

// CurrentState is the interpreter's state now.
func CurrentState() State { return State(state.Load()) }

// MarkHosted records that Python itself loaded this library (module exec), so that
// its Go code may call back into it, and that a fork on a thread of Go's is refused
// there (forksafe.GuardGoThreads).
func MarkHosted() {
	if state.CompareAndSwap(int32(NoInterpreter), int32(Hosted)) {
		forksafe.GuardGoThreads()
	}
}

// EnterCall begins a call into Python from Go (any goroutine): nil, the call
// counted until ExitCall where Finalize waits for it (inCalls), or ErrNotStarted
// when there is no interpreter to call.
func EnterCall() error {
	if CurrentState() == Hosted {
		if C.gd_interpreter_gone() == 0 {
			return nil
		}
		return ErrNotStarted
	}
	inCalls.Add(1)
	if CurrentState() == Embedded {
		return nil
	}
	inCalls.Add(-1)
	return ErrNotStarted
}

// EnterCallChecked is EnterCall for C code that checks itself, in the same
// crossing, that a hosting interpreter is not gone (gd_interpreter_gone): true,
// the call counted as EnterCall's until ExitCall, when one runs or hosts us.
func EnterCallChecked() bool {
	if CurrentState() == Hosted {
		return true
	}
	inCalls.Add(1)
	if CurrentState() == Embedded {
		return true
	}
	inCalls.Add(-1)
	return false
}

// ExitCall ends a call that EnterCall began.
func ExitCall() {
	if CurrentState() != Hosted {
		inCalls.Add(-1)
	}
}

// GIL is the state GILEnsure returns, for Release.
type GIL C.int

// GILEnsure takes the GIL on the calling OS thread, which the caller keeps locked
// (runtime.LockOSThread) until Release.
func GILEnsure() GIL { return GIL(C.gd_gil_enter()) }

// Release gives the GIL back.
func (g GIL) Release() { C.gd_gil_leave(C.int(g)) }

//go:build godlpack_python && godlpack_runtime_fork

package forksafe

// runtime_repair.go: the fork child's repair of its Go runtime, in a build
// whose runtime has it (internal/forksafe/overlay/godlpack_fork.go, added to
// package runtime by godlpack's builds for the Go releases it was checked against,
// goreleases.SUPPORTED_GO in pyext/godlpack_build, which then set the build tag
// godlpack_runtime_fork).

import "C"

import _ "unsafe" // go:linkname

//go:linkname runtimeForkChild runtime.godlpackForkChild
func runtimeForkChild()

// repairRuntimeInChild makes this runtime's books true of a fork child's one
// thread (see the runtime file); true: done.
func repairRuntimeInChild() bool {
	runtimeForkChild()
	return true
}

//go:linkname runtimeLeavePreemptRequest runtime.godlpackLeavePreemptRequest
func runtimeLeavePreemptRequest()

// goForkTestLeavePreemptRequest leaves a preemption request on the calling
// thread's goroutine, as a stop of the world racing its return to C can: a test
// hook, called through ctypes (tests/test_goext_fork.py).
//
//export goForkTestLeavePreemptRequest
func goForkTestLeavePreemptRequest() { runtimeLeavePreemptRequest() }

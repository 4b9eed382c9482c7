//go:build ignore

// Added to package runtime by godlpack's builds (pyext/godlpack_build/runtime_patches.py,
// with godlpack_clearupper_amd64.go and godlpack_clearupper_other.go), for the releases
// the fork repair is checked against: reentersyscall, where Go code leaves for C (a cgo
// call, a callback returning to C) or the kernel, calls it first.

#include "go_asm.h"
#include "textflag.h"

// func godlpackClearUpper()
//
// VZEROUPPER where the CPU has AVX. A build with GOEXPERIMENT=simd (godlpack's, for
// package vec's kernels) has asyncPreempt save and restore the whole vector registers,
// YMM or ZMM, so any goroutine preempted by a signal (sysmon's, after 10 ms in Go, or a
// stop of the world's) goes on with their upper halves in use; returned to C that way,
// every SSE instruction after it (CPython's, the C library's) paid a false dependency
// on them until some code cleared them: views and slices of godlpack.Array, and CPython's
// own small objects, ran 2-3x slower in a process after any long Go call (bench_array's
// views "bimodal across processes"). The SysV ABI keeps no vector register across a
// call, and Go's ABIInternal none across this one: nothing live is lost.
TEXT ·godlpackClearUpper(SB),NOSPLIT|NOFRAME,$0-0
	CMPB	internal∕cpu·X86+const_offsetX86HasAVX(SB), $1
	JNE	done
	VZEROUPPER
done:
	RET

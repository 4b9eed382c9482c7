//go:build godlpack_python

// Package forksafe keeps a Go runtime usable in a child made by os.fork(): the
// hooks that make the runtime quiet before a fork and restore it after
// (prepare.go, wait.c, quiet.c), the child's repair of its runtime's books
// (runtime_repair.go with the runtime file godlpack's builds add, or
// idle_ms.go's per-Go-release fallback), and the refusal of a fork from a thread
// that Go made (guard.c).
//
// Every c-shared library built with godlpack has its own Go runtime: the godlpack
// module's, and one per extension written in Go, each with its own copy of this
// package's state and hooks. Each runtime must be made quiet before a fork and
// restored after it, so each library registers its own copy of the hooks at its
// module's first exec (Register): a fork child of a process that imported goext
// then runs goext's goroutines as it runs godlpack's. Without it the child's first
// call that starts goroutines hangs: they are handed, with a P, to idle Ms whose
// threads the fork left behind.
//
// os.register_at_fork runs the before hooks in the reverse order of registration
// and the after hooks in that order: godlpack, imported by an extension's exec,
// registers first, so its runtime is made quiet last, just before the fork, and
// each extension's before it (prepare.go: what may still wake a quiet runtime).
//
// Built without the godlpack_python tag (no Python's headers), the package is
// empty. docs/internals/fork.md tells the whole story.
package forksafe

// #cgo CFLAGS: -I${SRCDIR}/../cheaders
// #include "gd_python.h"
// int gd_fork_register(PyObject *module);
// void gd_fork_guard_enable(void);
import "C"

import (
	"unsafe"

	_ "github.com/godlpack/godlpack/internal/cheaders" // header edits rebuild this package
)

var registered bool

// Register registers this runtime's fork hooks with os.register_at_fork, once
// (module exec, GIL held; module is the PyObject* of the module whose exec runs):
// 0, or -1 with a Python exception set.
func Register(module unsafe.Pointer) int {
	if registered {
		return 0
	}
	if C.gd_fork_register((*C.PyObject)(module)) < 0 {
		return -1
	}
	registered = true
	schedLayoutMatches()
	return 0
}

// GuardGoThreads makes os.fork() refused in Python code run on a thread whose
// Python state Go made (guard.c): called once Python hosts this library (an
// extension's or the godlpack module's exec), not in a program that embeds Python.
func GuardGoThreads() { C.gd_fork_guard_enable() }

//export goForkAfterParent
func goForkAfterParent() { AfterForkParent() }

//export goForkAfterChild
func goForkAfterChild() { AfterForkChild() }

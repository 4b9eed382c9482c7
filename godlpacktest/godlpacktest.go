// Package godlpacktest holds helpers for the tests of extensions written with
// godlpack, as net/http/httptest does for net/http: counters that a test reads
// before and after what it checks. A go test of an extension checks its module with
// godlpack.Check and calls its functions with godlpack.Lookup and Function.Call;
// a Python test calls the counters through a function of the extension that
// returns them.
package godlpacktest

import (
	// its init sets the counters read here
	_ "github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/internal/hooks"
)

// LiveInstances returns how many Go values instances of bound classes hold now: it
// returns to its value once the instances are dropped, so a test of instance
// lifetime compares it before and after. Called while a function returning a
// bound class's *T runs (its constructor), it may count the instance that call
// is making.
func LiveInstances() int64 { return hooks.LiveInstances() }

// GILReleases returns how many calls of this extension's functions, made from the
// calling OS thread, have released the GIL around their Go function so far (on a
// free-threaded CPython: detached from the interpreter), for tests and benchmarks of
// the GIL policy. Each thread counts its own calls, so counting costs the calls of
// other threads nothing. Built without Python it is 0.
func GILReleases() int64 { return hooks.GILReleases() }

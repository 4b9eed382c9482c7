//go:build godlpack_python

package godlpack

// fork_hooks.go: registering this library's fork hooks (fork.go) with
// os.register_at_fork. Every c-shared library built from this package has its own
// Go runtime: the godlpack module's, and one per extension written in Go
// (examples/goext), each with its own copy of fork.go's state and hooks. Each
// runtime must be made quiet before a fork and restored after it, so each
// library registers its own copy of the hooks at its module's first exec
// (goModuleExec, goExtExec): a fork child of a process that imported goext then
// runs goext's goroutines as it runs godlpack's. Without it the child's first
// call that starts goroutines hangs: they are handed, with a P, to idle Ms whose
// threads the fork left behind.
//
// os.register_at_fork runs the before hooks in the reverse order of registration
// and the after hooks in that order: godlpack, imported by an extension's exec,
// registers first, so its runtime is made quiet last, just before the fork, and
// each extension's before it (fork.go: what may still wake a quiet runtime).

// #include "godlpack.h"
// #include "ext.h"
// int gd_fork_register(PyObject *module, gd_ext_func *after_parent, gd_ext_func *after_child);
import "C"

import "sync"

// forkAfterHooks are the after-fork hooks, written with the extension API: the
// godlpack module also lists them as _after_fork_parent and _after_fork_child
// (module_funcs.go). They run with the GIL held, as os.fork() calls them.
var forkAfterHooks = sync.OnceValue(func() [2]*Function {
	return [2]*Function{
		Func0("_after_fork_parent", afterForkParent).HoldGIL().Doc("Internal: fork hook."),
		Func0("_after_fork_child", afterForkChild).HoldGIL().Doc("Internal: fork hook."),
	}
})

// forkHooksRegistered: this library's hooks are registered (once per process: a
// module imported again must not run them twice per fork). GIL held.
var forkHooksRegistered bool

// registerForkHooks registers this runtime's fork hooks with os.register_at_fork,
// the first time a module of this library is executed (mod: that module, whose
// name the hook functions carry). -1 with a Python exception on failure.
func registerForkHooks(mod *C.PyObject) C.int {
	if forkHooksRegistered {
		return 0
	}
	hooks := forkAfterHooks()
	for _, f := range hooks {
		f.makeCTable()
	}
	if C.gd_fork_register(mod, hooks[0].cfunc, hooks[1].cfunc) < 0 {
		return -1
	}
	forkHooksRegistered = true
	// The check fork_idle_ms.go's child hook relies on, once, at import rather
	// than inside the first fork's before hook.
	schedLayoutMatches()
	return 0
}

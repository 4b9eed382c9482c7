//go:build godlpack_python && godlpack_module

package godlpack

// module_funcs.go: the functions of the godlpack module itself that are written
// with the extension API (godlpack.Func0 ..., ext_*.go), as a user's extension
// is: the API dogfooded where it costs no hot path anything. The rest of the
// module's functions (module.c's table) are hand-written METH_VARARGS/FASTCALL
// functions: they take what the API has no parameter type for (shapes, dtypes,
// buffers, any Python object) or run per exchange, where a call through the API
// costs ~50 ns more than a hand-written one (docs/design.md, "The godlpack
// module's own functions").

// #include "godlpack.h"
import "C"

import (
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/forksafe"
)

// selfModule is the godlpack module's API-defined functions, made at the first
// module exec (goModuleExec): not in modules, so an extension, which links this
// package too, neither builds nor lists it.
var selfModule *moduleSpec

func godlpackFunctions() *moduleSpec {
	return newModuleSpec("_godlpack", "", []*Function{
		Func0("_dtype_table", dtypeTable).
			Doc("Internal: (name, code, bits, kind) of every dtype, in table order."),
		Func0("_live_allocations", liveAllocations).
			Doc("Number of live C allocations (owners and exported managed tensors), for tests;\n" +
				"needs GODLPACK_COUNT_ALLOCATIONS=1 in the environment at import."),
		// The fork hooks (fork_hooks.go), which the module's exec also registers.
		Func0("_after_fork_parent", func() (None, error) { forksafe.AfterForkParent(); return None{}, nil }).
			HoldGIL().Doc("Internal: fork hook."),
		Func0("_after_fork_child", func() (None, error) { forksafe.AfterForkChild(); return None{}, nil }).
			HoldGIL().Doc("Internal: fork hook."),
	})
}

// goModuleExec adds the API-defined functions to the godlpack module object m
// (module.c's exec, GIL held); -1 with ImportError for mistakes in their
// definitions.
//
//export goModuleExec
func goModuleExec(m *C.PyObject) C.int {
	if selfModule == nil {
		selfModule = godlpackFunctions()
	}
	if len(selfModule.errs) > 0 {
		importError("godlpack._godlpack: " + strings.Join(selfModule.errs, "; "))
		return -1
	}
	if selfModule.addTo(m) < 0 {
		return -1
	}
	return C.int(forksafe.Register(unsafe.Pointer(m)))
}

// dtypeTable is (name, code, bits, kind) of every dtype, in table order, from
// which the Python package makes its godlpack.dtype objects.
func dtypeTable() (Tuple, error) {
	all := dlpack.All()
	rows := make(Tuple, len(all))
	for i, d := range all {
		rows[i] = Tuple{d.Name, int(d.DL.Code), int(d.DL.Bits), int(d.Kind)}
	}
	return rows, nil
}

func liveAllocations() (int64, error) {
	if C.gd_counting == 0 {
		return 0, RuntimeError.Errorf("allocation counting is off: set GODLPACK_COUNT_ALLOCATIONS=1 in the environment before importing godlpack")
	}
	return int64(C.gd_live_allocations()), nil
}

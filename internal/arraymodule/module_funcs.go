//go:build godlpack_python

package arraymodule

// module_funcs.go: the functions of the godlpack module itself that are written
// with the extension API (godlpack.Module, godlpack.Func0 ...), as a user's
// extension is: the API dogfooded where it costs no hot path anything. The rest of
// the module's functions (module.c's table) are hand-written METH_VARARGS/FASTCALL
// functions: they take what the API has no parameter type for (shapes, dtypes,
// buffers, any Python object) or run per exchange, where a call through the API
// costs ~50 ns more than a hand-written one (docs/internals/call-path.md).

// #include "arraymodule.h"
// // The root package's exec of a godlpack.Module (ext_module.c): adds its members to
// // mod, registers this runtime's fork hooks; 0, or -1 with an exception.
// int godlpack_ext_exec(PyObject *mod, const char *name);
// #include <stdlib.h>
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/forksafe"
)

// moduleName is the last part of godlpack._godlpack, the name its members are
// declared under (godlpack.Module), as an extension's are.
const moduleName = "_godlpack"

func init() {
	godlpack.Module(moduleName, "",
		godlpack.Func0("_dtype_table", dtypeTable).
			Doc("Internal: (name, code, bits, kind) of every dtype, in table order."),
		godlpack.Func0("_live_allocations", liveAllocations).
			Doc("Number of live C allocations (owners and exported managed tensors), for tests;\n"+
				"needs GODLPACK_COUNT_ALLOCATIONS=1 in the environment at import."),
		// The fork hooks that forksafe.Register gives os.register_at_fork, listed too.
		godlpack.Func0("_after_fork_parent", func() (godlpack.None, error) {
			forksafe.AfterForkParent()
			return godlpack.None{}, nil
		}).HoldGIL().Doc("Internal: fork hook."),
		godlpack.Func0("_after_fork_child", func() (godlpack.None, error) {
			forksafe.AfterForkChild()
			return godlpack.None{}, nil
		}).HoldGIL().Doc("Internal: fork hook."),
	)
}

// goModuleExec adds the API-defined functions to the godlpack module object m
// (module.c's exec, GIL held); -1 with ImportError for mistakes in their
// definitions.
//
//export goModuleExec
func goModuleExec(m *C.PyObject) C.int {
	name := C.CString(moduleName)
	defer C.free(unsafe.Pointer(name))
	return C.godlpack_ext_exec(m, name)
}

// dtypeTable is (name, code, bits, kind) of every dtype, in table order, from
// which the Python package makes its godlpack.dtype objects.
func dtypeTable() (godlpack.Tuple, error) {
	all := dlpack.All()
	rows := make(godlpack.Tuple, len(all))
	for i, d := range all {
		rows[i] = godlpack.Tuple{d.Name, int(d.DL.Code), int(d.DL.Bits), int(d.Kind)}
	}
	return rows, nil
}

func liveAllocations() (int64, error) {
	if C.gd_counting == 0 {
		return 0, godlpack.RuntimeError.Errorf("allocation counting is off: set GODLPACK_COUNT_ALLOCATIONS=1 in the environment before importing godlpack")
	}
	return int64(C.gd_live_allocations()), nil
}

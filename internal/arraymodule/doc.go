// Package arraymodule is the CPython extension module godlpack._godlpack: the
// godlpack.Array type (array*.go, array_*.c), its constructors and conversions,
// DLPack export (__dlpack__, dlpack_export.c) and import (from_dlpack: capsule.go,
// import.go, dlpack_import.c), the DLPack C exchange API on the type (exchange.go,
// exchange.c), kDLOneAPI memory (oneapi.go, oneapi.c), the owners of array memory
// (owner.c), and the C-API table that extensions written in Go reach it through
// (capi.c, internal/cheaders/godlpack_capi.h). Its functions that need no hot path
// are written with godlpack's own extension API (module_funcs.go).
//
// Only the module's main package (pyext/extension) and pyembed (which makes the
// module in-process in a Go program) import it: an extension written in Go reaches
// the module through its C-API and links none of this package. Its code needs
// Python's headers (the godlpack_python build tag); without them the package holds
// only this file.
package arraymodule

// Package godlpack is the Python binding of godlpack: the godlpack.Array type,
// the DLPack capsule protocol (export and import), the DLPack C exchange API and
// the stream policy, written in Go with the few C shims cgo cannot express or
// that the hot paths need (the .c files beside this one). The godlpack._godlpack
// CPython extension module is this package built with -buildmode=c-shared from
// its main package, pyext/extension; Python extensions written in Go import it.
//
// # Writing a Python extension in Go
//
// An extension is a main package that imports this one and declares its module
// in an init function; godlpack's build backend compiles it with
// -buildmode=c-shared and adds the module's PyInit_<name>, the entry point
// CPython looks up:
//
//	func init() {
//		godlpack.Module("goext", "Functions over DLPack tensors, in Go.",
//			godlpack.Func2("scale", scale, "x", "k"),
//			godlpack.Func1("sum", sum, "x"),
//		)
//	}
//
//	func main() {} // a c-shared library needs one; it never runs
//
// Arrays it returns are godlpack.Array instances made by the godlpack module
// itself, which the extension imports.
//
// # Build tags
//
// The declarations of that API (Module, Func, Class, Tensor, Object, Start...)
// and the rules that check them are in files with no build tag and no C, so go
// doc, gopls, go vet and go test see them from a plain checkout. The CPython
// glue (the files that include Python.h, and the .c files) is behind the build
// tag godlpack_python, which build.py and the build backend set together with
// the target interpreter's headers (CGO_CFLAGS). Built without the tag, the
// package needs neither Python's headers nor libpython: an extension's go test
// checks its module (Check) and calls its functions with tensors made in Go
// (Function.Call), and what needs an interpreter (Object, Import, Start, Keep)
// returns ErrNoPython. The pure-Go DLPack core is dlpack/ and the Go DLPack API
// for programs without Python is dlpack/tensor. See docs/architecture.md for
// the layers and who owns which memory.
package godlpack

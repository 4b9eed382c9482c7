// Package godlpack is the Python binding of godlpack: the godlpack.Array type,
// the DLPack capsule protocol (export and import), the DLPack C exchange API and
// the stream policy, written in Go with the few C shims cgo cannot express or
// that the hot paths need (the .c files beside this one). The godlpack._godlpack
// CPython extension module is this package built with -buildmode=c-shared from
// its main package, pyext/extension; Python extensions written in Go import it.
//
// Every file but this one includes Python.h, so the package's code is behind the
// build tag godlpack_python, which build.py sets together with the target
// interpreter's headers (CGO_CFLAGS). Without the tag this is an empty package,
// so `go build ./...`, `go vet ./...` and `go test ./...` need only Go and a C
// compiler. The pure-Go DLPack core is dlpack/ and the Go DLPack API for
// programs without Python is dlpack/tensor. See docs/design.md for the layers
// and who owns which memory.
package godlpack

//go:build !godlpack_python

// Package cpython is the raw CPython glue that godlpack's cgo packages share. Its
// code needs Python's headers (the godlpack_python build tag that godlpack's
// builds set); without them the package is empty.
package cpython

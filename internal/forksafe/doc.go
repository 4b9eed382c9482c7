//go:build !godlpack_python

// Package forksafe keeps a Go runtime usable in a child made by os.fork(). Its
// code needs Python's headers (the godlpack_python build tag that godlpack's
// builds set); without them the package is empty.
package forksafe

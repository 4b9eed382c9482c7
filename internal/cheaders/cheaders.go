// Package cheaders holds the C headers that more than one cgo package of godlpack
// includes: the DLPack ABI (dlpack_abi.h), the fast check of a foreign tensor
// (fast_import.h), huge-page advice (hugepages.h), immortal objects on
// free-threaded builds (immortal.h), the godlpack module's C-API table
// (godlpack_capi.h) and the CPython helpers shared by the binding's packages
// (gd_python.h).
//
// cgo rebuilds a package when a file in its own folder changes, not when a header
// it includes from another folder does. So each header is embedded here (Files),
// and every package that includes one imports this package: an edit to a header
// changes this package, which rebuilds every importer (TestHeaderEditRebuildsUsers).
// A user adds, beside the import,
//
//	// #cgo CFLAGS: -I${SRCDIR}/<relative path>/internal/cheaders
package cheaders

import "embed"

// Files is every header of this folder, as the packages that include them saw
// them at build time.
//
//go:embed *.h
var Files embed.FS

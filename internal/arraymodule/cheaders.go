//go:build godlpack_python

package arraymodule

// The shared C headers (internal/cheaders): imported so that an edit to one of them
// rebuilds this package (cgo tracks only its own folder's files).

// #cgo CFLAGS: -I${SRCDIR}/../cheaders
import "C"

import _ "github.com/godlpack/godlpack/internal/cheaders"

package godlpack

// embed_api.go: the embedding API's old names, kept one release: a Go program that
// starts CPython now does it with package pyembed, which also makes godlpack's own
// module in-process. No build tag and no C.

import "github.com/godlpack/godlpack/internal/cpython"

// Config says which interpreter Start starts.
//
// Deprecated: use pyembed.Config.
type Config struct {
	// Python is the python executable whose interpreter the program runs
	// (pyembed.Config.Python says more).
	Python string
}

// Start starts the Python interpreter in this process, once. It makes godlpack's
// own module in-process only where the program links package pyembed; otherwise it
// fails with an ImportError that names pyembed.
//
// Deprecated: use pyembed.Start.
func Start(cfg Config) error { return start(cfg) }

// Finalize finalizes the interpreter Start started.
//
// Deprecated: use pyembed.Finalize.
func Finalize() error { return finalize() }

// ErrNotStarted is returned by calls into Python before the interpreter is started
// in a Go program, and after it is finalized (pyembed.ErrNotStarted is the same
// error).
var ErrNotStarted = cpython.ErrNotStarted

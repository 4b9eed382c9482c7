// Package pyembed starts CPython inside a Go program and finalizes it: the
// embedding runtime. Once Start returns, the program calls Python from any
// goroutine through godlpack's Object (godlpack.Import, Object.Call, Object.Tensor,
// godlpack.FromGo), and tensors cross zero-copy both ways. The fast calls take the
// GIL once: Object.CallInt, CallFloat and CallTensor call and convert in one entry,
// and godlpack.WithGIL runs several calls under one hold.
//
// The program is built with Python's headers and libpython, as
// `python -m godlpack go-env --embed` prints them; built without (no godlpack_python
// build tag), Start returns godlpack.ErrNoPython. docs/embedding.md is the guide.
package pyembed

import "github.com/godlpack/godlpack/internal/cpython"

// Config says which interpreter Start starts.
type Config struct {
	// Python is the python executable whose interpreter the program runs: its
	// standard library, and its site-packages (a venv's python gives the venv's
	// packages). A path, or a name looked up on PATH. Empty: $GODLPACK_PYTHON (which
	// `python -m godlpack go-env --embed` sets), else python3 on PATH. Its version must
	// be the libpython's the program was linked with, and it must import godlpack's
	// Python package (installed, or on PYTHONPATH) of this library's version.
	Python string
}

// Start starts the Python interpreter in this process, once: Python's packages
// (torch, numpy...) are then imported with godlpack.Import and called from any
// goroutine. Python installs no signal handlers (Go's runtime keeps the process's
// signals: Ctrl-C does not raise KeyboardInterrupt). godlpack's own module is made
// from this program (a Go extension module, godlpack's .so included, cannot be
// loaded into a Go program: it would be a second Go runtime). Finalize ends it; it
// cannot be started again.
func Start(cfg Config) error { return start(cfg) }

// Finalize waits for the calls into Python in progress, then finalizes the
// interpreter (Py_FinalizeEx: atexit functions, non-daemon threads joined, modules
// freed) on its own thread. Later calls return ErrNotStarted; Objects still held
// are gone with it (their Close does nothing); Tensors taken from Python stay valid
// only for producers whose memory outlives the interpreter (a NumPy array's is
// leaked rather than freed, as NumPy's deleter does after finalization). Call it
// from a goroutine that is not inside a call into Python.
func Finalize() error { return finalize() }

// ErrNotStarted is returned by calls into Python before Start and after Finalize.
var ErrNotStarted = cpython.ErrNotStarted

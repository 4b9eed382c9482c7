//go:build godlpack_python

package godlpack

// embed.go: a Go program that starts CPython in its own process and calls it (the
// direction opposite to the extension's). The interpreter gets an OS thread of its
// own, a goroutine locked to it for the interpreter's life: it initializes and, at
// Finalize, finalizes there, so CPython's main thread (threading.main_thread(), the
// thread Py_FinalizeEx expects) is one Go never hands to other goroutines. Every
// other call comes from whatever goroutine makes it, through gil.go.

// #include "godlpack.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_embed_start(const char *program, char **err);
// int gd_embed_register_module(void);
import "C"

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// interpStarting: Start is starting the interpreter (the module's exec must not
// take the process for a Python host meanwhile).
const interpStarting int32 = -1

var finalizeReq = make(chan chan error)

// findPython resolves the executable and checks its version against the headers
// the program was built with: the venv of another version would give a prefix
// without this libpython's standard library, and CPython's start would fail with
// no word of why.
func findPython(name string) (string, error) {
	if name == "" {
		name = os.Getenv("GODLPACK_PYTHON")
	}
	if name == "" {
		name = "python3"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("godlpack.Start: python executable %q not found: %w (name one in Config.Python, or set GODLPACK_PYTHON)", name, err)
	}
	// Absolute, but not through its symlinks: a venv's python links to the base
	// interpreter, and CPython finds the venv from the path it is given.
	if path, err = filepath.Abs(path); err != nil {
		return "", fmt.Errorf("godlpack.Start: %w", err)
	}
	out, err := exec.Command(path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		return "", fmt.Errorf("godlpack.Start: cannot run %s: %w", path, err)
	}
	want := fmt.Sprintf("%d.%d", C.PY_MAJOR_VERSION, C.PY_MINOR_VERSION)
	if got := strings.TrimSpace(string(out)); got != want {
		return "", fmt.Errorf("godlpack.Start: %s is Python %s, but this program was built against Python %s's libpython: run `%s -m godlpack go-env --embed` and rebuild, or name a Python %s", path, got, want, path, want)
	}
	return path, nil
}

// interpreterThread is the interpreter's main thread for its whole life.
func interpreterThread(python string, started chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	cpath := C.CString(python)
	var cerr *C.char
	rc := C.gd_embed_start(cpath, &cerr)
	C.free(unsafe.Pointer(cpath))
	if rc != 0 {
		interpState.Store(interpFinalized) // a failed start leaves CPython half made
		started <- fmt.Errorf("godlpack.Start: starting Python from %s failed: %s", python, takeCString(cerr))
		return
	}
	if err := importGodlpack(python); err != nil {
		C.Py_FinalizeEx()
		interpState.Store(interpFinalized)
		started <- err
		return
	}
	tstate := C.PyEval_SaveThread() // the GIL is free for every other goroutine
	interpState.Store(interpEmbedded)
	started <- nil
	done := <-finalizeReq
	C.PyEval_RestoreThread(tstate)
	var err error
	if C.Py_FinalizeEx() < 0 {
		err = errors.New("godlpack.Finalize: Python could not flush its buffered output (sys.stdout/sys.stderr)")
	}
	interpState.Store(interpFinalized)
	done <- err
}

// importGodlpack makes godlpack._godlpack from this program and imports the Python
// package around it (GIL held).
func importGodlpack(python string) error {
	// threading first: its main_thread() is the thread that imports it, and
	// Py_FinalizeEx's wait for Python's threads counts on it being this one.
	if th, err := importModule("threading"); err == nil {
		C.gd_decref(th)
	}
	if C.gd_embed_register_module() != 0 {
		// No module to make (embed_nomodule.c: built as an extension builds) or no
		// importlib: the exception says which, not the import below.
		return fmt.Errorf("godlpack.Start: %w", takePythonError())
	}
	if m, err := importModule("godlpack"); err == nil {
		C.gd_decref(m)
		return nil
	}
	e := takePythonError()
	return fmt.Errorf("godlpack.Start: %s cannot import godlpack's Python package (pip install godlpack into it, or add its folder to PYTHONPATH): %w", python, e)
}

// start is Start (embed_api.go), with Python.
func start(cfg Config) error {
	if !interpState.CompareAndSwap(interpNone, interpStarting) {
		switch interpState.Load() {
		case interpHosted:
			return errors.New("godlpack.Start: this process is a Python interpreter that imported godlpack; Start is for Go programs (call into it directly)")
		case interpFinalizing, interpFinalized:
			return errors.New("godlpack.Start: the interpreter was finalized and cannot be started again in this process")
		}
		return errors.New("godlpack.Start: the interpreter is already started")
	}
	python, err := findPython(cfg.Python)
	if err != nil {
		interpState.Store(interpNone)
		return err
	}
	started := make(chan error)
	go interpreterThread(python, started)
	return <-started
}

// finalize is Finalize (embed_api.go), with Python.
func finalize() error {
	if !interpState.CompareAndSwap(interpEmbedded, interpFinalizing) {
		if interpState.Load() == interpFinalized {
			return nil
		}
		return errors.New("godlpack.Finalize: no interpreter started by godlpack.Start")
	}
	for inCalls.Load() != 0 {
		time.Sleep(100 * time.Microsecond)
	}
	done := make(chan error)
	finalizeReq <- done
	return <-done
}

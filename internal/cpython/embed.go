//go:build godlpack_python

package cpython

// embed.go: a Go program that starts CPython in its own process and calls it (the
// direction opposite to the extension's). The interpreter gets an OS thread of its
// own, a goroutine locked to it for the interpreter's life: it initializes and, at
// Finalize, finalizes there, so CPython's main thread (threading.main_thread(), the
// thread Py_FinalizeEx expects) is one Go never hands to other goroutines. Every
// other call comes from whatever goroutine makes it, through interp.go.

// #include "gd_python.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_embed_start(const char *program, char **err);
// int gd_embed_register_module(PyObject *def, const char *name);
import "C"

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// inProcessModule is the godlpack module's definition (its PyModuleDef, from its
// ModuleDef) that Start makes in-process as godlpack._godlpack: set by the package
// that implements the module (internal/arraymodule), which pyembed links. A program
// that does not link it has no godlpack module: a Go extension's .so, godlpack's own
// included, cannot be loaded into a Go program (it would be a second Go runtime).
var inProcessModule atomic.Pointer[func() unsafe.Pointer]

// SetInProcessModule records def as the godlpack module's definition for Start.
func SetInProcessModule(def func() unsafe.Pointer) { inProcessModule.Store(&def) }

// registerModule makes godlpack._godlpack in-process (GIL held): 0, or -1 with
// ImportError when this program links no godlpack module.
func registerModule() C.int {
	def := inProcessModule.Load()
	if def == nil {
		msg := C.CString("this Go program links no godlpack module: start the interpreter " +
			"with pyembed.Start (import github.com/godlpack/godlpack/pyembed), which makes " +
			"godlpack's own module in-process")
		C.PyErr_SetString(C.PyExc_ImportError, msg)
		C.free(unsafe.Pointer(msg))
		return -1
	}
	name := C.CString("godlpack._godlpack")
	defer C.free(unsafe.Pointer(name))
	return C.gd_embed_register_module((*C.PyObject)((*def)()), name)
}

// importModule imports a module (GIL held): a new reference, or nil with the
// exception set.
func importModule(name string) *C.PyObject {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.PyImport_ImportModule(cs)
}

// takeCString returns a malloc'd C string as a Go string and frees it ("" for NULL).
func takeCString(p *C.char) string {
	if p == nil {
		return ""
	}
	s := C.GoString(p)
	C.free(unsafe.Pointer(p))
	return s
}

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
		return "", fmt.Errorf("pyembed.Start: python executable %q not found: %w (name one in Config.Python, or set GODLPACK_PYTHON)", name, err)
	}
	// Absolute, but not through its symlinks: a venv's python links to the base
	// interpreter, and CPython finds the venv from the path it is given.
	if path, err = filepath.Abs(path); err != nil {
		return "", fmt.Errorf("pyembed.Start: %w", err)
	}
	out, err := exec.Command(path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		return "", fmt.Errorf("pyembed.Start: cannot run %s: %w", path, err)
	}
	want := fmt.Sprintf("%d.%d", C.PY_MAJOR_VERSION, C.PY_MINOR_VERSION)
	if got := strings.TrimSpace(string(out)); got != want {
		return "", fmt.Errorf("pyembed.Start: %s is Python %s, but this program was built against Python %s's libpython: run `%s -m godlpack go-env --embed` and rebuild, or name a Python %s", path, got, want, path, want)
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
		state.Store(int32(Finalized)) // a failed start leaves CPython half made
		started <- fmt.Errorf("pyembed.Start: starting Python from %s failed: %s", python, takeCString(cerr))
		return
	}
	if err := importGodlpack(python); err != nil {
		C.Py_FinalizeEx()
		state.Store(int32(Finalized))
		started <- err
		return
	}
	tstate := C.PyEval_SaveThread() // the GIL is free for every other goroutine
	state.Store(int32(Embedded))
	started <- nil
	done := <-finalizeReq
	C.PyEval_RestoreThread(tstate)
	var err error
	if C.Py_FinalizeEx() < 0 {
		err = errors.New("pyembed.Finalize: Python could not flush its buffered output (sys.stdout/sys.stderr)")
	}
	state.Store(int32(Finalized))
	done <- err
}

// importGodlpack makes godlpack._godlpack from this program and imports the Python
// package around it (GIL held).
func importGodlpack(python string) error {
	// threading first: its main_thread() is the thread that imports it, and
	// Py_FinalizeEx's wait for Python's threads counts on it being this one.
	if th := importModule("threading"); th != nil {
		C.gd_decref(th)
	} else {
		C.PyErr_Clear()
	}
	if registerModule() != 0 {
		// No module to make (a program that does not link pyembed) or no
		// importlib: the exception says which, not the import below.
		return fmt.Errorf("pyembed.Start: %w", TakeError())
	}
	if m := importModule("godlpack"); m != nil {
		C.gd_decref(m)
		return nil
	}
	e := TakeError()
	return fmt.Errorf("pyembed.Start: %s cannot import godlpack's Python package (pip install godlpack into it, or add its folder to PYTHONPATH): %w", python, e)
}

// Start starts the interpreter from the executable python (a path or a name on
// PATH; empty: $GODLPACK_PYTHON, else python3), once, on an OS thread of its own
// (pyembed.Start says what the caller gets). Its Python errors are TakeError's.
func Start(python string) error {
	if !state.CompareAndSwap(int32(NoInterpreter), int32(starting)) {
		switch CurrentState() {
		case Hosted:
			return errors.New("pyembed.Start: this process is a Python interpreter that imported godlpack; Start is for Go programs (call into it directly)")
		case Finalizing, Finalized:
			return errors.New("pyembed.Start: the interpreter was finalized and cannot be started again in this process")
		}
		return errors.New("pyembed.Start: the interpreter is already started")
	}
	python, err := findPython(python)
	if err != nil {
		state.Store(int32(NoInterpreter))
		return err
	}
	started := make(chan error)
	go interpreterThread(python, started)
	return <-started
}

// Finalize waits for the calls into Python in progress, then finalizes the
// interpreter that Start started, on its thread (pyembed.Finalize).
func Finalize() error {
	if !state.CompareAndSwap(int32(Embedded), int32(Finalizing)) {
		if CurrentState() == Finalized {
			return nil
		}
		return errors.New("pyembed.Finalize: no interpreter started by pyembed.Start")
	}
	for inCalls.Load() != 0 {
		time.Sleep(100 * time.Microsecond)
	}
	done := make(chan error)
	finalizeReq <- done
	return <-done
}

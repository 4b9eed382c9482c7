//go:build godlpack_python

package godlpack

// #include "ext.h"
// #include "gd_python.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// extFuncs is every Function of the extension by id (its C table's id), filled
// at module exec with the GIL held and only read afterwards.
var extFuncs []*Function

// goExtCall is the one crossing of a call into Go (ext_call.c; the GIL is
// released as the function says: HoldGIL, ReleaseGIL): it converts and checks the
// arguments, runs the author's function and writes its result or error into res.
// A panic is recovered into RuntimeError; the borrowed tensors made during the
// call are closed whatever happens.
//
// The crossing itself is Go's: ~40 ns from a C thread into an exported no-op. The
// runtime's wait for package init on every such callback (`<-main_init_done` in
// cgocallbackg1, runtime/cgocall.go, Go 1.26: a lock and an unlock of a closed
// channel) is one load of a flag in godlpack's builds (godlpack_build's runtime_patches).
//
//export goExtCall
func goExtCall(id C.int32_t, args *C.gd_ext_arg, nargs C.int, res *C.gd_ext_result) {
	f := extFuncs[id]
	if releasedQueued() { // before the author's code: the values of dead instances gone
		takeReleasedIDs(res, f.makesInstance)
	}
	argv := unsafe.Slice(args, int(nargs)) // f's parameters', *args's elements last (ext_call.c's nbound)
	defer f.endCall(argv, res)             // a method, not a closure: nothing to build per call
	if err := f.call(argv, res); err != nil {
		if _, ok := err.(*unfitError); ok {
			res.unfit = 1 // an argument's: an overload set may try its next alternative
		}
		if raiseAgain(err, res) {
			return
		}
		writeError(res, exceptionOf(err), err.Error())
		return
	}
	if res.kind == C.GD_EXT_R_ARRAY || res.kind == C.GD_EXT_R_TUPLE {
		refuseBorrowed(f, argv, res)
	}
}

// goExtIterNext writes the next item of Python iterator id's Go sequence into
// res: 1, an item; 0, the end (StopIteration); -1, an error written into res.
// The GIL released (ext_class.c's iter_next): the sequence runs Go code, which
// may wait for locks, and its items may be made in Go with the GIL (lists).
//
//export goExtIterNext
func goExtIterNext(id C.int64_t, res *C.gd_ext_result) (more C.int) {
	if releasedQueued() { // as goExtCall
		takeReleasedIDs(res, false)
	}
	v, ok := pulledSeqs.Load(uint64(id))
	if !ok {
		return 0
	}
	p := v.(*pulledSeq)
	defer func() {
		if r := recover(); r != nil { // a writer's panic: the item is lost, not the process
			writeError(res, RuntimeError, fmt.Sprintf("%s(): Go panic: %v", p.name, r))
			more = -1
		}
	}()
	switch item, err := p.next(res); {
	case err != nil:
		writeError(res, exceptionOf(err), err.Error())
		return -1
	case item:
		return 1
	}
	return 0
}

// goExtIterStop ends the Go sequence of Python iterator id: its dealloc, or a
// result never delivered. It returns at once, the sequence told to stop on a
// goroutine of its own: a dealloc holds the GIL, and the sequence's last
// deferred calls may need it. Any thread, after finalization too.
//
//export goExtIterStop
func goExtIterStop(id C.int64_t) {
	if v, ok := pulledSeqs.LoadAndDelete(uint64(id)); ok {
		go v.(*pulledSeq).stop()
	}
}

// raiseAgain writes, for an error that is (or wraps) an exception Go met calling
// Python (a callback), that very exception, to be raised again with its
// traceback, unless the module maps err to an exception class of its own. An err
// wrapping it (fmt.Errorf("reading batch %d: %w", i, err)) adds its Go message to
// the exception as a note (PEP 678's add_note): the caller catches the callback's
// own exception object and the traceback shows where Go met it. The exception
// returned as it is (return err) gets no note.
func raiseAgain(err error, res *C.gd_ext_result) bool {
	var pe *PythonError
	if !errors.As(err, &pe) || pe.raised == nil {
		return false
	}
	if _, mapped := classException(err); mapped {
		return false
	}
	return pe.raised.with(func(p *C.PyObject) error {
		if err != error(pe) {
			msg := err.Error()
			C.gd_ext_add_note(p, (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.Py_ssize_t(len(msg)))
		}
		C.gd_ext_result_free(res)
		C.gd_incref(p)
		res.kind, res.p = C.GD_EXT_R_RAISE, unsafe.Pointer(p)
		return nil
	}) == nil
}

// endCall closes the tensors AsTensor borrowed during the call and turns a
// panic into RuntimeError. goExtCall defers it directly, so recover works here.
func (f *Function) endCall(argv []C.gd_ext_arg, res *C.gd_ext_result) {
	if res.spare_id != 0 { // kept for an instance the call did not make
		freeSpareID(res)
	}
	for i := range argv {
		if argv[i].go_tensor != 0 {
			releaseBorrowed(&argv[i])
		}
	}
	if r := recover(); r != nil {
		writeError(res, RuntimeError, fmt.Sprintf("%s(): Go panic: %v", f.name, r))
	}
}

// gilReleases is GILReleases (ext_func.go), with Python.
func gilReleases() int64 { return int64(C.gd_ext_gil_releases()) }

package main

// lend.go: the callbacks and *godlpack.Objects a call lends its Go function
// (tests/test_goext_lend.py, tests/test_goext_callback_threads.py): used from
// goroutines, stored past the call with and without keeping them.

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/godlpack/godlpack"
)

func callItOnGoroutine(fn *godlpack.Object, arg float64) (any, error) {
	type result struct {
		v   any
		err error
	}
	done := make(chan result)
	go func() {
		v, err := callIt(fn, arg)
		done <- result{v, err}
	}()
	r := <-done
	return r.v, r.err
}

func callAll(fns []*godlpack.Object, arg float64) ([]any, error) {
	out := make([]any, len(fns))
	for i, fn := range fns {
		v, err := callIt(fn, arg)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

var stored struct {
	mu  sync.Mutex
	fn  func(float64) (float64, error)
	obj *godlpack.Object
}

func storeCallback(fn func(float64) (float64, error), keep bool) error {
	if keep {
		if err := godlpack.KeepFunc(fn); err != nil {
			return err
		}
	}
	stored.mu.Lock()
	defer stored.mu.Unlock()
	stored.fn = fn
	return nil
}

// storeAndCallHeld stores fn for call_stored (not kept) and returns fn(x), holding
// the GIL (HoldGIL): fn may call call_stored_released, whose Go code calls fn again
// on this thread with the GIL released.
func storeAndCallHeld(fn func(float64) (float64, error), x float64) (float64, error) {
	if err := storeCallback(fn, false); err != nil {
		return 0, err
	}
	return fn(x)
}

func callStored(x float64) (float64, error) {
	stored.mu.Lock()
	fn := stored.fn
	stored.mu.Unlock()
	if fn == nil {
		return 0, errors.New("call_stored(): no callback stored")
	}
	return fn(x)
}

func storeObject(obj *godlpack.Object, keep bool) error {
	if keep {
		var err error
		if obj, err = obj.Keep(); err != nil {
			return err
		}
	}
	stored.mu.Lock()
	defer stored.mu.Unlock()
	stored.obj = obj
	return nil
}

func storedStr() (string, error) {
	stored.mu.Lock()
	obj := stored.obj
	stored.mu.Unlock()
	if obj == nil {
		return "", errors.New("stored_str(): no Object stored")
	}
	cls, err := obj.Attr("__class__") // an error, where String would describe it
	if err != nil {
		return "", err
	}
	cls.Close()
	return obj.String(), nil
}

func closeStored() {
	stored.mu.Lock()
	obj := stored.obj
	stored.obj = nil
	stored.mu.Unlock()
	if obj != nil {
		obj.Close()
	}
}

func keepOwnFunc() error {
	return godlpack.KeepFunc(func(float64) (float64, error) { return 0, nil })
}

// Node keeps a Python callable past the call that gave it (Keep), for
// docs/classes.md, "Cycles through Go": a callable referring back to the Node's
// own instance is a cycle Python's collector cannot see, broken by a weak
// reference or by close().
type Node struct {
	onChange atomic.Pointer[godlpack.Object]
}

func (n *Node) OnChange(fn *godlpack.Object) error {
	kept, err := fn.Keep() // an argument is released when the call returns, unless kept
	if err != nil {
		return err
	}
	n.onChange.Swap(kept).Close() // the callable it replaces, if any, released now
	return nil
}

func (n *Node) Notify() error {
	if fn := n.onChange.Load(); fn != nil {
		r, err := fn.Call()
		r.Close()
		return err
	}
	return nil
}

// Close drops the callable: the explicit end of a cycle through it.
func (n *Node) Close() { n.onChange.Swap(nil).Close() }

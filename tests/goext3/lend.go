package main

// lend.go: the callbacks and *godlpack.Objects a call lends its Go function
// (tests/test_goext_lend.py, tests/test_goext_callback_threads.py): used from
// goroutines, stored past the call with and without keeping them.

import (
	"errors"
	"sync"

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

package main

import (
	"errors"
	"runtime"
	"syscall"
	"time"
)

// signalWhenFreed writes one byte to fd (a pipe's write end) once Go's collector
// has freed b's value: 1, or 0 if it is still held after 20 s. Meanwhile a
// goroutine of its own runs a collection every millisecond, so Python may wait on
// the pipe with no call into Go (test_instance_release.py).
func signalWhenFreed(b *Bag, fd int) {
	freed := make(chan struct{})
	runtime.AddCleanup(b, func(ch chan struct{}) { close(ch) }, freed)
	go func() {
		answer := []byte{0}
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			select {
			case <-freed:
				answer[0] = 1
				deadline = time.Time{}
			case <-time.After(time.Millisecond):
				runtime.GC()
			}
		}
		_, _ = syscall.Write(fd, answer)
	}()
}

// bagIf returns what how names: a new Bag ("bag"), nil ("nil": None), an error
// (anything else: ValueError) or a panic ("panic": RuntimeError), so that a call
// returning a *T makes an instance or none (test_instance_release.py).
func bagIf(how string) (*Bag, error) {
	switch how {
	case "bag":
		return newBag([]string{"made"}), nil
	case "nil":
		return nil, nil
	case "panic":
		panic("bag_if asked to panic")
	}
	return nil, errors.New("bag_if: asked for an error") // a ValueError
}

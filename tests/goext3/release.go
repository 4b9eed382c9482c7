package main

import (
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

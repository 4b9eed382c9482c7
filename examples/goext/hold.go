package main

import (
	"errors"
	"sync"
	"time"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/godlpacktest"
)

// held is the tensor hold() keeps past its call: its producer stays alive until
// release() closes it.
var held struct {
	sync.Mutex
	t *tensor.Tensor
}

func hold(x godlpack.Tensor[float64]) (int64, error) {
	t, err := x.Keep()
	if err != nil {
		return 0, err
	}
	held.Lock()
	defer held.Unlock()
	if held.t != nil {
		_ = held.t.Close()
	}
	held.t = t
	return t.Len(), nil
}

func heldSum() (float64, error) {
	held.Lock()
	defer held.Unlock()
	if held.t == nil {
		return 0, errors.New("nothing is held")
	}
	v, err := tensor.As[float64](held.t)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, x := range v.All() {
		s += x
	}
	return s, nil
}

func release() (godlpack.None, error) {
	held.Lock()
	defer held.Unlock()
	if held.t != nil {
		_ = held.t.Close()
		held.t = nil
	}
	return godlpack.None{}, nil
}

// spin keeps the calling thread busy in Go for seconds, as a long computation
// would, and returns when it started and ended (Unix nanoseconds, the clock of
// Python's time.time_ns).
func spin(seconds float64) (godlpack.Tuple, error) {
	start := time.Now()
	end := start.Add(time.Duration(seconds * float64(time.Second)))
	for time.Now().Before(end) {
	}
	return godlpack.Tuple{start.UnixNano(), time.Now().UnixNano()}, nil
}

// keepElsewhere keeps x on another goroutine, as a worker would, closes it there
// and returns its length. Keep takes the GIL: only a ReleaseGIL function lets
// another goroutine take it while the call waits (elsewhere it is an error).
func keepElsewhere(x godlpack.Tensor[godlpack.Any]) (int64, error) {
	var n int64
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		var t *tensor.Tensor
		if t, err = x.Keep(); err == nil {
			n = t.Len()
			err = t.Close() // a kept NumPy array's release takes the GIL too
		}
	}()
	<-done
	return n, err
}

func gilReleases() (int64, error) { return godlpacktest.GILReleases(), nil }

package tensor

// #include <stdint.h>
import "C"

import "runtime/cgo"

// godlpackTensorUnpin is the Go half of a pinned slice's deleter (tensor.c): it
// unpins the slice and drops the handle that kept its Pinner reachable. A
// consumer's deleter reaches it from any thread, including threads Go did not
// create; cgo makes such a callback legal, and nothing here needs the calling
// goroutine to be a particular one (Unpin and Handle.Delete are not tied to one).
//
//export godlpackTensorUnpin
func godlpackTensorUnpin(ctx C.uintptr_t) {
	h := cgo.Handle(ctx)
	p := h.Value().(*pinned)
	h.Delete()
	p.pinner.Unpin()
	livePins.Add(-1)
}

package tensor

// #include <stdint.h>
import "C"

// godlpackTensorUnpin is the Go half of a pinned slice's deleter (tensor.c). A
// consumer's deleter reaches it from any thread, including threads Go did not
// create; cgo makes such a callback legal, and nothing here needs a particular
// goroutine (a Pinner may be unpinned from any).
//
//export godlpackTensorUnpin
func godlpackTensorUnpin(ctx C.uintptr_t) { unpin(uintptr(ctx)) }

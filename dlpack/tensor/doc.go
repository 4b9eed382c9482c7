// Package tensor is godlpack's DLPack API for Go programs: it consumes the managed
// tensors that C producers hand over, produces managed tensors from Go data that C
// consumers can own, and gives typed, bounds-checked views of their elements. It
// uses cgo (a C deleter is a C function pointer) but no Python.
//
// # Ownership
//
// A *Tensor owns one DLPack managed tensor. FromManaged and FromManagedLegacy take
// a producer's DLManagedTensorVersioned* / DLManagedTensor* and own it from then
// on, whether or not it passes validation: a rejected tensor is released at once.
// New (C memory) and FromSlice (a pinned Go slice) make a tensor owned by Go.
// Close releases the tensor, calling its deleter exactly once; Export and
// ExportLegacy instead hand the managed tensor to a C consumer, whose call of the
// deleter releases it. A Tensor that is dropped without either is released by a
// finalizer after the collector finds it unreachable (a collection or two later
// than a finalizer set at once would: see leaks.go); that is a safety net, not a
// schedule, so call Close.
//
// # Views and lifetimes
//
// As returns a typed View whose methods check indices, the element type and
// READ_ONLY, and report errors rather than panic. A View keeps its Tensor
// reachable. A []T from View.Slice, or a gonum matrix from package dlgonum, aliases
// the tensor's memory without keeping the Tensor reachable: keep the Tensor (and do
// not Close it) while such a slice is in use.
//
// # Goroutines and threads
//
// Close, Export and ExportLegacy may be called from any goroutine, concurrently;
// exactly one of them takes effect. Reads and writes through views may run on
// several goroutines at once (a write races with a read of the same element, as
// with any slice), but not concurrently with Close. The deleters of produced
// tensors may be called from any thread, including threads Go did not create,
// at any time.
package tensor

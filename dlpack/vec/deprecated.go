package vec

// The names FromTensor's interfaces had before Tensor came to mean a DLPack
// tensor only (tensor.Tensor, godlpack.Tensor), and View.Slice's before the
// accessors of a tensor's elements as one slice took one pair of names (Slice,
// ReadSlice): each stays one release, the same type or method
// (deprecated_test.go).

// Tensor is Source's former name.
//
// Deprecated: use Source.
type Tensor = Source

// LaidOutTensor is LaidOutSource's former name.
//
// Deprecated: use LaidOutSource.
type LaidOutTensor = LaidOutSource

// Contiguous is Slice's former name.
//
// Deprecated: use Slice, the name of every other accessor of a tensor's
// elements as one slice (tensor.View.Slice, godlpack.Slice).
func (v View[T]) Contiguous() (s []T, ok bool) { return v.contiguous() }

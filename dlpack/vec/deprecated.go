package vec

// The names FromTensor's interfaces had before Tensor came to mean a DLPack
// tensor only (tensor.Tensor, godlpack.Tensor): each stays one release, an alias
// of the same interface (deprecated_test.go).

// Tensor is Source's former name.
//
// Deprecated: use Source.
type Tensor = Source

// LaidOutTensor is LaidOutSource's former name.
//
// Deprecated: use LaidOutSource.
type LaidOutTensor = LaidOutSource

package tensor

// ReadOnlySlice is ReadSlice's former name, from before the accessors of a
// tensor's elements as one slice took one pair of names (Slice, ReadSlice); it
// stays one release (deprecated_test.go).
//
// Deprecated: use ReadSlice.
func (v *View[T]) ReadOnlySlice() ([]T, error) { return v.ReadSlice() }

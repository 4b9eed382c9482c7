package tensor

import (
	"errors"
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
)

// Errors that need no detail. Validation failures of a consumed tensor are
// *dlpack.ValidationError, which names the offending field.
var (
	ErrClosed        = errors.New("tensor: use of a closed or exported tensor")
	ErrReadOnly      = errors.New("tensor: the tensor is read-only")
	ErrNotContiguous = errors.New("tensor: the tensor is not C-contiguous")
	ErrNil           = errors.New("tensor: NULL managed tensor")
)

// DTypeError reports a view or adapter asked for element type Want of a tensor
// whose elements are Got.
type DTypeError struct {
	Want, Got *dlpack.DType
}

func (e *DTypeError) Error() string {
	return fmt.Sprintf("tensor: element type %s does not match the tensor's dtype %s", e.Want, e.Got)
}

// IndexError reports an index that does not address an element.
type IndexError struct {
	Index []int64
	Shape []int64
}

func (e *IndexError) Error() string {
	if len(e.Index) != len(e.Shape) {
		return fmt.Sprintf("tensor: %d indices for a %d-d tensor", len(e.Index), len(e.Shape))
	}
	return fmt.Sprintf("tensor: index %v is out of range for shape %v", e.Index, e.Shape)
}

// ShapeError reports a shape a tensor cannot be made with.
type ShapeError struct {
	Shape []int64
	Msg   string
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("tensor: shape %v: %s", e.Shape, e.Msg)
}

// shapeError copies shape, which may be the caller's or the tensor's.
func shapeError(shape []int64, msg string) *ShapeError {
	return &ShapeError{Shape: append([]int64(nil), shape...), Msg: msg}
}

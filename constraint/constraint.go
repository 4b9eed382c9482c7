// Package constraint is the rules a tensor argument of an extension function
// must meet besides its element types, checked before the function runs:
// godlpack's Function.Where takes them, for one parameter each call.
//
//	godlpack.Func("blur", blur, "img", "sigma").
//		Where("img", constraint.Shape(-1, -1, 3), constraint.Contiguous())
//
// An argument that breaks one is refused with TypeError, naming the function,
// the parameter and the rule; a MutTensor whose elements alias each other is
// refused with ValueError unless AllowOverlap says otherwise.
//
// A C is data: what it requires, which the package applying it reads through
// its methods (NDim, Shape, Contiguous, AllowOverlap, DTypes). The constraints
// of one parameter add up; a later DTypes replaces an earlier one, and NDim and
// Shape must agree on the number of dimensions (Where reports them otherwise).
package constraint

import (
	"slices"

	"github.com/godlpack/godlpack/dlpack"
)

// A C is one rule a tensor argument must meet. The zero C requires nothing.
type C struct {
	ndim         int // 0: no NDim (ndim+1 is kept: NDim(0) is a rule)
	shape        []int64
	hasShape     bool
	contiguous   bool
	allowOverlap bool
	dtypes       []*dlpack.DType
	hasDTypes    bool
}

// NDim requires n dimensions.
func NDim(n int) C { return C{ndim: n + 1} }

// Shape requires these extents; -1 accepts any extent in its dimension. It
// implies NDim(len(dims)).
func Shape(dims ...int64) C {
	return C{ndim: len(dims) + 1, shape: slices.Clone(dims), hasShape: true}
}

// Contiguous requires C-contiguous (row-major, gapless) elements.
func Contiguous() C { return C{contiguous: true} }

// AllowOverlap accepts, for a MutTensor, a view whose elements alias each other
// (a zero stride, as in torch.ones(1).expand(5) or numpy.broadcast_to with
// writeable views; as_strided rows sharing elements), which is refused by
// default with ValueError: a function writing each element of such a view
// writes the shared ones once per index (x *= 2 over 8 aliases multiplies by
// 256). Declare it for functions whose writes are right whatever the aliasing
// (filling with one value, say). A Tensor, only read, takes no AllowOverlap.
func AllowOverlap() C { return C{allowOverlap: true} }

// DTypes narrows the dtypes a Tensor[Any] (or any Tensor) accepts to these;
// none: every dtype the tensor's type accepts.
func DTypes(dts ...*dlpack.DType) C { return C{dtypes: slices.Clone(dts), hasDTypes: true} }

// NDim reports the number of dimensions c requires (NDim's n, Shape's number of
// extents), and whether it requires one.
func (c C) NDim() (n int, ok bool) { return c.ndim - 1, c.ndim > 0 }

// Shape reports the extents c requires (-1: any, in its dimension), a copy, and
// whether it requires any (Shape).
func (c C) Shape() (dims []int64, ok bool) { return slices.Clone(c.shape), c.hasShape }

// Contiguous reports whether c requires C-contiguous elements.
func (c C) Contiguous() bool { return c.contiguous }

// AllowOverlap reports whether c accepts a MutTensor whose elements alias.
func (c C) AllowOverlap() bool { return c.allowOverlap }

// DTypes reports the dtypes c narrows a tensor to, a copy, and whether it
// narrows them (DTypes; none given: every dtype).
func (c C) DTypes() (dts []*dlpack.DType, ok bool) { return slices.Clone(c.dtypes), c.hasDTypes }

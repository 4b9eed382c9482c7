package godlpack

// ext_tensor.go: Tensor and MutTensor, the tensor arguments of a function. No
// build tag and no C (ext_cpython.go has Keep's C call).

import (
	"errors"
	"reflect"
	"runtime/cgo"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// A Tensor is a tensor argument of an extension function: any DLPack producer's
// tensor (a godlpack.Array, PyTorch, NumPy, JAX, TVM-FFI, a raw capsule), borrowed
// for the call without a copy. It is the concept Tensor names in every godlpack
// package, a DLPack tensor: dlpack/tensor's Tensor owns one (AsTensor and Keep
// give this one as such), this one is borrowed and typed by its parameter; the C
// struct itself is dlpack.DLTensor. E states the element types the function
// accepts: a Go element type (float32, int64, dlpack.BFloat16...) for exactly that
// dtype, or a DTypeSet such as AnyFloat or Any. A function that writes to its
// argument takes a MutTensor instead.
//
// The tensor and everything read from it (Data, slices from ReadSlice, the
// *tensor.Tensor of AsTensor) are valid until the function returns; Keep gives a
// tensor that stays valid until it is closed. Its methods may be called from any
// goroutine during the call, except AsTensor, which the calling goroutine should
// call first if others use it, and Keep (other goroutines only in a ReleaseGIL
// function).
type Tensor[E any] struct {
	a *extArg // C memory, the call's; one pointer, so passing a Tensor costs nothing
}

// A MutTensor is a Tensor the function may write to: a read-only producer's
// tensor is refused with TypeError before the function runs, and writes through
// it are seen by the producer (zero-copy).
type MutTensor[E any] struct {
	Tensor[E]
}

// TensorArg is what Tensor and MutTensor have in common, for functions over
// either (ReadSlice).
type TensorArg interface {
	arg() *extArg
}

func (x Tensor[E]) arg() *extArg { return x.a }

// IsNone reports whether the argument is absent: an optional tensor parameter
// (Default(name, nil)) that Python passed None for or left out. Such a Tensor is
// the zero Tensor: AsTensor, Keep and ReadSlice return an error for it and its
// other methods panic (RuntimeError in Python), as a nil pointer's would.
func (x Tensor[E]) IsNone() bool { return x.a == nil }

// errNone is what AsTensor, Keep and ReadSlice return for an absent tensor.
var errNone = errors.New("godlpack: the tensor is None (an optional argument not passed)")

// A DTypeSet names the dtypes a Tensor parameter accepts, as its type argument:
// Tensor[AnyFloat]. Define your own with a method returning the dtypes (nil for
// every dtype).
type DTypeSet interface {
	DTypes() []*dlpack.DType
}

// Any accepts every dtype.
type Any struct{}

// AnyFloat accepts float32 and float64.
type AnyFloat struct{}

// AnyInt accepts the signed integer dtypes.
type AnyInt struct{}

// DTypes returns nil: every dtype.
func (Any) DTypes() []*dlpack.DType { return nil }

// DTypes returns float32 and float64.
func (AnyFloat) DTypes() []*dlpack.DType {
	return []*dlpack.DType{dlpack.DTypeOf[float32](), dlpack.DTypeOf[float64]()}
}

// DTypes returns int8, int16, int32 and int64.
func (AnyInt) DTypes() []*dlpack.DType {
	return []*dlpack.DType{dlpack.DTypeOf[int8](), dlpack.DTypeOf[int16](), dlpack.DTypeOf[int32](), dlpack.DTypeOf[int64]()}
}

func (x Tensor[E]) dl() *cDLTensor { return &x.a.m.dl_tensor }

// DType returns the element type.
func (x Tensor[E]) DType() *dlpack.DType {
	dt := x.dl().dtype
	d, _ := dlpack.ByDL(dlpack.DLDataType{Code: uint8(dt.code), Bits: uint8(dt.bits), Lanes: uint16(dt.lanes)})
	return d // the godlpack module validated it: it is one of dlpack.All()
}

// NDim returns the number of dimensions.
func (x Tensor[E]) NDim() int { return int(x.dl().ndim) }

// Dim returns the extent of dimension i.
func (x Tensor[E]) Dim(i int) int64 { return x.shape()[i] }

// Stride returns the stride of dimension i, in elements (negative ones too).
func (x Tensor[E]) Stride(i int) int64 { return x.strides()[i] }

// Layout returns the data pointer, extents and strides (in elements) as the
// producer holds them, not copies: read them during the call, never write them.
// It makes a Tensor a vec.LaidOutSource, so vec.FromTensor reads its layout in
// one call.
func (x Tensor[E]) Layout() (data unsafe.Pointer, shape, strides []int64) {
	return x.dl().data, x.shape(), x.strides()
}

// Shape returns a copy of the extents.
func (x Tensor[E]) Shape() []int64 { return append([]int64(nil), x.shape()...) }

// Strides returns a copy of the strides, in elements.
func (x Tensor[E]) Strides() []int64 { return append([]int64(nil), x.strides()...) }

func (x Tensor[E]) shape() []int64 {
	t := x.dl()
	return unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), int(t.ndim))
}

func (x Tensor[E]) strides() []int64 {
	t := x.dl()
	return unsafe.Slice((*int64)(unsafe.Pointer(t.strides)), int(t.ndim))
}

// Len returns the number of elements.
func (x Tensor[E]) Len() int64 {
	n := int64(1)
	for _, d := range x.shape() {
		n *= d // the godlpack module checked that the count fits
	}
	return n
}

// ReadOnly reports whether the producer marked the tensor read-only.
func (x Tensor[E]) ReadOnly() bool { return x.a.m.flags&flagReadOnly != 0 }

// Contiguous reports whether the elements are C-contiguous (row-major, no gaps).
// A tensor with no elements is, whatever its strides (NumPy gives np.zeros((0, 5))
// strides (0, 0)).
func (x Tensor[E]) Contiguous() bool { return dlpack.IsCContiguous(x.shape(), x.strides()) }

// Data returns the address of element 0 (the element at index (0, 0, ...)).
func (x Tensor[E]) Data() unsafe.Pointer { return x.dl().data }

// ReadSlice returns the elements of a C-contiguous tensor as a []T sharing its
// memory: an error if T is not the dtype's Go type or the tensor is not
// C-contiguous. The function must not write through it unless x is a MutTensor.
func ReadSlice[T dlpack.Element](x TensorArg) ([]T, error) { return readSlice[T](x.arg()) }

// Slice is ReadSlice for a tensor the function may write to.
func Slice[T dlpack.Element, E any](x MutTensor[E]) ([]T, error) { return readSlice[T](x.a) }

// readSlice is ReadSlice of argument a. It reads the tensor's fields once, in
// one pass, with no lookup: a 4x4 clip_'s whole body is this and a 16-element
// loop, and a strided tensor's refusal is what a function pays before taking
// its strided path (bench/bench_vec.py).
func readSlice[T dlpack.Element](a *extArg) ([]T, error) {
	if a == nil {
		return nil, errNone
	}
	t := &a.m.dl_tensor
	want := dlpack.DTypeOf[T]()
	if dt := t.dtype; uint8(dt.code) != want.DL.Code || uint8(dt.bits) != want.DL.Bits || uint16(dt.lanes) != want.DL.Lanes {
		return nil, &tensor.DTypeError{Want: want, Got: Tensor[Any]{a}.DType()}
	}
	x := Tensor[Any]{a}
	shape, strides := x.shape(), x.strides()
	n, contiguous := int64(1), true // n: the elements inside dimension i (the module checked the count fits)
	for i := len(shape) - 1; i >= 0; i-- {
		contiguous = contiguous && (shape[i] == 1 || strides[i] == n)
		n *= shape[i]
	}
	if !contiguous && n != 0 { // no elements: any strides are C-contiguous (Contiguous's rule)
		return nil, tensor.ErrNotContiguous
	}
	if want.SubByte() && a.m.flags&flagSubbytePadded == 0 && n > 1 {
		return nil, errors.New("godlpack: packed sub-byte elements share bytes; no []T can view them")
	}
	return unsafe.Slice((*T)(t.data), int(n)), nil
}

// AsTensor returns the argument as a *tensor.Tensor, for the whole dlpack/tensor
// API (typed views, dlgonum's matrices). It is borrowed: valid until the function
// returns, when it is closed (later use gets tensor.ErrClosed); read-only unless x
// is a MutTensor. Repeated calls return the same one. (Not named Tensor: a
// MutTensor's embedded field has that name.)
func (x Tensor[E]) AsTensor() (*tensor.Tensor, error) {
	if x.IsNone() {
		return nil, errNone
	}
	if x.a.go_tensor != 0 {
		return cgo.Handle(x.a.go_tensor).Value().(*tensor.Tensor), nil
	}
	t, err := tensor.FromManaged(unsafe.Pointer(&x.a.m)) // no deleter: Close only ends it
	if err != nil {
		return nil, err
	}
	if x.a.mut == 0 {
		t.SetReadOnly()
	}
	x.a.go_tensor = cUintptr(cgo.NewHandle(t))
	return t, nil
}

// Keep returns the argument as a *tensor.Tensor that stays valid after the
// function returns: the producer's memory is kept alive until it is closed (or
// collected), from any goroutine; its release needs no GIL (but the producer's
// own release may: NumPy's takes it). Call it during the call, on the function's
// own goroutine: it takes the GIL, which the call may be holding meanwhile (see
// HoldGIL), so from another goroutine it returns an error unless the function is
// declared ReleaseGIL. It is read-only unless x is a MutTensor.
func (x Tensor[E]) Keep() (*tensor.Tensor, error) {
	if x.IsNone() {
		return nil, errNone
	}
	m, err := keepArg(x.a)
	if err != nil {
		return nil, err
	}
	t, err := tensor.FromManaged(m)
	if err != nil {
		return nil, err
	}
	if x.a.mut == 0 {
		t.SetReadOnly()
	}
	return t, nil
}

// releaseBorrowed closes the *tensor.Tensor that AsTensor made for a, if any.
func releaseBorrowed(a *extArg) {
	if a.go_tensor != 0 {
		h := cgo.Handle(a.go_tensor)
		a.go_tensor = 0
		_ = h.Value().(*tensor.Tensor).Close()
		h.Delete()
	}
}

// tensorParam is implemented by Tensor and MutTensor: the converter of such a
// parameter, a func(*extArg) (Self, error) as an any.
type tensorParam interface {
	converter(f *Function, p *param) any
	elementType() any
}

func (Tensor[E]) elementType() any { var e E; return e }

func (Tensor[E]) converter(f *Function, p *param) any {
	return func(a *extArg) (Tensor[E], error) {
		if a.obj == nil { // an optional tensor's None (ext_call.c): no argument
			return Tensor[E]{}, nil
		}
		if err := p.check(f, a); err != nil {
			return Tensor[E]{}, err
		}
		a.mut = p.mut
		return Tensor[E]{a}, nil
	}
}

func (MutTensor[E]) converter(f *Function, p *param) any {
	p.writable, p.kind = true, extMutTensor // never lent: a lent tensor has no flags
	return func(a *extArg) (MutTensor[E], error) {
		if a.obj == nil {
			return MutTensor[E]{}, nil
		}
		if err := p.check(f, a); err != nil {
			return MutTensor[E]{}, err
		}
		a.mut = p.mut
		return MutTensor[E]{Tensor[E]{a}}, nil
	}
}

// dtypesOf is the dtypes a Tensor[E] accepts (nil: all), or ok false if E is
// neither an element type nor a DTypeSet.
func dtypesOf(e any) (dts []*dlpack.DType, ok bool) {
	if s, ok := e.(DTypeSet); ok {
		return s.DTypes(), true
	}
	switch e.(type) {
	case bool:
		return one[bool](), true
	case int8:
		return one[int8](), true
	case int16:
		return one[int16](), true
	case int32:
		return one[int32](), true
	case int64:
		return one[int64](), true
	case uint8:
		return one[uint8](), true
	case uint16:
		return one[uint16](), true
	case uint32:
		return one[uint32](), true
	case uint64:
		return one[uint64](), true
	case float32:
		return one[float32](), true
	case float64:
		return one[float64](), true
	case complex64:
		return one[complex64](), true
	case complex128:
		return one[complex128](), true
	case dlpack.BFloat16:
		return one[dlpack.BFloat16](), true
	case dlpack.Float16:
		return one[dlpack.Float16](), true
	}
	return nil, false
}

func one[T dlpack.Element]() []*dlpack.DType { return []*dlpack.DType{dlpack.DTypeOf[T]()} }

// A tensor parameter's converter for Func's reflective path,
// with no reflective call of its own: the typed converter (Tensor.converter,
// MutTensor.converter) called directly and its result boxed, which for a
// one-pointer struct allocates nothing. A reflect.Value.Call of the converter
// (how argConverter called it) cost ~100-150 ns a tensor argument.

// tensorValueParam is implemented by Tensor and MutTensor: argConverter's
// converter of such a parameter.
type tensorValueParam interface {
	valueConverter(f *Function, p *param) argConv
}

func (Tensor[E]) valueConverter(f *Function, p *param) argConv {
	c := Tensor[E]{}.converter(f, p).(func(*extArg) (Tensor[E], error))
	return func(a *extArg) (reflect.Value, error) {
		x, err := arg(p, c, a) // a quick tensor with no converter call, as Func1's
		return reflect.ValueOf(x), err
	}
}

func (MutTensor[E]) valueConverter(f *Function, p *param) argConv {
	c := MutTensor[E]{}.converter(f, p).(func(*extArg) (MutTensor[E], error))
	return func(a *extArg) (reflect.Value, error) {
		x, err := arg(p, c, a)
		return reflect.ValueOf(x), err
	}
}

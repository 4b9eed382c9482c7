package godlpack

// ext_tensor_value.go: a tensor parameter's converter for Func's reflective path,
// with no reflective call of its own: the typed converter (Tensor.converter,
// MutTensor.converter) called directly and its result boxed, which for a
// one-pointer struct allocates nothing. A reflect.Value.Call of the converter
// (how argConverter called it) cost ~100-150 ns a tensor argument.

import "reflect"

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

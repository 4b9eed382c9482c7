package godlpack

import (
	"reflect"
	"testing"
)

// fakeTensor stands for Tensor[E] (declared behind the build tag): a tensor is
// whatever has elementType.
type fakeTensor struct{}

func (fakeTensor) elementType() any { return float32(0) }

func TestPyTypeName(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[uint16](), "int"},
		{reflect.TypeFor[int64](), "int"},
		{reflect.TypeFor[float32](), "float"},
		{reflect.TypeFor[complex64](), "complex"},
		{reflect.TypeFor[bool](), "bool"},
		{reflect.TypeFor[string](), "str"},
		{reflect.TypeFor[[]byte](), "bytes"},
		{reflect.TypeFor[[]float64](), "list[float]"},
		{reflect.TypeFor[map[string][]string](), "dict[str, list[str]]"},
		{reflect.TypeFor[*float64](), "float | None"},
		{reflect.TypeFor[**float64](), "float | None"},
		{reflect.TypeFor[any](), "object"},
		{reflect.TypeFor[fakeTensor](), "SupportsDLPack"},
		{reflect.TypeFor[func(int, []float64) (float64, error)](), "Callable[[int, list[float]], float]"},
		{reflect.TypeFor[func(string) error](), "Callable[[str], None]"},
		{nil, "None"},
	} {
		if got := pyTypeName(c.typ); got != c.want {
			t.Errorf("pyTypeName(%v) = %q, want %q", c.typ, got, c.want)
		}
	}
}

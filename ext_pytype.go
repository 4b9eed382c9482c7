package godlpack

// ext_pytype.go: the Python name of a Go parameter or result type, the one rule
// for signatures, error messages ("expected list[float]") and typed stubs. No
// build tag and no C: the stub generator and go doc read it from a plain checkout.

import (
	"reflect"
	"strings"
)

// elementTyped is implemented by Tensor and MutTensor (ext_tensor.go): a tensor
// parameter, whatever its element type.
type elementTyped interface{ elementType() any }

// thisPackage is this package's import path: Object and tensor.Tensor are
// recognised by name, their declarations being behind the build tag.
var thisPackage = reflect.TypeFor[elementTyped]().PkgPath()

// pyTypeName returns how Python spells the type a Go parameter or result of type
// t takes or gives, as in a typed stub: "int" for every integer width, "float",
// "complex", "bool", "str", "bytes", "list[float]", "dict[str, int]",
// "float | None" for *float64, "Node" for a bound class's *Node, "object" for any
// or *godlpack.Object,
// "Callable[[int], float]" for a func(int) (float64, error) callback,
// "SupportsDLPack" for a tensor, "None" for godlpack.None.
func pyTypeName(t reflect.Type) string {
	if t == nil {
		return "None"
	}
	if t.Implements(reflect.TypeFor[elementTyped]()) {
		return "SupportsDLPack"
	}
	if t.PkgPath() == thisPackage {
		switch t.Name() {
		case "None":
			return "None"
		case "Tuple":
			return "tuple"
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Complex64, reflect.Complex128:
		return "complex"
	case reflect.String:
		return "str"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "list[" + pyTypeName(t.Elem()) + "]"
	case reflect.Map:
		return "dict[" + pyTypeName(t.Key()) + ", " + pyTypeName(t.Elem()) + "]"
	case reflect.Pointer:
		if c, ok := boundClasses[t]; ok { // a bound class's *T: its instances (None only
			return c.name // with a Default of nil, which a signature adds)
		}
		switch e := t.Elem(); {
		case e.PkgPath() == thisPackage && e.Name() == "Object":
			return "object"
		case e.PkgPath() == thisPackage+"/dlpack/tensor" && e.Name() == "Tensor":
			return "godlpack.Array | None"
		}
		inner := pyTypeName(t.Elem())
		if strings.HasSuffix(inner, " | None") {
			return inner
		}
		return inner + " | None"
	case reflect.Interface:
		return "object"
	case reflect.Func: // a callback: func(A, B) (R, error) is Callable[[A, B], R]
		ins := make([]string, t.NumIn())
		for i := range ins {
			ins[i] = pyTypeName(t.In(i))
		}
		result := "None"
		if t.NumOut() == 2 {
			result = pyTypeName(t.Out(0))
		}
		return "Callable[[" + strings.Join(ins, ", ") + "], " + result + "]"
	}
	return t.String()
}

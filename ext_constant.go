package godlpack

// ext_constant.go: a module's constants (Const) and integer enumerations
// (IntEnum), as a Go package's constants and named integer types are bound
// (cmd/godlpack-bind). No build tag and no C; ext_constant_cpython.go adds
// them to the module object.

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A Constant is a module attribute with a fixed value, made by Const and
// passed to Module.
type Constant struct {
	name  string
	value any // int64, uint64, float64, bool or string (Const's conversions)
	errs  []string
}

// Const declares the module attribute name with value: any Go integer (an int
// in Python), float32 or float64 (a float), bool or string.
func Const(name string, value any) *Constant {
	c := &Constant{name: name}
	if !validIdentifier(name) {
		c.errs = append(c.errs, fmt.Sprintf("Const(%q): not a valid Python identifier", name))
	}
	switch v := value.(type) {
	case int:
		c.value = int64(v)
	case int8:
		c.value = int64(v)
	case int16:
		c.value = int64(v)
	case int32:
		c.value = int64(v)
	case int64:
		c.value = v
	case uint:
		c.value = uint64(v)
	case uint8:
		c.value = uint64(v)
	case uint16:
		c.value = uint64(v)
	case uint32:
		c.value = uint64(v)
	case uint64:
		c.value = v
	case uintptr:
		c.value = uint64(v)
	case float32:
		c.value = float64(v)
	case float64, bool, string:
		c.value = v
	default:
		c.errs = append(c.errs, fmt.Sprintf("Const(%q): a %T is not an int, float, bool or string", name, value))
	}
	return c
}

// pyTypeName is the constant's Python type, for its stub.
func (c *Constant) pyTypeName() string {
	switch c.value.(type) {
	case int64, uint64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	}
	return "Any"
}

// An Enum is an enum.IntEnum subclass of the module, made by IntEnum and
// passed to Module.
type Enum struct {
	name, doc string
	members   []enumMember
	export    bool
	errs      []string
	goType    reflect.Type // IntEnumFor's T: its parameters and results are members; nil for IntEnum's
	id        int32        // IntEnumFor's: the index in gd_ext_enums, where C finds the class; -1: none
}

type enumMember struct {
	name  string
	value int64
}

// IntEnum declares the enum.IntEnum subclass name of the module, with docstring
// doc: a Go named integer type and its constants (Value adds each). An IntEnum's
// members are ints, so they pass to int parameters as they are.
func IntEnum(name, doc string) *Enum {
	e := &Enum{name: name, doc: doc, id: -1}
	if !validIdentifier(name) {
		e.errs = append(e.errs, fmt.Sprintf("IntEnum(%q): not a valid Python class name", name))
	}
	return e
}

// Value adds the member name with value v.
func (e *Enum) Value(name string, v int64) *Enum {
	if !validIdentifier(name) {
		e.errs = append(e.errs, fmt.Sprintf("IntEnum %s: member %q is not a valid Python identifier", e.name, name))
	}
	for _, m := range e.members {
		if m.name == name {
			e.errs = append(e.errs, fmt.Sprintf("IntEnum %s: two members are named %q", e.name, name))
		}
	}
	e.members = append(e.members, enumMember{name, v})
	return e
}

// Export makes each member a module attribute too (as Go spells a package's
// constants, and as re.IGNORECASE is re.RegexFlag.IGNORECASE).
func (e *Enum) Export() *Enum {
	e.export = true
	return e
}

// boundEnums are IntEnumFor's enums by their Go type, enumList by id: filled in
// init functions, read only afterwards.
var (
	boundEnums = map[reflect.Type]*Enum{}
	enumList   []*Enum
)

// extMaxEnums bounds IntEnumFor's enums (ext.h's GD_EXT_MAX_ENUMS).
const extMaxEnums = 256

// IntEnumFor is IntEnum for the Go named integer type T (nanobind's nb::enum_,
// pyo3's #[pyclass] enum): a parameter of type T of the module's functions and
// methods takes a member, or an int equal to a member's value (another int is a
// ValueError, anything else a TypeError), and a T result is the member (a value
// that is no member's: ValueError). Add the members with Value:
//
//	godlpack.IntEnumFor[Scale]("Scale", "How edges are spaced.").
//		Value("LINEAR", int64(Linear)).Value("LOG", int64(Log))
func IntEnumFor[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](name, doc string) *Enum {
	e := IntEnum(name, doc)
	e.goType = reflect.TypeFor[T]()
	switch prev, dup := boundEnums[e.goType]; {
	case dup:
		e.errs = append(e.errs, fmt.Sprintf("IntEnumFor[%v](%q): the Go type is bound twice (as %s and %s)", e.goType, name, prev.name, name))
	case e.goType.Name() == "" || e.goType.PkgPath() == "":
		e.errs = append(e.errs, fmt.Sprintf("IntEnumFor[%v](%q): bind a named integer type of the package (type Scale int), not %v", e.goType, name, e.goType))
	case len(enumList) >= extMaxEnums:
		e.errs = append(e.errs, fmt.Sprintf("IntEnumFor[%v](%q): at most %d enums are supported", e.goType, name, extMaxEnums))
	default:
		e.id = int32(len(enumList))
		boundEnums[e.goType] = e
		enumList = append(enumList, e)
	}
	return e
}

// enumOf returns, at the first call, the IntEnumFor enum of t (nil: none). A
// converter calls it when the module is used, after every init function ran:
// IntEnumFor may come after the Func whose parameter is a T.
func enumOf(t reflect.Type) func() *Enum {
	if t.PkgPath() == "" { // int, int64...: no named type, no enum
		return func() *Enum { return nil }
	}
	return sync.OnceValue(func() *Enum { return boundEnums[t] })
}

// memberName is the name of e's member of value v ("" if none).
func (e *Enum) memberName(v int64) string {
	for _, m := range e.members {
		if m.value == v {
			return m.name
		}
	}
	return ""
}

// describe is e with its members, as errors name it: "Scale (LINEAR=0, LOG=1)".
func (e *Enum) describe() string {
	parts := make([]string, len(e.members))
	for i, m := range e.members {
		parts[i] = fmt.Sprintf("%s=%d", m.name, m.value)
	}
	return e.name + " (" + strings.Join(parts, ", ") + ")"
}

// notMember is the ValueError of an int argument v of p, of e's Go type, that is
// no member's value: the one rule of an IntEnumFor parameter (C says the same of
// an int beyond int64: ext_call.c's int64_arg).
func (e *Enum) notMember(f *Function, p *param, v int64) error {
	return ValueError.Errorf("%s(): argument %s: %d is not a member of %s", f.name, p.name, v, e.describe())
}

// enumLiteral is v's Python spelling when v is a member of an IntEnumFor enum
// ("Scale.LINEAR": a default in a signature and a stub), else "".
func enumLiteral(v any) string {
	if v == nil {
		return ""
	}
	e := boundEnums[reflect.TypeOf(v)]
	if e == nil {
		return ""
	}
	if name := e.memberName(intOf(reflect.ValueOf(v))); name != "" {
		return e.name + "." + name
	}
	return ""
}

// intOf is the value of v, of any integer kind up to 32-bit unsigned, as an int64.
func intOf(v reflect.Value) int64 {
	if v.CanInt() {
		return v.Int()
	}
	return int64(v.Uint())
}

package godlpack

// ext_constant.go: a module's constants (Const) and integer enumerations
// (IntEnum), as a Go package's constants and named integer types are bound
// (cmd/godlpack-bind). No build tag and no C; ext_constant_cpython.go adds
// them to the module object.

import "fmt"

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
}

type enumMember struct {
	name  string
	value int64
}

// IntEnum declares the enum.IntEnum subclass name of the module, with docstring
// doc: a Go named integer type and its constants (Value adds each). An IntEnum's
// members are ints, so they pass to int parameters as they are.
func IntEnum(name, doc string) *Enum {
	e := &Enum{name: name, doc: doc}
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

package godlpack

// ext_overload.go: one Python name for several Go functions (Overload).

import (
	"fmt"
	"reflect"
	"strings"
)

// Overload binds several Functions under one Python name, tried in declaration
// order: the first whose arguments bind and convert (their Python types: a
// tensor, a list, a float...) runs; its constraints (dtype, shape) and its
// errors then raise as for any function. When none fits, the TypeError lists
// every signature and the types passed, as nanobind's does. The alternatives
// are made with Func (or Func0..Func4) under the same name.
func Overload(name string, alternatives ...*Function) *Function {
	f := newFunction(name, 0, nil)
	if len(alternatives) < 2 {
		f.fail("Overload needs two functions or more, got %d", len(alternatives))
	}
	for _, a := range alternatives {
		if a == nil {
			f.fail("a nil *Function among the overloads")
			continue
		}
		if a.name != name {
			f.fail("the overload %s() must be named %q as its set", a.name, name)
		}
		if len(a.overloads) > 0 {
			f.fail("an overload set cannot hold another")
		}
		f.errs = append(f.errs, a.errs...)
		f.errs = append(f.errs, a.checkDefaults()...)
		f.overloads = append(f.overloads, a)
	}
	return f
}

// overloadSignatures are the alternatives' typed signatures, numbered, with
// their docstrings for help() (withDocs) or without for the TypeError.
func (f *Function) overloadSignatures(withDocs bool) string {
	lines := make([]string, len(f.overloads))
	for i, a := range f.overloads {
		lines[i] = fmt.Sprintf("    %d. %s", i+1, a.typedSignature())
		if withDocs && a.doc != "" {
			lines[i] += "\n        " + a.doc
		}
	}
	return strings.Join(lines, "\n")
}

// typedSignature is f's signature with the Python types of its parameters:
// "clip(x: list[float], lo: float, hi: float)".
func (f *Function) typedSignature() string {
	return f.signatureOf(func(p *param) string {
		s := p.name
		if p.goType != nil && !f.isReceiver(p) {
			s += ": " + docTypeName(f.annotated(p))
			if (p.kind == extTensor || p.kind == extMutTensor) && len(p.dtypes) > 0 {
				names := make([]string, len(p.dtypes)) // what tells dtype alternatives apart
				for i, d := range p.dtypes {
					names[i] = d.Name
				}
				s += "[" + strings.Join(names, " | ") + "]"
			}
			if p.kind == extInstance && p.hasDefault && p.def == nil {
				s += " | None" // an instance parameter takes None only then
			}
		}
		if p.hasDefault {
			s += " = " + pyLiteral(p.def)
		}
		return s
	})
}

// docTypeName is pyTypeName as a signature in a doc writes it: an IntEnumFor
// type is its enum class (scale: Scale), not int.
func docTypeName(t reflect.Type) string {
	if e, ok := boundEnums[t]; ok {
		return e.name
	}
	return pyTypeName(t)
}

// isReceiver reports whether p is a method's self or a class method's cls,
// which a typed signature leaves untyped (as Python's own do).
func (f *Function) isReceiver(p *param) bool {
	return len(f.params) > 0 && p == f.params[0] &&
		(p.name == "self" || p.name == "cls" && f.methodKind == extClassMethod)
}

// annotated is the Go type of p's annotation: **kwargs's map's values (Python
// annotates **tags: str, each value), any other's own (*args's: its elements').
func (f *Function) annotated(p *param) reflect.Type {
	if f.varKw >= 0 && f.params[f.varKw] == p {
		return p.goType.Elem()
	}
	return p.goType
}

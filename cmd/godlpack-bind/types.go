package main

// types.go: how each Go type of a bound package's API crosses to Python: the
// wrapper's parameter or result type and the conversion to or from the
// package's own type, or why it cannot.

import (
	"fmt"
	"go/types"
	"strings"
)

// sliceElems are the element types a []T parameter takes from any DLPack tensor
// (godlpack.Tensor[T], Function.Slices): DLPack's numeric types Go spells.
var sliceElems = map[types.BasicKind]bool{
	types.Float64: true, types.Float32: true, types.Int64: true, types.Int32: true,
	types.Int16: true, types.Int8: true, types.Uint64: true, types.Uint32: true,
	types.Uint16: true, types.Uint8: true,
}

// fastKinds are the scalar types godlpack.Func0..Func4 take and return with no
// reflection; other integer types go through godlpack.Func, which checks ranges.
var fastKinds = map[types.BasicKind]bool{
	types.Float64: true, types.Int: true, types.Int64: true, types.Bool: true, types.String: true,
}

// A crossing is how one parameter or result of a Go function crosses.
type crossing struct {
	goType string // the wrapper's type for it
	fast   bool   // a type Func0..Func4 take (a tensor or a fast scalar)
	slice  string // a []T parameter: T, taken by godlpack.GoSlice (Slices)
	// in converts the wrapper's parameter v to the package's type; out the
	// package's result v to the wrapper's.
	in, out func(v string) string
}

func same(v string) string { return v }

// crossingOf is how t crosses as a parameter (param) or a result, or why it
// cannot.
func (g *generator) crossingOf(t types.Type, param bool) (crossing, error) {
	qual, desc := g.typeString, g.describe
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg() != g.pkg {
		if path := n.Obj().Pkg().Path(); path == "internal" || strings.HasSuffix(path, "/internal") ||
			strings.Contains(path, "/internal/") || strings.HasPrefix(path, "internal/") {
			return crossing{}, fmt.Errorf("%s is a type of an internal package", n.Obj().Name())
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsUntyped != 0 || u.Kind() == types.UnsafePointer || u.Kind() == types.Uintptr {
			return crossing{}, fmt.Errorf("%s has no Python type", desc(t))
		}
		if u.Info()&types.IsComplex != 0 {
			return crossing{goType: qual(t), in: same, out: same}, nil
		}
		wire := u.Name()
		if u.Kind() == types.Float32 {
			wire = "float64" // Python's float
		}
		c := crossing{goType: wire, fast: fastKinds[u.Kind()] || u.Kind() == types.Float32, in: same, out: same}
		if _, named := t.(*types.Named); named || u.Kind() == types.Float32 {
			to, from := qual(t), wire
			c.in = func(v string) string { return to + "(" + v + ")" }
			c.out = func(v string) string { return from + "(" + v + ")" }
		}
		return c, nil
	case *types.Slice:
		e, ok := u.Elem().(*types.Basic)
		if !ok {
			return crossing{}, fmt.Errorf("%s: a slice of %s has no Python type", desc(t), desc(u.Elem()))
		}
		if _, named := t.(*types.Named); named {
			return crossing{}, fmt.Errorf("%s: a named slice type has no Python type", desc(t))
		}
		if param && sliceElems[e.Kind()] {
			return crossing{goType: "godlpack.Tensor[" + e.Name() + "]", fast: true, slice: e.Name(), in: same, out: same}, nil
		}
		if e.Info()&(types.IsNumeric|types.IsBoolean|types.IsString) != 0 && e.Info()&types.IsUntyped == 0 && e.Kind() != types.Uintptr {
			return crossing{goType: "[]" + e.Name(), in: same, out: same}, nil // a list, copied
		}
		return crossing{}, fmt.Errorf("%s has no Python type", desc(t))
	case *types.Pointer:
		if n, ok := u.Elem().(*types.Named); ok && g.classes[n.Obj()] != nil {
			return crossing{goType: qual(t), in: same, out: same}, nil
		}
		if _, named := t.(*types.Named); !named && plainBasic(u.Elem()) {
			return crossing{goType: "*" + u.Elem().String(), in: same, out: same}, nil // T | None
		}
	case *types.Map:
		if _, named := t.(*types.Named); !named && plainBasic(u.Key()) && plainBasic(u.Elem()) {
			return crossing{goType: t.String(), in: same, out: same}, nil // a dict, copied
		}
	case *types.Interface:
		if _, named := t.(*types.Named); !named && u.Empty() {
			return crossing{goType: "any", in: same, out: same}, nil // any object, converted
		}
	case *types.Struct:
		if n, ok := t.(*types.Named); ok && g.classes[n.Obj()] != nil {
			ptr := "*" + qual(t)
			if param {
				// a nil pointer (None where a Go value is needed) panics: RuntimeError naming it
				return crossing{goType: ptr, in: func(v string) string { return "*" + v }, out: same}, nil
			}
			return crossing{goType: ptr, in: same, out: func(v string) string { return "&" + v }}, nil
		}
	}
	return crossing{}, fmt.Errorf("%s has no Python binding (%s)", desc(t), kindOf(t))
}

// plainBasic reports whether t is an unnamed number, bool or string type
// (float64, not a named type of the package).
func plainBasic(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&(types.IsNumeric|types.IsBoolean|types.IsString) != 0 &&
		b.Info()&types.IsUntyped == 0 && b.Kind() != types.Uintptr
}

// kindOf says what sort of type t is, for the report.
func kindOf(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return "an interface type"
	case *types.Signature:
		return "a function type"
	case *types.Chan:
		return "a channel type"
	case *types.Map:
		return "a map type"
	case *types.Struct:
		return "a struct type not bound as a class"
	case *types.Pointer:
		return "a pointer to " + kindOf(u.Elem())
	case *types.Array:
		return "an array type"
	}
	return "not supported"
}

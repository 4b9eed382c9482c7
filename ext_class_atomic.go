package godlpack

// ext_class_atomic.go: AtomicProperty's fields, which C reads from the instance's
// pinned Go value with no call into Go (ext_class.c's field_get): where the field
// lies in T and which atomic type it is, found once, at registration.

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// atomicField is an AtomicProperty's field: its offset in T and its kind (how C
// loads it: ext.h's GD_EXT_FIELD_*).
type atomicField struct {
	offset uintptr
	kind   int32
}

// The kinds of atomic fields (gd_ext_property.field_kind; 0: a getter's call).
const (
	extFieldInt64 = iota + 1
	extFieldUint64
	extFieldInt32
	extFieldUint32
	extFieldBool
)

// atomicField matches field, an AtomicProperty's func(*T) *atomic.X, and
// returns the getter Python's fallback call and the stubs use (a func(*T) V,
// also when err says why field is refused), and the field.
func (classBinder[T]) atomicField(field any) (getter any, af *atomicField, err error) {
	switch field := field.(type) {
	case func(*T) *atomic.Int64:
		getter = func(t *T) int64 { return field(t).Load() }
		af, err = atomicFieldOf(field, extFieldInt64)
	case func(*T) *atomic.Uint64:
		getter = func(t *T) uint64 { return field(t).Load() }
		af, err = atomicFieldOf(field, extFieldUint64)
	case func(*T) *atomic.Int32:
		getter = func(t *T) int64 { return int64(field(t).Load()) }
		af, err = atomicFieldOf(field, extFieldInt32)
	case func(*T) *atomic.Uint32:
		getter = func(t *T) int64 { return int64(field(t).Load()) }
		af, err = atomicFieldOf(field, extFieldUint32)
	case func(*T) *atomic.Bool:
		getter = func(t *T) bool { return field(t).Load() }
		af, err = atomicFieldOf(field, extFieldBool)
	default:
		var t *T
		return func(*T) int64 { return 0 }, nil, fmt.Errorf("the field must be a func(%T) *atomic.X "+
			"returning the address of a sync/atomic Int64, Uint64, Int32, Uint32 or Bool field of its argument, got %T", t, field)
	}
	return getter, af, err
}

// atomicFieldOf finds where field's result lies in a T: called on a zero T, it
// must return the address of a field of that very T (not of a value T points to,
// which C could not reach pinned, nor of anything outside it).
func atomicFieldOf[T, F any](field func(*T) *F, kind int32) (af *atomicField, err error) {
	zero := new(T)
	defer func() {
		if r := recover(); r != nil {
			af, err = nil, fmt.Errorf("the field function panicked on a zero %T (%v): return the address of a field of "+
				"its argument itself (&t.count), not through a pointer", *zero, r)
		}
	}()
	p := field(zero)
	start, at := uintptr(unsafe.Pointer(zero)), uintptr(unsafe.Pointer(p))
	if p == nil || at < start || at+unsafe.Sizeof(*p) > start+unsafe.Sizeof(*zero) {
		return nil, fmt.Errorf("the field function must return the address of a field of its argument "+
			"itself (&t.count), got an address outside the %T (or nil)", *zero)
	}
	return &atomicField{offset: at - start, kind: kind}, nil
}

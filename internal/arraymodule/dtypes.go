//go:build godlpack_python

package arraymodule

// dtypes.go: the dtype table (dlpack.All()) as the binding needs it: the Python
// dtype objects (godlpack.dtype), the table the Python package builds them from,
// and the C copies, so that C's hot paths answer dtype questions with no crossing
// into Go: by index (gd_dtype_dl, constructors_fast.c),
// by (code, bits) for the import's fast check (gd_dtype_slots, fast_import.h: the
// whole-byte dtypes it takes) and for the exchange API's allocator (exchange.c: every
// dtype). All are filled here, once per process, from dlpack.All(): they cannot
// disagree with it or with each other.

/*
#include "arraymodule.h"
void gd_xchg_set_dtype(uint8_t code, uint8_t bits, int32_t index);
*/
import "C"

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
)

// fillDTypeTables is called once, from goProcessInit (module.c's exec function).
func fillDTypeTables() error {
	all := dlpack.All()
	if len(all) > C.GD_MAX_DTYPES {
		return fmt.Errorf("godlpack: %d dtypes, more than the C tables hold (%d)", len(all), C.GD_MAX_DTYPES)
	}
	for _, d := range all {
		dl := d.DL
		C.gd_dtype_dl[d.Index] = C.DLDataType{code: C.uint8_t(dl.Code), bits: C.uint8_t(dl.Bits), lanes: C.uint16_t(dl.Lanes)}
		if dl.Lanes != 1 {
			continue
		}
		C.gd_xchg_set_dtype(C.uint8_t(dl.Code), C.uint8_t(dl.Bits), C.int32_t(d.Index))
		if !d.SubByte() && int(dl.Code) < C.GD_DTYPE_CODES {
			C.gd_dtype_slots[dl.Code][dl.Bits] = C.int8_t(d.Index + 1)
		}
	}
	C.gd_dtype_count = C.int32_t(len(all))
	C.gd_default_dtype_index = C.int32_t(defaultDType.Index)
	return nil
}

// defaultDType is the dtype of empty/zeros/ones/full when none is given.
var defaultDType = mustDType("float32")

// mustDType is a dtype of the table by name, for names this package spells out.
func mustDType(name string) *dlpack.DType {
	d, ok := dlpack.ByName(name)
	if !ok {
		panic("godlpack: dtype table lacks " + name)
	}
	return d
}

//export goSetDtypes
func goSetDtypes(_, seq *C.PyObject) *C.PyObject {
	items, n, release := heldItems(seq, len(dlpack.All()))
	defer release()
	if n != len(dlpack.All()) || n > C.GD_MAX_DTYPES {
		return fail(typeErrorf("_set_dtypes expects a tuple of %d dtype objects", len(dlpack.All())))
	}
	objs := make([]*C.PyObject, len(items))
	for i, it := range items {
		C.gd_incref(it) // kept for the life of the process
		objs[i] = it
		C.gd_dtype_objects[i] = it // for the C fast paths (array_fast.c, constructors_fast.c)
	}
	dtypeObjects = objs
	return C.gd_none()
}

// dtypeObjects holds the Python dtype objects (godlpack.dtype, a str subclass)
// by dlpack.DType.Index. They are created by the Python package at import and
// live for the life of the process, so Go keeps only their addresses. Only the
// main interpreter can import godlpack (module.c), so they are its objects.
var dtypeObjects []*C.PyObject

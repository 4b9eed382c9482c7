package main

// dtype_tables.go: the C copies of the dtype table, so that C's hot paths answer
// dtype questions with no crossing into Go: by index (gd_dtype_dl, constructors_fast.c),
// by (code, bits) for the import's fast check (gd_dtype_slots, fast_import.h: the
// whole-byte dtypes it takes) and for the exchange API's allocator (exchange.c: every
// dtype). All are filled here, once per process, from dlpack.All(): they cannot
// disagree with it or with each other.

/*
#include "godlpack.h"
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

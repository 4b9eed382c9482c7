package dlpack

import (
	"reflect"
	"slices"
	"testing"
)

// ValidateInto must accept and reject exactly what Validate does, with the same
// view, whatever buffers it is given.
func TestValidateIntoMatchesValidate(t *testing.T) {
	tensors := map[string]Foreign{
		"0d":              foreign(nil, nil),
		"1d":              foreign([]int64{5}, []int64{1}),
		"2d-strided":      foreign([]int64{3, 4}, []int64{-8, 2}),
		"4d":              foreign([]int64{2, 3, 4, 5}, []int64{60, 20, 5, 1}),
		"6d":              foreign([]int64{2, 1, 3, 1, 2, 2}, []int64{12, 12, 4, 4, 2, 1}),
		"legacy-contig":   legacy([]int64{2, 3, 4, 5, 6}, nil),
		"reject-negative": foreign([]int64{2, -3}, []int64{3, 1}),
		"reject-ndim":     with(foreign([]int64{2}, []int64{1}), func(f *Foreign) { f.Tensor.NDim = MaxNDim + 1 }),
		"reject-strides":  foreign([]int64{2, 3}, nil),
		"reject-fp4":      with(foreign([]int64{3}, []int64{2}), func(f *Foreign) { f.Tensor.DType = dtFP4 }),
	}
	buffers := map[string]func() ([]int64, []int64){
		"nil":   func() ([]int64, []int64) { return nil, nil },
		"empty": func() ([]int64, []int64) { return []int64{}, []int64{} },
		"short": func() ([]int64, []int64) { return make([]int64, 1), make([]int64, 1) },
		"four":  func() ([]int64, []int64) { return make([]int64, 4), make([]int64, 4) },
		"mixed": func() ([]int64, []int64) { return make([]int64, 8), make([]int64, 2) },
		"long":  func() ([]int64, []int64) { return make([]int64, 8), make([]int64, 8) },
	}
	for tname, f := range tensors {
		want, wantErr := Validate(f)
		for bname, mk := range buffers {
			shapeBuf, stridesBuf := mk()
			before := Validated{NumElements: -7} // must survive a rejection
			v := before
			err := ValidateInto(&v, f, shapeBuf, stridesBuf)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%s/%s: error %v; Validate's %v", tname, bname, err, wantErr)
				continue
			}
			if err != nil {
				if !reflect.DeepEqual(v, before) {
					t.Errorf("%s/%s: view changed on error: %+v", tname, bname, v)
				}
				continue
			}
			if !reflect.DeepEqual(v, *want) {
				t.Errorf("%s/%s: view %+v; Validate's %+v", tname, bname, v, *want)
			}
			if v.Shape == nil || v.Strides == nil {
				t.Errorf("%s/%s: nil shape or strides", tname, bname)
			}
			nd := len(v.Shape)
			if nd > 0 && len(shapeBuf) >= nd && &v.Shape[0] != &shapeBuf[0] {
				t.Errorf("%s/%s: shape not in the caller's buffer", tname, bname)
			}
			if nd > 0 && len(stridesBuf) >= nd && &v.Strides[0] != &stridesBuf[0] {
				t.Errorf("%s/%s: strides not in the caller's buffer", tname, bname)
			}
			if cap(v.Shape) != nd || cap(v.Strides) != nd {
				t.Errorf("%s/%s: capacities %d, %d for ndim %d: an append could write into the other slice",
					tname, bname, cap(v.Shape), cap(v.Strides), nd)
			}
		}
	}
}

// With buffers long enough, ValidateInto allocates nothing; Validate allocates
// the Validated and one array for both shape and strides.
func TestValidateIntoAllocations(t *testing.T) {
	for _, f := range []Foreign{
		foreign([]int64{16, 16}, []int64{16, 1}),
		legacy([]int64{2, 3, 4}, nil),
		with(foreign([]int64{3}, []int64{2}), func(f *Foreign) { f.Tensor.DType, f.Flags = dtFP4, FlagSubbyteTypePadded|FlagReadOnly }),
	} {
		var v Validated
		var shape, strides [4]int64
		if n := testing.AllocsPerRun(100, func() {
			if err := ValidateInto(&v, f, shape[:], strides[:]); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("ValidateInto of shape %v: %v allocations; want 0", v.Shape, n)
		}
		if n := testing.AllocsPerRun(100, func() {
			if _, err := Validate(f); err != nil {
				t.Fatal(err)
			}
		}); n != 2 {
			t.Errorf("Validate of shape %v: %v allocations; want 2", v.Shape, n)
		}
		if !slices.Equal(v.Shape, shape[:len(v.Shape)]) {
			t.Errorf("shape %v not in the buffer %v", v.Shape, shape)
		}
	}
}

// copyCommon, the one-pass copy of the common case, must agree exactly with
// copyChecked, the rules one by one, on every tensor it takes: the same copies,
// element count and byte span, and copyChecked must accept it.
func FuzzCopyCommon(f *testing.F) {
	f.Add(uint8(2), uint8(32), int8(2), true, []byte{32, 32, 32, 2})
	f.Add(uint8(2), uint8(64), int8(3), true, []byte{4, 6, 8, 0x7f, 2, 1})
	f.Add(uint8(5), uint8(128), int8(1), true, []byte{0xfe, 0xff, 0xff, 0x3f, 0x81, 0x80, 0x80, 0x40})
	f.Add(uint8(17), uint8(4), int8(2), true, []byte{4, 6, 6, 2})
	f.Add(uint8(2), uint8(32), int8(0), false, []byte{})
	f.Fuzz(func(t *testing.T, code, bits uint8, ndim int8, withStrides bool, dims []byte) {
		if ndim < 0 || ndim > MaxNDim {
			return
		}
		el, err := checkDType(DLDataType{Code: code, Bits: bits, Lanes: 1}, 0)
		if err != nil {
			return
		}
		k := int(ndim)
		shape, rest := readInt64s(dims, k, 1)
		strides, _ := readInt64s(rest, k, 1)
		if k == 0 {
			shape, strides = nil, nil
		}
		ft := foreign(shape, strides)
		if !withStrides {
			ft.Tensor.Strides = nil
		}
		fastShape, fastStrides := make([]int64, k), make([]int64, k)
		n, lo, hi, ok := el.copyCommon(fastShape, fastStrides, ft.Tensor)
		if !ok {
			return
		}
		checkedShape, checkedStrides := make([]int64, k), make([]int64, k)
		wantN, wantLo, wantHi, err := el.copyChecked(checkedShape, checkedStrides, ft, extentField(ft.Tensor))
		if err != nil {
			t.Fatalf("copyCommon took shape %v strides %v (%s), copyChecked refuses: %v", shape, strides, el.dtype.Name, err)
		}
		if n != wantN || lo != wantLo || hi != wantHi ||
			!slices.Equal(fastShape, checkedShape) || !slices.Equal(fastStrides, checkedStrides) {
			t.Fatalf("copyCommon: %d elements, bytes %d..%d, %v %v; copyChecked: %d, %d..%d, %v %v",
				n, lo, hi, fastShape, fastStrides, wantN, wantLo, wantHi, checkedShape, checkedStrides)
		}
	})
}

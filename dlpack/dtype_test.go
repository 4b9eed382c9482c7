package dlpack

import "testing"

// The expected table is written out again here, not derived from dtype.go,
// so that a changed code, width or order (all of which consumers depend on)
// fails loudly.
var wantTable = []struct {
	name       string
	code, bits uint8
	kind       Kind
}{
	{"bool", 6, 8, KindBool},
	{"int8", 0, 8, KindInt},
	{"int16", 0, 16, KindInt},
	{"int32", 0, 32, KindInt},
	{"int64", 0, 64, KindInt},
	{"uint8", 1, 8, KindUint},
	{"uint16", 1, 16, KindUint},
	{"uint32", 1, 32, KindUint},
	{"uint64", 1, 64, KindUint},
	{"float16", 2, 16, KindFloat},
	{"float32", 2, 32, KindFloat},
	{"float64", 2, 64, KindFloat},
	{"bfloat16", 4, 16, KindFloat},
	{"complex64", 5, 64, KindComplex},
	{"complex128", 5, 128, KindComplex},
	{"float8_e3m4", 7, 8, KindFloat},
	{"float8_e4m3", 8, 8, KindFloat},
	{"float8_e4m3b11fnuz", 9, 8, KindFloat},
	{"float8_e4m3fn", 10, 8, KindFloat},
	{"float8_e4m3fnuz", 11, 8, KindFloat},
	{"float8_e5m2", 12, 8, KindFloat},
	{"float8_e5m2fnuz", 13, 8, KindFloat},
	{"float8_e8m0fnu", 14, 8, KindFloat},
	{"float6_e2m3fn", 15, 6, KindFloat},
	{"float6_e3m2fn", 16, 6, KindFloat},
	{"float4_e2m1fn", 17, 4, KindFloat},
}

func TestTableOrderNamesAndCodesMatchDLPackHeader(t *testing.T) {
	all := All()
	if len(all) != len(wantTable) {
		t.Fatalf("All() has %d dtypes, want %d", len(all), len(wantTable))
	}
	for i, w := range wantTable {
		d := all[i]
		if d.Name != w.name || d.DL != (DLDataType{Code: w.code, Bits: w.bits, Lanes: 1}) || d.Kind != w.kind {
			t.Errorf("All()[%d] = %s %+v kind %v, want %s code %d bits %d kind %v",
				i, d.Name, d.DL, d.Kind, w.name, w.code, w.bits, w.kind)
		}
		if d.Index != i {
			t.Errorf("%s.Index = %d, want its position %d", d.Name, d.Index, i)
		}
		if d.String() != d.Name {
			t.Errorf("%s.String() = %q", d.Name, d.String())
		}
	}
}

func TestEveryCodeBitsPairAndNameIsUnique(t *testing.T) {
	seenDL := map[DLDataType]string{}
	seenName := map[string]bool{}
	for _, d := range All() {
		if prev, dup := seenDL[d.DL]; dup {
			t.Errorf("%s and %s share %+v", prev, d.Name, d.DL)
		}
		seenDL[d.DL] = d.Name
		if seenName[d.Name] {
			t.Errorf("name %s appears twice", d.Name)
		}
		seenName[d.Name] = true
	}
}

func TestByNameAndByDLFindTheSameEntry(t *testing.T) {
	for _, d := range All() {
		if got, ok := ByName(d.Name); !ok || got != d {
			t.Errorf("ByName(%q) = %v, %v", d.Name, got, ok)
		}
		if got, ok := ByDL(d.DL); !ok || got != d {
			t.Errorf("ByDL(%+v) = %v, %v", d.DL, got, ok)
		}
	}
}

func TestByDLRejectsVectorsUnknownCodesAndOddWidths(t *testing.T) {
	for _, dt := range []DLDataType{
		{Code: CodeFloat, Bits: 32, Lanes: 4}, // vector types are not supported
		{Code: CodeFloat, Bits: 32, Lanes: 0},
		{Code: 3, Bits: 64, Lanes: 1}, // kDLOpaqueHandle
		{Code: CodeFloat, Bits: 8, Lanes: 1},
		{Code: CodeInt, Bits: 4, Lanes: 1}, // int4 is not in the table
		{Code: CodeBool, Bits: 1, Lanes: 1},
		{Code: CodeComplex, Bits: 32, Lanes: 1},
		{Code: 18, Bits: 8, Lanes: 1},
		{Code: 255, Bits: 255, Lanes: 1},
	} {
		if d, ok := ByDL(dt); ok {
			t.Errorf("ByDL(%+v) = %s, want not found", dt, d.Name)
		}
	}
	for _, name := range []string{"", "float", "int", "Float32", "float8_e4m3fnu", "e4m3"} {
		if d, ok := ByName(name); ok {
			t.Errorf("ByName(%q) = %s, want not found", name, d.Name)
		}
	}
}

func TestStorageBitsPadsOnlySubByteTypes(t *testing.T) {
	cases := []struct {
		name           string
		packed, padded int
		itemSize       int
		subByte        bool
	}{
		{"bool", 8, 8, 1, false},
		{"int16", 16, 16, 2, false},
		{"float8_e5m2", 8, 8, 1, false},
		{"complex64", 64, 64, 8, false},
		{"complex128", 128, 128, 16, false},
		{"float6_e2m3fn", 6, 8, 1, true},
		{"float6_e3m2fn", 6, 8, 1, true},
		{"float4_e2m1fn", 4, 8, 1, true},
	}
	for _, c := range cases {
		d, _ := ByName(c.name)
		if got := d.StorageBits(false); got != c.packed {
			t.Errorf("%s.StorageBits(packed) = %d, want %d", c.name, got, c.packed)
		}
		if got := d.StorageBits(true); got != c.padded {
			t.Errorf("%s.StorageBits(padded) = %d, want %d", c.name, got, c.padded)
		}
		if got := d.ItemSize(); got != c.itemSize {
			t.Errorf("%s.ItemSize() = %d, want %d", c.name, got, c.itemSize)
		}
		if got := d.SubByte(); got != c.subByte {
			t.Errorf("%s.SubByte() = %v, want %v", c.name, got, c.subByte)
		}
	}
}

func TestKindStringNamesEveryKind(t *testing.T) {
	want := map[Kind]string{KindBool: "bool", KindInt: "int", KindUint: "uint", KindFloat: "float", KindComplex: "complex", Kind(9): "Kind(9)"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("Kind %d String() = %q, want %q", k, k.String(), s)
		}
	}
}

package dlpack

import "strconv"

// Kind groups dtypes by how their values look to Python: the Go field of
// Scalar that carries them and the conversion rules that apply on Set.
type Kind uint8

// Element kinds. Every floating format, from float64 down to float4_e2m1fn,
// is KindFloat: Python sees all of them as float.
const (
	KindBool Kind = iota
	KindInt
	KindUint
	KindFloat
	KindComplex
)

var kindNames = [...]string{"bool", "int", "uint", "float", "complex"}

// String names the kind for error messages ("int", "float", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// DLDataTypeCode values of dlpack.h v1.3 that godlpack supports
// (kDLOpaqueHandle, code 3, has no element values and is never accepted).
const (
	CodeInt               uint8 = 0
	CodeUInt              uint8 = 1
	CodeFloat             uint8 = 2
	CodeBfloat            uint8 = 4
	CodeComplex           uint8 = 5
	CodeBool              uint8 = 6
	CodeFloat8E3M4        uint8 = 7
	CodeFloat8E4M3        uint8 = 8
	CodeFloat8E4M3B11FNUZ uint8 = 9
	CodeFloat8E4M3FN      uint8 = 10
	CodeFloat8E4M3FNUZ    uint8 = 11
	CodeFloat8E5M2        uint8 = 12
	CodeFloat8E5M2FNUZ    uint8 = 13
	CodeFloat8E8M0FNU     uint8 = 14
	CodeFloat6E2M3FN      uint8 = 15
	CodeFloat6E3M2FN      uint8 = 16
	CodeFloat4E2M1FN      uint8 = 17
	codeLimit                   = 18 // one past the largest code above
)

// DType describes one supported element type.
type DType struct {
	Name  string     // NumPy / ml_dtypes name of the type
	DL    DLDataType // DLPack code, bits and lanes (lanes always 1)
	Kind  Kind
	Index int // position in All(), stable, 0..len(All())-1

	// mini is the codec of float16 and of every float8, float6 and float4
	// format; nil for float32/64, bfloat16 and complex, which need none.
	mini *miniFloat
}

// String returns the dtype's NumPy-style name.
func (d *DType) String() string { return d.Name }

// SubByte reports whether an element is narrower than a byte (float6, float4),
// which is what makes packed and padded storage differ.
func (d *DType) SubByte() bool { return d.DL.Bits < 8 }

// StorageBits is the memory an element occupies: its width, except that a
// padded sub-byte element takes a whole byte.
func (d *DType) StorageBits(padded bool) int {
	if padded && d.SubByte() {
		return 8
	}
	return int(d.DL.Bits)
}

// ItemSize is the element width rounded up to whole bytes, the itemsize NumPy
// and ml_dtypes report (1 for float4 and float6).
func (d *DType) ItemSize() int { return (int(d.DL.Bits) + 7) / 8 }

func mk(name string, code, bits uint8, kind Kind, mini *miniFloat) *DType {
	return &DType{Name: name, DL: DLDataType{Code: code, Bits: bits, Lanes: 1}, Kind: kind, mini: mini}
}

// table is All()'s order; the order is part of the API (Index is stored by
// callers), so new dtypes may only be appended.
var table = func() []*DType {
	t := []*DType{
		mk("bool", CodeBool, 8, KindBool, nil),
		mk("int8", CodeInt, 8, KindInt, nil),
		mk("int16", CodeInt, 16, KindInt, nil),
		mk("int32", CodeInt, 32, KindInt, nil),
		mk("int64", CodeInt, 64, KindInt, nil),
		mk("uint8", CodeUInt, 8, KindUint, nil),
		mk("uint16", CodeUInt, 16, KindUint, nil),
		mk("uint32", CodeUInt, 32, KindUint, nil),
		mk("uint64", CodeUInt, 64, KindUint, nil),
		mk("float16", CodeFloat, 16, KindFloat, float16Format),
		mk("float32", CodeFloat, 32, KindFloat, nil),
		mk("float64", CodeFloat, 64, KindFloat, nil),
		mk("bfloat16", CodeBfloat, 16, KindFloat, nil),
		mk("complex64", CodeComplex, 64, KindComplex, nil),
		mk("complex128", CodeComplex, 128, KindComplex, nil),
		mk("float8_e3m4", CodeFloat8E3M4, 8, KindFloat, float8E3M4),
		mk("float8_e4m3", CodeFloat8E4M3, 8, KindFloat, float8E4M3),
		mk("float8_e4m3b11fnuz", CodeFloat8E4M3B11FNUZ, 8, KindFloat, float8E4M3B11FNUZ),
		mk("float8_e4m3fn", CodeFloat8E4M3FN, 8, KindFloat, float8E4M3FN),
		mk("float8_e4m3fnuz", CodeFloat8E4M3FNUZ, 8, KindFloat, float8E4M3FNUZ),
		mk("float8_e5m2", CodeFloat8E5M2, 8, KindFloat, float8E5M2),
		mk("float8_e5m2fnuz", CodeFloat8E5M2FNUZ, 8, KindFloat, float8E5M2FNUZ),
		mk("float8_e8m0fnu", CodeFloat8E8M0FNU, 8, KindFloat, float8E8M0FNU),
		mk("float6_e2m3fn", CodeFloat6E2M3FN, 6, KindFloat, float6E2M3FN),
		mk("float6_e3m2fn", CodeFloat6E3M2FN, 6, KindFloat, float6E3M2FN),
		mk("float4_e2m1fn", CodeFloat4E2M1FN, 4, KindFloat, float4E2M1FN),
	}
	for i, d := range t {
		d.Index = i
	}
	return t
}()

var (
	byName = func() map[string]*DType {
		m := make(map[string]*DType, len(table))
		for _, d := range table {
			m[d.Name] = d
		}
		return m
	}()
	// byCode is indexed by code, then by bits; the table is tiny, and a dense
	// array keeps ByDL free of hashing on the tensor-import path.
	byCode = func() (a [codeLimit][129]*DType) {
		for _, d := range table {
			a[d.DL.Code][d.DL.Bits] = d
		}
		return a
	}()
)

// All returns every supported dtype in a fixed order; d.Index is d's position.
// The slice is shared: callers must not modify it.
func All() []*DType { return table }

// ByName finds a dtype by its NumPy / ml_dtypes name ("float32", "bfloat16",
// "float8_e4m3fn", ...).
func ByName(name string) (*DType, bool) {
	d, ok := byName[name]
	return d, ok
}

// ByDL finds the dtype whose code and bits match dt exactly; vector types
// (lanes != 1) are not supported.
func ByDL(dt DLDataType) (*DType, bool) {
	if dt.Lanes != 1 || int(dt.Code) >= codeLimit || int(dt.Bits) > 128 {
		return nil, false
	}
	d := byCode[dt.Code][dt.Bits]
	return d, d != nil
}

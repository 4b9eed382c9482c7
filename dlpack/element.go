package dlpack

// Element is every Go type that can stand for one DLPack element: the Go
// numeric types and bool, and a named type for each narrow float format.
// DTypeOf maps each to its dtype. The narrow types hold the format's bits
// (a float6 or float4 in the low bits of its byte); their Float32/Float64
// methods and FromFloat32/FromFloat64 convert with the dtype table's codecs.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | complex64 | complex128 | NarrowFloat
}

// NarrowFloat is the set of the named narrow float types.
type NarrowFloat interface {
	BFloat16 | Float16 | Float8E3M4 | Float8E4M3 | Float8E4M3B11FNUZ | Float8E4M3FN |
		Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0FNU |
		Float6E2M3FN | Float6E3M2FN | Float4E2M1FN
}

// The narrow float types: the bits of one element in the named format.
type (
	BFloat16          uint16
	Float16           uint16
	Float8E3M4        uint8
	Float8E4M3        uint8
	Float8E4M3B11FNUZ uint8
	Float8E4M3FN      uint8
	Float8E4M3FNUZ    uint8
	Float8E5M2        uint8
	Float8E5M2FNUZ    uint8
	Float8E8M0FNU     uint8
	Float6E2M3FN      uint8
	Float6E3M2FN      uint8
	Float4E2M1FN      uint8
)

// DTypeOf returns the dtype whose elements T holds.
func DTypeOf[T Element]() *DType {
	var zero T
	// float32 and float64 first, a compare each: dtypeOfValue's switch searches
	// 26 types (~9 ns a call, against ~2-3), and a per-call path such as a
	// function's float result asks several times (docs/performance.md, Classes).
	switch any(zero).(type) {
	case float32:
		return table[10]
	case float64:
		return table[11]
	}
	return dtypeOfValue(any(zero))
}

func dtypeOfValue(v any) *DType {
	switch v.(type) {
	case bool:
		return table[0]
	case int8:
		return table[1]
	case int16:
		return table[2]
	case int32:
		return table[3]
	case int64:
		return table[4]
	case uint8:
		return table[5]
	case uint16:
		return table[6]
	case uint32:
		return table[7]
	case uint64:
		return table[8]
	case Float16:
		return table[9]
	case float32:
		return table[10]
	case float64:
		return table[11]
	case BFloat16:
		return table[12]
	case complex64:
		return table[13]
	case complex128:
		return table[14]
	case Float8E3M4:
		return table[15]
	case Float8E4M3:
		return table[16]
	case Float8E4M3B11FNUZ:
		return table[17]
	case Float8E4M3FN:
		return table[18]
	case Float8E4M3FNUZ:
		return table[19]
	case Float8E5M2:
		return table[20]
	case Float8E5M2FNUZ:
		return table[21]
	case Float8E8M0FNU:
		return table[22]
	case Float6E2M3FN:
		return table[23]
	case Float6E3M2FN:
		return table[24]
	case Float4E2M1FN:
		return table[25]
	}
	panic("dlpack: not an Element type") // unreachable: Element lists exactly the cases above
}

// FromFloat64 rounds v to the narrow format F (to nearest even, with F's rules
// for NaN, infinity and overflow, as ml_dtypes converts).
func FromFloat64[F NarrowFloat](v float64) F {
	return F(DTypeOf[F]().EncodeFloat(v))
}

// FromFloat32 rounds v to the narrow format F in one rounding from float32.
func FromFloat32[F NarrowFloat](v float32) F {
	return F(DTypeOf[F]().encodeFromFloat32(v))
}

func narrowValue[F NarrowFloat](x F) float64 { return DTypeOf[F]().DecodeFloat(uint64(x)) }

// Float64 returns x's value exactly; Float32 returns it rounded to float32
// (exact for every narrow format: each fits in a float32).
func (x BFloat16) Float64() float64          { return narrowValue(x) }
func (x Float16) Float64() float64           { return narrowValue(x) }
func (x Float8E3M4) Float64() float64        { return narrowValue(x) }
func (x Float8E4M3) Float64() float64        { return narrowValue(x) }
func (x Float8E4M3B11FNUZ) Float64() float64 { return narrowValue(x) }
func (x Float8E4M3FN) Float64() float64      { return narrowValue(x) }
func (x Float8E4M3FNUZ) Float64() float64    { return narrowValue(x) }
func (x Float8E5M2) Float64() float64        { return narrowValue(x) }
func (x Float8E5M2FNUZ) Float64() float64    { return narrowValue(x) }
func (x Float8E8M0FNU) Float64() float64     { return narrowValue(x) }
func (x Float6E2M3FN) Float64() float64      { return narrowValue(x) }
func (x Float6E3M2FN) Float64() float64      { return narrowValue(x) }
func (x Float4E2M1FN) Float64() float64      { return narrowValue(x) }

func (x BFloat16) Float32() float32          { return float32(narrowValue(x)) }
func (x Float16) Float32() float32           { return float32(narrowValue(x)) }
func (x Float8E3M4) Float32() float32        { return float32(narrowValue(x)) }
func (x Float8E4M3) Float32() float32        { return float32(narrowValue(x)) }
func (x Float8E4M3B11FNUZ) Float32() float32 { return float32(narrowValue(x)) }
func (x Float8E4M3FN) Float32() float32      { return float32(narrowValue(x)) }
func (x Float8E4M3FNUZ) Float32() float32    { return float32(narrowValue(x)) }
func (x Float8E5M2) Float32() float32        { return float32(narrowValue(x)) }
func (x Float8E5M2FNUZ) Float32() float32    { return float32(narrowValue(x)) }
func (x Float8E8M0FNU) Float32() float32     { return float32(narrowValue(x)) }
func (x Float6E2M3FN) Float32() float32      { return float32(narrowValue(x)) }
func (x Float6E3M2FN) Float32() float32      { return float32(narrowValue(x)) }
func (x Float4E2M1FN) Float32() float32      { return float32(narrowValue(x)) }

// LoadBits returns the encoding of element number elem of buf (units as in
// Get) in the low bits; StoreBits writes one. They panic, like a slice index,
// when the element lies outside buf.
func (d *DType) LoadBits(buf []byte, elem int64, padded bool) uint64 {
	return d.load(buf, elem, padded)
}

// StoreBits writes the low bits of raw as element number elem of buf; a
// packed sub-byte write touches only the element's own bits.
func (d *DType) StoreBits(buf []byte, elem int64, padded bool, raw uint64) {
	d.store(buf, elem, padded, raw)
}

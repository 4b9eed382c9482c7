package dlpack

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
)

// Scalar is one element value as Python sees it. Kind says which field holds
// the value: B for KindBool, I for KindInt, U for KindUint, F for KindFloat
// and C for KindComplex; the other fields are ignored.
type Scalar struct {
	Kind Kind
	B    bool
	I    int64
	U    uint64
	F    float64
	C    complex128
}

// RangeError reports a value that the target dtype cannot hold; the Python
// layer raises it as OverflowError, or as ValueError when NotANumber is set
// (NaN has no integer value at all, which Python reports as ValueError).
type RangeError struct {
	Msg        string
	NotANumber bool
}

func (e *RangeError) Error() string { return e.Msg }

// TypeError reports a value of a kind the target dtype does not accept.
type TypeError struct{ Msg string }

func (e *TypeError) Error() string { return e.Msg }

var le = binary.LittleEndian

// Get reads element number elem of buf, counting in units of
// StorageBits(padded) from the start of buf, and returns it with d's Kind.
// It panics, like a slice index, when the element lies outside buf.
func (d *DType) Get(buf []byte, elem int64, padded bool) Scalar {
	if d.Kind == KindComplex {
		if d.DL.Bits == 64 {
			p := buf[elem*8 : elem*8+8 : len(buf)]
			re := math.Float32frombits(le.Uint32(p))
			im := math.Float32frombits(le.Uint32(p[4:]))
			return Scalar{Kind: KindComplex, C: complex(float64(re), float64(im))}
		}
		p := buf[elem*16 : elem*16+16 : len(buf)]
		re := math.Float64frombits(le.Uint64(p))
		im := math.Float64frombits(le.Uint64(p[8:]))
		return Scalar{Kind: KindComplex, C: complex(re, im)}
	}
	raw := d.load(buf, elem, padded)
	switch d.Kind {
	case KindBool:
		return Scalar{Kind: KindBool, B: raw != 0}
	case KindInt:
		sh := 64 - uint(d.DL.Bits)
		return Scalar{Kind: KindInt, I: int64(raw<<sh) >> sh}
	case KindUint:
		return Scalar{Kind: KindUint, U: raw}
	}
	return Scalar{Kind: KindFloat, F: d.DecodeFloat(raw)}
}

// Set converts s to d and writes it as element number elem of buf (units as
// in Get). Conversions follow NumPy's assignment of a Python scalar:
// integers must fit, floats truncate toward zero into integer dtypes,
// anything nonzero is true, and complex values go only into complex dtypes.
// On error buf is left unchanged. A packed sub-byte write touches only the
// element's own bits; a padded one writes the whole byte, padding as zeros.
func (d *DType) Set(buf []byte, elem int64, padded bool, s Scalar) error {
	var raw uint64
	switch d.Kind {
	case KindBool:
		t, err := truth(s)
		if err != nil {
			return err
		}
		if t {
			raw = 1
		}
	case KindInt, KindUint:
		v, err := d.integerBits(s)
		if err != nil {
			return err
		}
		raw = v
	case KindFloat:
		v, err := d.floatBits(s)
		if err != nil {
			return err
		}
		raw = v
	case KindComplex:
		return d.setComplex(buf, elem, s)
	}
	d.store(buf, elem, padded, raw)
	return nil
}

// load returns the element's encoding in the low bits.
func (d *DType) load(buf []byte, elem int64, padded bool) uint64 {
	switch d.DL.Bits {
	case 8:
		return uint64(buf[elem])
	case 16:
		return uint64(le.Uint16(buf[elem*2:]))
	case 32:
		return uint64(le.Uint32(buf[elem*4:]))
	case 64:
		return le.Uint64(buf[elem*8:])
	}
	width := uint(d.DL.Bits)
	mask := uint64(1)<<width - 1
	if padded {
		return uint64(buf[elem]) & mask
	}
	bit := elem * int64(width)
	i, sh := bit>>3, uint(bit&7)
	v := uint64(buf[i]) >> sh
	if sh+width > 8 { // an fp6 element may straddle two bytes
		v |= uint64(buf[i+1]) << (8 - sh)
	}
	return v & mask
}

// store writes the low bits of raw as the element's encoding.
func (d *DType) store(buf []byte, elem int64, padded bool, raw uint64) {
	switch d.DL.Bits {
	case 8:
		buf[elem] = byte(raw)
		return
	case 16:
		le.PutUint16(buf[elem*2:], uint16(raw))
		return
	case 32:
		le.PutUint32(buf[elem*4:], uint32(raw))
		return
	case 64:
		le.PutUint64(buf[elem*8:], raw)
		return
	}
	width := uint(d.DL.Bits)
	mask := uint64(1)<<width - 1
	raw &= mask
	if padded {
		buf[elem] = byte(raw)
		return
	}
	bit := elem * int64(width)
	i, sh := bit>>3, uint(bit&7)
	if sh+width > 8 {
		_ = buf[i+1] // fail before touching the first byte
		hi := 8 - sh
		buf[i+1] = buf[i+1]&^byte(mask>>hi) | byte(raw>>hi)
	}
	buf[i] = buf[i]&^byte(mask<<sh) | byte(raw<<sh)
}

func truth(s Scalar) (bool, error) {
	switch s.Kind {
	case KindBool:
		return s.B, nil
	case KindInt:
		return s.I != 0, nil
	case KindUint:
		return s.U != 0, nil
	case KindFloat:
		return s.F != 0, nil // NaN is true, as in Python
	case KindComplex:
		return s.C != 0, nil
	}
	return false, badKind(s)
}

func badKind(s Scalar) error {
	return &TypeError{Msg: "unsupported scalar kind " + s.Kind.String()}
}

// integerBits range-checks s against an int or uint dtype and returns its
// two's-complement encoding.
func (d *DType) integerBits(s Scalar) (uint64, error) {
	var neg bool
	var mag uint64 // the value is -mag when neg, else mag
	switch s.Kind {
	case KindBool:
		if s.B {
			mag = 1
		}
	case KindInt:
		neg = s.I < 0
		mag = uint64(s.I)
		if neg {
			mag = -mag
		}
	case KindUint:
		mag = s.U
	case KindFloat:
		f := s.F
		if f != f {
			return 0, &RangeError{Msg: "cannot convert float NaN to integer", NotANumber: true}
		}
		if math.IsInf(f, 0) {
			return 0, &RangeError{Msg: "cannot convert float infinity to integer"}
		}
		t := math.Trunc(f)
		if math.Abs(t) >= 0x1p64 {
			return 0, d.outOfBounds(new(big.Float).SetFloat64(t).Text('f', 0))
		}
		neg = t < 0
		mag = uint64(math.Abs(t))
	case KindComplex:
		return 0, d.complexInto()
	default:
		return 0, badKind(s)
	}
	width := uint(d.DL.Bits)
	var ok bool
	if d.Kind == KindInt {
		limit := uint64(1) << (width - 1) // |min|; max is limit-1
		ok = mag < limit || (neg && mag == limit)
	} else {
		ok = (!neg || mag == 0) && (width == 64 || mag < uint64(1)<<width)
	}
	if !ok {
		return 0, d.outOfBounds(integerText(s, neg, mag))
	}
	if neg {
		return -mag, nil
	}
	return mag, nil
}

// integerText spells the offending value the way Python would print the
// integer NumPy tried to store.
func integerText(s Scalar, neg bool, mag uint64) string {
	switch s.Kind {
	case KindInt:
		return strconv.FormatInt(s.I, 10)
	case KindUint:
		return strconv.FormatUint(s.U, 10)
	}
	if neg {
		return "-" + strconv.FormatUint(mag, 10)
	}
	return strconv.FormatUint(mag, 10)
}

func (d *DType) outOfBounds(value string) error {
	return &RangeError{Msg: "Python integer " + value + " out of bounds for " + d.Name}
}

func (d *DType) complexInto() error {
	return &TypeError{Msg: "cannot store complex value in " + d.Name + " array"}
}

// floatBits converts s to the encoding of a floating dtype. Integers are
// rounded once, straight to float32 for the formats that NumPy and ml_dtypes
// reach through float32, so a large int64 is not rounded twice.
func (d *DType) floatBits(s Scalar) (uint64, error) {
	switch s.Kind {
	case KindBool:
		if s.B {
			return d.EncodeFloat(1), nil
		}
		return d.EncodeFloat(0), nil
	case KindInt:
		if d.roundsViaFloat32() {
			return d.encodeFromFloat32(float32(s.I)), nil
		}
		return d.EncodeFloat(float64(s.I)), nil
	case KindUint:
		if d.roundsViaFloat32() {
			return d.encodeFromFloat32(float32(s.U)), nil
		}
		return d.EncodeFloat(float64(s.U)), nil
	case KindFloat:
		return d.EncodeFloat(s.F), nil
	case KindComplex:
		return 0, d.complexInto()
	}
	return 0, badKind(s)
}

func (d *DType) setComplex(buf []byte, elem int64, s Scalar) error {
	var re, im float64
	var re32 float32 // set for integers, rounded once to float32
	direct32 := false
	switch s.Kind {
	case KindBool:
		if s.B {
			re = 1
		}
	case KindInt:
		re, re32, direct32 = float64(s.I), float32(s.I), true
	case KindUint:
		re, re32, direct32 = float64(s.U), float32(s.U), true
	case KindFloat:
		re = s.F
	case KindComplex:
		re, im = real(s.C), imag(s.C)
	default:
		return badKind(s)
	}
	if d.DL.Bits == 64 {
		if !direct32 {
			re32 = float32(re)
		}
		p := buf[elem*8 : elem*8+8 : len(buf)]
		le.PutUint32(p, math.Float32bits(re32))
		le.PutUint32(p[4:], math.Float32bits(float32(im)))
		return nil
	}
	p := buf[elem*16 : elem*16+16 : len(buf)]
	le.PutUint64(p, math.Float64bits(re))
	le.PutUint64(p[8:], math.Float64bits(im))
	return nil
}

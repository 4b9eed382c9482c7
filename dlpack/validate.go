package dlpack

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// Foreign is what the binding layer learned from a capsule before trusting it.
type Foreign struct {
	Tensor    *DLTensor     // points into the producer's (C) memory
	Versioned bool          // came from a DLManagedTensorVersioned ("dltensor_versioned")
	Version   DLPackVersion // only for Versioned
	Flags     uint64        // only for Versioned (0 for legacy)
}

// ForeignOf reads the managed tensor m (a DLManagedTensorVersioned* if versioned,
// else a legacy DLManagedTensor*, in a producer's C memory) as Validate takes it.
func ForeignOf(m unsafe.Pointer, versioned bool) Foreign {
	if versioned {
		mv := (*DLManagedTensorVersioned)(m)
		return Foreign{Tensor: &mv.DLTensor, Versioned: true, Version: mv.Version, Flags: mv.Flags}
	}
	return Foreign{Tensor: &((*DLManagedTensor)(m)).DLTensor}
}

// Validated is what Validate returns: the trusted description of a foreign
// tensor that passed its rules.
//
// Shape and Strides are Go copies, never aliases of producer memory, and both
// have exactly ndim entries. Strides are in elements; when a legacy (or pre-1.2
// versioned) producer sent NULL strides they are the C-contiguous strides.
//
// Data is the address of element 0 (DLTensor.Data + ByteOffset). It is nil only
// when the producer's data pointer was NULL, which Validate allows for tensors
// without elements alone.
//
// ReadOnly, IsCopied and Padded come from the versioned flags (all false for a
// legacy tensor). Padded is reported only for sub-byte dtypes: the flag has no
// meaning for any other dtype, so a producer that sets it there is not wrong,
// and it is ignored.
type Validated struct {
	DType       *DType
	Shape       []int64
	Strides     []int64
	Data        unsafe.Pointer
	NumElements int64
	ReadOnly    bool
	IsCopied    bool
	Padded      bool
	Device      DLDevice
}

// ValidationError names the DLTensor (or DLManagedTensorVersioned) field that
// made a foreign tensor unusable. The binding layer raises it as BufferError.
type ValidationError struct {
	Field string // the C field name: "version", "flags", "device", "dtype", "ndim", ...
	Msg   string
}

func (e *ValidationError) Error() string {
	return "invalid DLPack tensor: field " + e.Field + ": " + e.Msg
}

func reject(field, format string, args ...any) error {
	return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks everything a producer told us about a tensor before any of it
// is trusted, and returns its description built from copies of the producer's
// metadata.
//
// It never dereferences the data pointer. It reads Shape and Strides only after
// ndim has been found in range, and reads nothing of the tensor at all when a
// versioned tensor has a major version above ours: such a struct may have a
// different layout, and the caller may only call its deleter.
//
// The rules, by number (the tests, here and in Python, are named after them; the
// ValidationError's Field names the field at fault, shown in brackets):
//
//  1. [version] A versioned tensor has major version 1 (0 does not exist, a
//     newer one is not read at all); any minor version, since minor versions
//     only add enum values, which the rules below check one by one.
//     [flags] It has no unknown flag bits. A legacy tensor has neither field.
//     [dl_tensor] The DLTensor is not NULL.
//  2. [device] The device type is one of v1.3 and its memory is addressable by
//     the CPU (kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged); any device ID.
//  3. [dtype] The dtype is in the dtype table (so lanes is 1).
//  4. [ndim] ndim is 0..MaxNDim; [shape] shape is not NULL when ndim > 0.
//  5. [shape] No extent is negative and the element count fits int64. Then the
//     bytes the elements reach, relative to element 0, fit int64 (blamed on the
//     extent field, see below).
//  6. [data] data is NULL only for a tensor without elements.
//  7. [strides] strides is NULL only when ndim is 0 or when the producer
//     predates DLPack 1.2, for which NULL means C-contiguous; [shape] those
//     derived strides fit int64.
//  8. [strides] A packed sub-byte tensor (fewer than 8 bits per element and no
//     IS_SUBBYTE_TYPE_PADDED flag) is C-contiguous: its elements share bytes.
//  9. [byte_offset] data + byte_offset does not wrap around the address space;
//     then every element's address lies within it (blamed on the extent field).
//
// The extent field is strides when the producer gave them, shape when they were
// derived from it, and byte_offset for a 0-d tensor (whose single element can
// only leave the address space through it).
//
// The rules are checked in the order 1, 2, 3, 4, 5 (extents), 7, 8, 5 (bytes),
// 6, 9: each check relies on the ones before it, and the first broken rule is
// the one reported.
func Validate(f Foreign) (*Validated, error) {
	v := new(Validated)
	if err := ValidateInto(v, f, nil, nil); err != nil {
		return nil, err
	}
	return v, nil
}

// ValidateInto is Validate for a caller that provides the memory, so that a
// tensor of a few dimensions is validated without allocating. On success it
// fills *v, whose Shape and Strides are shape[:ndim] and strides[:ndim] when
// those have at least ndim entries (new memory otherwise; shape and strides must
// not overlap). On error *v is unchanged, and shape and strides may have been
// written to.
func ValidateInto(v *Validated, f Foreign, shape, strides []int64) error {
	// A legacy DLManagedTensor has no version or flags field; whatever the
	// caller put in f for one is ignored.
	flags := uint64(0)
	if f.Versioned {
		if err := checkVersion(f.Version, f.Flags); err != nil {
			return err
		}
		flags = f.Flags
	}
	t := f.Tensor
	if t == nil {
		return reject("dl_tensor", "no tensor (NULL DLTensor)")
	}
	if !t.Device.Type.HostAccessible() { // rule 2: each of them a device type of v1.3
		return rejectDevice(t.Device)
	}
	el, err := checkDType(t.DType, flags)
	if err != nil {
		return err
	}
	if err := checkNDim(t); err != nil {
		return err
	}
	shape, strides = dimsBuffers(int(t.NDim), shape, strides)
	field := extentField(t)
	n, lo, hi, ok := el.copyCommon(shape, strides, t)
	if !ok {
		if n, lo, hi, err = el.copyChecked(shape, strides, f, field); err != nil {
			return err
		}
	}
	data, err := elementZero(t, n, lo, hi, field)
	if err != nil {
		return err
	}
	// Field by field: a Validated literal is built on the stack and then copied in
	// 16-byte moves, each of which waits on the two 8-byte stores it reads
	// (store forwarding fails): that copy was a quarter of the validation.
	v.DType, v.Shape, v.Strides, v.Data, v.NumElements = el.dtype, shape, strides, data, n
	v.ReadOnly, v.IsCopied, v.Padded = flags&FlagReadOnly != 0, flags&FlagIsCopied != 0, el.padded
	v.Device = t.Device
	return nil
}

// checkVersion applies rule 1 to a versioned tensor's version and flags.
//
// The checks of rules 1, 2 and 4 accept in a few comparisons, small enough to be
// inlined into ValidateInto (a call each was ~5% of its time), and leave the
// words of a rejection to a function of their own.
func checkVersion(v DLPackVersion, flags uint64) error {
	if v.Major-1 >= MajorVersion || flags&^KnownFlags != 0 { // 0 wraps around
		return versionError(v, flags)
	}
	return nil
}

// versionError words checkVersion's rejection.
func versionError(v DLPackVersion, flags uint64) error {
	if v.Major > MajorVersion {
		return reject("version", "major version %d.%d is newer than the supported %d.%d; the tensor cannot be read",
			v.Major, v.Minor, MajorVersion, MinorVersion)
	}
	if v.Major == 0 {
		return reject("version", "version %d.%d in a DLManagedTensorVersioned; versioned tensors start at 1.0",
			v.Major, v.Minor)
	}
	return reject("flags", "flags has unknown bits %#x", flags&^KnownFlags)
}

// rejectDevice words rule 2's rejection of dev, which is not host-accessible
// (ValidateInto tests that inline, see checkVersion). The device ID is not
// checked: for kDLCPU there is one address space whatever the ID says (producers normally send 0, but
// nothing is gained by insisting). For pinned (kDLCUDAHost, kDLROCMHost) or
// managed (kDLCUDAManaged) memory the ID names the GPU the allocation belongs
// to, while the address itself is valid on the host for any ID. Refusing an ID
// would only turn away tensors we can read.
func rejectDevice(dev DLDevice) error {
	if !dev.Type.known() {
		return reject("device", "unknown device type %d (not a DLPack v%d.%d device)",
			int32(dev.Type), MajorVersion, MinorVersion)
	}
	return reject("device", "device %s (device_type=%d, device_id=%d) is not CPU-accessible; its producer must copy it to CPU memory (DLPack: dl_device=(kDLCPU, 0))",
		dev.Type, int32(dev.Type), dev.ID)
}

// storage is how the elements of an accepted dtype lie in memory.
type storage struct {
	dtype  *DType
	padded bool // a sub-byte dtype flagged IS_SUBBYTE_TYPE_PADDED: a byte each
	bits   int  // bits per element in memory: dtype.StorageBits(padded)
}

// packed reports sub-byte elements that share bytes.
func (s storage) packed() bool { return s.dtype.SubByte() && !s.padded }

// checkDType applies rule 3 and works out the elements' storage from the dtype
// and the flags.
func checkDType(dt DLDataType, flags uint64) (storage, error) {
	dtype, ok := ByDL(dt)
	if !ok {
		if dt.Lanes != 1 {
			return storage{}, reject("dtype", "lanes must be 1, vector dtypes are not supported (code=%d, bits=%d, lanes=%d)",
				dt.Code, dt.Bits, dt.Lanes)
		}
		return storage{}, reject("dtype", "unsupported dtype (code=%d, bits=%d, lanes=%d)", dt.Code, dt.Bits, dt.Lanes)
	}
	// The padded flag only means something for sub-byte dtypes; on any other
	// dtype it is harmless and ignored (Validated.Padded stays false).
	padded := flags&FlagSubbyteTypePadded != 0 && dtype.SubByte()
	s := storage{dtype: dtype, padded: padded, bits: dtype.StorageBits(padded)}
	if s.bits <= 0 || (!s.packed() && s.bits%8 != 0) {
		// Cannot happen with the dtype table as it is; guards byteSpan's arithmetic.
		return storage{}, reject("dtype", "dtype %s has no whole-byte storage size (%d bits)", dtype.Name, s.bits)
	}
	return s, nil
}

// checkNDim applies rule 4. Until it has passed, shape and strides are not read.
func checkNDim(t *DLTensor) error {
	if uint32(t.NDim) > MaxNDim || t.NDim > 0 && t.Shape == nil { // a negative ndim wraps around
		return ndimError(t)
	}
	return nil
}

// ndimError words checkNDim's rejection of t.
func ndimError(t *DLTensor) error {
	if t.NDim < 0 || t.NDim > MaxNDim {
		return reject("ndim", "ndim %d is out of range (0..%d)", t.NDim, MaxNDim)
	}
	return reject("shape", "shape is NULL for a tensor with ndim %d", t.NDim)
}

// dimsBuffers returns ndim-entry slices for the copies of shape and strides: the
// caller's when long enough, else new memory (one allocation for both). A nil
// buffer is replaced even for ndim 0, where make allocates nothing, so that a
// Validated's slices are never nil.
func dimsBuffers(ndim int, shape, strides []int64) ([]int64, []int64) {
	newShape, newStrides := shape == nil || len(shape) < ndim, strides == nil || len(strides) < ndim
	if newShape || newStrides {
		buf := make([]int64, 2*ndim)
		if newShape {
			shape = buf[:ndim]
		}
		if newStrides {
			strides = buf[ndim:]
		}
	}
	return shape[:ndim:ndim], strides[:ndim:ndim]
}

// commonLimit bounds the extents and strides copyCommon takes: below it, no
// product or sum it forms can overflow (see copyCommon).
const commonLimit = 1 << 26

// copyCommon applies rules 5, 7 and 8 in one pass over the producer's arrays for
// the tensors nearly every producer sends, where none of them can fail: strides
// given (or ndim 0), elements that are not packed sub-byte ones, every extent in
// 1..commonLimit-1 and every stride's magnitude below commonLimit, and an element
// count that fits int64. It copies shape and strides as copyShape and
// copyStrides do and returns what they and byteSpan would: the element count and
// the byte span. For any other tensor it reports false, having decided nothing
// (shape and strides may have been written to), and copyChecked, which reads the
// producer's arrays again, applies the rules one by one and words the error: the
// rules and their messages have that one copy.
//
// Within those bounds nothing overflows: each dimension reaches fewer than 2^52
// elements, MaxNDim (64) of them fewer than 2^58, and times an element of at most
// 16 bytes fewer than 2^62.
func (s storage) copyCommon(shape, strides []int64, t *DLTensor) (n, lo, hi int64, ok bool) {
	src, srcStrides := t.ShapeSlice(), t.StridesSlice()
	if s.packed() || len(src) != len(shape) || len(srcStrides) != len(shape) {
		return 0, 0, 0, false
	}
	n = 1
	for i := range shape {
		d, st := src[i], srcStrides[i]
		shape[i], strides[i] = d, st
		if uint64(d-1) >= commonLimit-1 || uint64(st+commonLimit) >= 2*commonLimit {
			return 0, 0, 0, false
		}
		over, prod := bits.Mul64(uint64(n), uint64(d))
		if over != 0 || prod > math.MaxInt64 {
			return 0, 0, 0, false
		}
		n = int64(prod)
		if reach := (d - 1) * st; reach < 0 {
			lo += reach
		} else {
			hi += reach
		}
	}
	itemBytes := int64(s.bits / 8) // whole bytes, at most 16 (checkDType)
	return n, lo * itemBytes, hi*itemBytes + itemBytes - 1, true
}

// copyChecked applies rules 5, 7 and 8 one by one, for the tensors copyCommon
// does not take: it copies the producer's shape and strides (or derives the
// strides) and returns the element count and the byte span, or the first broken
// rule's error.
func (s storage) copyChecked(shape, strides []int64, f Foreign, field string) (n, lo, hi int64, err error) {
	if n, err = copyShape(shape, f.Tensor); err != nil {
		return 0, 0, 0, err
	}
	if err := copyStrides(strides, shape, f); err != nil {
		return 0, 0, 0, err
	}
	if err := s.checkPacked(shape, strides); err != nil {
		return 0, 0, 0, err
	}
	if lo, hi, err = s.byteSpan(shape, strides, n, field); err != nil {
		return 0, 0, 0, err
	}
	return n, lo, hi, nil
}

// copyShape applies rule 5's first half to the producer's shape, copied into
// shape (ndim entries) once: only the copy is looked at again. It returns the
// element count.
func copyShape(shape []int64, t *DLTensor) (int64, error) {
	copy(shape, t.ShapeSlice())
	for i, d := range shape {
		if d < 0 {
			return 0, reject("shape", "shape[%d] is negative (%d)", i, d)
		}
	}
	n, err := NumElements(shape)
	if err != nil {
		return 0, reject("shape", "the number of elements of shape %v overflows int64", shape)
	}
	return n, nil
}

// copyStrides applies rule 7: it copies the producer's strides into strides, or
// derives C-contiguous ones from shape (the checked copy) when a producer
// before 1.2 sent NULL.
func copyStrides(strides, shape []int64, f Foreign) error {
	t := f.Tensor
	switch {
	case t.Strides != nil:
		copy(strides, t.StridesSlice())
	case t.NDim > 0 && f.Versioned && f.Version.Major == 1 && f.Version.Minor >= 2:
		return reject("strides", "strides is NULL for a tensor with ndim %d; DLPack 1.2+ forbids NULL strides (version %d.%d)",
			t.NDim, f.Version.Major, f.Version.Minor)
	case !FillContiguousStrides(strides, shape):
		return reject("shape", "the C-contiguous strides of shape %v overflow int64", shape)
	}
	return nil
}

// checkPacked applies rule 8: packed sub-byte elements share bytes, so they can
// only be laid out one after another; padded ones take a byte each and may be
// strided.
func (s storage) checkPacked(shape, strides []int64) error {
	if s.packed() && !IsCContiguous(shape, strides) {
		return reject("strides", "packed sub-byte dtype %s must be C-contiguous, got strides %v for shape %v (only tensors flagged IS_SUBBYTE_TYPE_PADDED may be strided)",
			s.dtype.Name, strides, shape)
	}
	return nil
}

// extentField is the field blamed when the elements reach too far (rules 5
// and 9): see Validate.
func extentField(t *DLTensor) string {
	switch {
	case t.NDim == 0:
		return "byte_offset"
	case t.Strides == nil:
		return "shape"
	}
	return "strides"
}

// byteSpan applies rule 5's second half: it returns the first and last byte
// the n elements reach relative to element 0 (lo <= 0 <= hi; both 0 when n is
// 0), which must fit int64.
func (s storage) byteSpan(shape, strides []int64, n int64, field string) (lo, hi int64, err error) {
	first, last, err := ElementSpan(shape, strides)
	if err != nil {
		return 0, 0, reject(field, "the element offsets reached by shape %v and strides %v overflow int64", shape, strides)
	}
	if n == 0 {
		return 0, 0, nil
	}
	if s.packed() {
		// Contiguous (rule 8), so first == 0 and last == n-1.
		size, err := ByteSize(n, s.bits)
		if err != nil || size <= 0 {
			return 0, 0, reject(field, "the byte size of %d elements of %s overflows int64", n, s.dtype.Name)
		}
		return 0, size - 1, nil
	}
	itemBytes := int64(s.bits / 8)
	lo, ok1 := mulInt64(first, itemBytes)
	hi, ok2 := mulInt64(last, itemBytes)
	if ok2 {
		hi, ok2 = addInt64(hi, itemBytes-1)
	}
	if !ok1 || !ok2 {
		return 0, 0, reject(field, "the byte offsets reached by shape %v and strides %v (%d-byte elements) overflow int64",
			shape, strides, itemBytes)
	}
	return lo, hi, nil
}

// elementZero applies rules 6 and 9 and returns the address of element 0
// (nil when data is NULL). lo and hi are byteSpan's, field extentField's.
func elementZero(t *DLTensor, n, lo, hi int64, field string) (unsafe.Pointer, error) {
	if t.Data == nil {
		if n > 0 {
			return nil, reject("data", "data is NULL for a tensor with %d elements", n)
		}
		// No element is ever addressed, so byte_offset is irrelevant.
		return nil, nil
	}
	// Any byte_offset is fine as long as no address wraps around.
	const maxAddr = uint64(^uintptr(0))
	base := uint64(uintptr(t.Data))
	if t.ByteOffset > maxAddr-base {
		return nil, reject("byte_offset", "data %#x + byte_offset %d wraps around the address space", base, t.ByteOffset)
	}
	first := base + t.ByteOffset
	if n > 0 {
		if uint64(-lo) > first {
			return nil, reject(field, "elements reached through negative strides lie %d bytes before element 0 at %#x, below address 0",
				-lo, first)
		}
		if uint64(hi) > maxAddr-first {
			return nil, reject(field, "elements reach %d bytes past element 0 at %#x, beyond the end of the address space",
				hi, first)
		}
	}
	return unsafe.Add(t.Data, uintptr(t.ByteOffset)), nil
}

// checkedContiguousStrides is FillContiguousStrides into new memory.
func checkedContiguousStrides(shape []int64) ([]int64, bool) {
	strides := make([]int64, len(shape))
	if !FillContiguousStrides(strides, shape) {
		return nil, false
	}
	return strides, true
}

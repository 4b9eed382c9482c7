package dlpack

import (
	"fmt"
	"math"
	"unsafe"
)

// Foreign is what the binding layer learned from a capsule before trusting it.
type Foreign struct {
	Tensor    *Tensor // points into the producer's (C) memory
	Versioned bool    // came from a DLManagedTensorVersioned ("dltensor_versioned")
	Version   Version // only for Versioned
	Flags     uint64  // only for Versioned (0 for legacy)
}

// View is a validated, trusted description of a foreign tensor.
//
// Shape and Strides are Go copies, never aliases of producer memory, and both
// have exactly ndim entries. Strides are in elements; when a legacy (or pre-1.2
// versioned) producer sent NULL strides they are the C-contiguous strides.
//
// Data is the address of element 0 (Tensor.Data + ByteOffset). It is nil only
// when the producer's data pointer was NULL, which Validate allows for tensors
// without elements alone.
//
// ReadOnly, IsCopied and Padded come from the versioned flags (all false for a
// legacy tensor). Padded is reported only for sub-byte dtypes: the flag has no
// meaning for any other dtype, so a producer that sets it there is not wrong,
// and it is ignored.
type View struct {
	DType       *DType
	Shape       []int64
	Strides     []int64
	Data        unsafe.Pointer
	NumElements int64
	ReadOnly    bool
	IsCopied    bool
	Padded      bool
	Device      Device
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

func reject(field, format string, args ...any) (*View, error) {
	return nil, &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// DeviceTypeName returns the header name of t (for example "kDLCUDA"), or a
// description with its code when t is not a device type of this DLPack version.
func DeviceTypeName(t DeviceType) string {
	for _, d := range DeviceTypeNames {
		if d.Type == t {
			return d.Name
		}
	}
	return fmt.Sprintf("unknown device type %d", int32(t))
}

func knownDeviceType(t DeviceType) bool {
	for _, d := range DeviceTypeNames {
		if d.Type == t {
			return true
		}
	}
	return false
}

// Validate checks everything a producer told us about a tensor before any of it
// is trusted, and returns a View built from copies of the producer's metadata.
//
// It never dereferences the data pointer. It reads Shape and Strides only after
// ndim has been found in range, and reads nothing of the tensor at all when a
// versioned tensor has a major version above ours: such a struct may have a
// different layout, and the caller may only call its deleter.
func Validate(f Foreign) (*View, error) {
	// Rule 1: version and flags. Nothing past the version may be read if the
	// major version is one we do not know.
	flags := uint64(0)
	if f.Versioned {
		if f.Version.Major > MajorVersion {
			return reject("version", "major version %d.%d is newer than the supported %d.%d; the tensor cannot be read",
				f.Version.Major, f.Version.Minor, MajorVersion, MinorVersion)
		}
		if f.Version.Major == 0 {
			return reject("version", "version %d.%d in a DLManagedTensorVersioned; versioned tensors start at 1.0",
				f.Version.Major, f.Version.Minor)
		}
		// A newer minor version only adds enum values (device types, dtype
		// codes, flag bits). Those are rejected below one by one, so an
		// unknown minor version alone is no reason to refuse the tensor.
		if unknown := f.Flags &^ KnownFlags; unknown != 0 {
			return reject("flags", "flags has unknown bits %#x", unknown)
		}
		flags = f.Flags
	}
	// A legacy DLManagedTensor has no flags field; whatever the caller put in
	// f.Flags for one is ignored.
	t := f.Tensor
	if t == nil {
		return reject("dl_tensor", "no tensor (NULL DLTensor)")
	}

	// Rule 2: the device must be one whose memory the CPU can address directly.
	// The device ID is not checked for these. For kDLCPU there is one address
	// space whatever the ID says (producers normally send 0, but nothing is
	// gained by insisting). For pinned (kDLCUDAHost, kDLROCMHost) or managed
	// (kDLCUDAManaged) memory the ID names the GPU the allocation belongs to,
	// while the address itself is valid on the host for any ID. Refusing an
	// ID would only turn away tensors we can read.
	dev := t.Device
	if !knownDeviceType(dev.Type) {
		return reject("device", "unknown device type %d (not a DLPack v%d.%d device)",
			int32(dev.Type), MajorVersion, MinorVersion)
	}
	if !dev.Type.HostAccessible() {
		return reject("device", "device %s (device_type=%d, device_id=%d) is not CPU-accessible; copy the tensor to the CPU first",
			DeviceTypeName(dev.Type), int32(dev.Type), dev.ID)
	}

	// Rule 3: dtype.
	dt := t.DType
	dtype, ok := ByDL(dt)
	if !ok {
		if dt.Lanes != 1 {
			return reject("dtype", "lanes must be 1, vector dtypes are not supported (code=%d, bits=%d, lanes=%d)",
				dt.Code, dt.Bits, dt.Lanes)
		}
		return reject("dtype", "unsupported dtype (code=%d, bits=%d, lanes=%d)", dt.Code, dt.Bits, dt.Lanes)
	}
	// The padded flag only means something for sub-byte dtypes; on any other
	// dtype it is harmless and ignored (View.Padded stays false).
	padded := flags&FlagSubbyteTypePadded != 0 && dtype.SubByte()
	itemBits := dtype.StorageBits(padded)
	packedSubByte := dtype.SubByte() && !padded
	if itemBits <= 0 || (!packedSubByte && itemBits%8 != 0) {
		// Cannot happen with the dtype table as it is; guards the arithmetic below.
		return reject("dtype", "dtype %s has no whole-byte storage size (%d bits)", dtype.Name, itemBits)
	}

	// Rule 4: ndim.
	ndim := t.NDim
	if ndim < 0 || ndim > MaxNDim {
		return reject("ndim", "ndim %d is out of range (0..%d)", ndim, MaxNDim)
	}
	if ndim > 0 && t.Shape == nil {
		return reject("shape", "shape is NULL for a tensor with ndim %d", ndim)
	}

	// Rule 5: shape. From here on ndim is trusted, so the arrays may be read;
	// they are copied once and only the copies are looked at again.
	shape := make([]int64, ndim)
	copy(shape, t.ShapeSlice())
	for i, d := range shape {
		if d < 0 {
			return reject("shape", "shape[%d] is negative (%d)", i, d)
		}
	}
	n, err := NumElements(shape)
	if err != nil {
		return reject("shape", "the number of elements of shape %v overflows int64", shape)
	}

	// Rule 7: strides.
	var strides []int64
	switch {
	case t.Strides != nil:
		strides = make([]int64, ndim)
		copy(strides, t.StridesSlice())
	case ndim > 0 && f.Versioned && f.Version.Major == 1 && f.Version.Minor >= 2:
		return reject("strides", "strides is NULL for a tensor with ndim %d; DLPack 1.2+ forbids NULL strides (version %d.%d)",
			ndim, f.Version.Major, f.Version.Minor)
	default:
		// Before 1.2, NULL strides meant C-contiguous.
		if strides, ok = checkedContiguousStrides(shape); !ok {
			return reject("shape", "the C-contiguous strides of shape %v overflow int64", shape)
		}
	}

	// Rule 8: packed sub-byte elements share bytes, so they can only be laid
	// out one after another; padded ones take a byte each and may be strided.
	if packedSubByte && !IsCContiguous(shape, strides) {
		return reject("strides", "packed sub-byte dtype %s must be C-contiguous, got strides %v for shape %v (only tensors flagged IS_SUBBYTE_TYPE_PADDED may be strided)",
			dtype.Name, strides, shape)
	}

	// Rules 5, 6 and 9: the bytes the elements reach, relative to element 0,
	// must be representable, and so must their addresses.
	// An extent problem is blamed on strides when the producer gave them, on
	// shape when they were derived from it, and on byte_offset for a 0-d tensor
	// (whose single element can only overflow the address space through it).
	spanField := "strides"
	switch {
	case ndim == 0:
		spanField = "byte_offset"
	case t.Strides == nil:
		spanField = "shape"
	}
	lo, hi, err := ElementSpan(shape, strides)
	if err != nil {
		return reject(spanField, "the element offsets reached by shape %v and strides %v overflow int64", shape, strides)
	}
	var loByte, hiByte int64 // first and last byte reached, relative to element 0
	if n > 0 {
		if packedSubByte {
			// Contiguous, so lo == 0 and hi == n-1.
			size, err := ByteSize(n, itemBits)
			if err != nil || size <= 0 {
				return reject(spanField, "the byte size of %d elements of %s overflows int64", n, dtype.Name)
			}
			loByte, hiByte = 0, size-1
		} else {
			itemBytes := int64(itemBits / 8)
			firstB, ok1 := mulInt64(lo, itemBytes)
			lastB, ok2 := mulInt64(hi, itemBytes)
			if ok2 {
				lastB, ok2 = addInt64(lastB, itemBytes-1)
			}
			if !ok1 || !ok2 {
				return reject(spanField, "the byte offsets reached by shape %v and strides %v (%d-byte elements) overflow int64",
					shape, strides, itemBytes)
			}
			loByte, hiByte = firstB, lastB
		}
	}

	// Rule 6: data.
	view := &View{
		DType:       dtype,
		Shape:       shape,
		Strides:     strides,
		NumElements: n,
		ReadOnly:    flags&FlagReadOnly != 0,
		IsCopied:    flags&FlagIsCopied != 0,
		Padded:      padded,
		Device:      dev,
	}
	if t.Data == nil {
		if n > 0 {
			return reject("data", "data is NULL for a tensor with %d elements", n)
		}
		// No element is ever addressed, so byte_offset is irrelevant.
		return view, nil
	}

	// Rule 9: any byte_offset is fine as long as no address wraps around.
	const maxAddr = uint64(^uintptr(0))
	base := uint64(uintptr(t.Data))
	if t.ByteOffset > maxAddr-base {
		return reject("byte_offset", "data %#x + byte_offset %d wraps around the address space", base, t.ByteOffset)
	}
	first := base + t.ByteOffset
	if n > 0 {
		// loByte <= 0 <= hiByte.
		if uint64(-loByte) > first {
			return reject(spanField, "elements reached through negative strides lie %d bytes before element 0 at %#x, below address 0",
				-loByte, first)
		}
		if uint64(hiByte) > maxAddr-first {
			return reject(spanField, "elements reach %d bytes past element 0 at %#x, beyond the end of the address space",
				hiByte, first)
		}
	}
	view.Data = unsafe.Add(t.Data, uintptr(t.ByteOffset))
	return view, nil
}

// checkedContiguousStrides is ContiguousStrides with overflow detection. The
// strides of a shape whose element count fits int64 always fit too; this only
// fails for an empty tensor whose other extents multiply past int64.
func checkedContiguousStrides(shape []int64) ([]int64, bool) {
	strides := make([]int64, len(shape))
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		if shape[i] > 1 && i > 0 {
			if shape[i] > math.MaxInt64/s {
				return nil, false
			}
			s *= shape[i]
		}
	}
	return strides, true
}

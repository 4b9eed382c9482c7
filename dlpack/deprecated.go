package dlpack

// The names the ABI mirrors had before they took the header's, and Validated's
// before View came to mean a typed view of a tensor's elements only (tensor.View,
// vec.View): each stays one release, an alias of the same type
// (deprecated_test.go).

// Version is DLPackVersion's former name.
//
// Deprecated: use DLPackVersion, the header's name.
type Version = DLPackVersion

// DeviceType is DLDeviceType's former name.
//
// Deprecated: use DLDeviceType, the header's name.
type DeviceType = DLDeviceType

// Device is DLDevice's former name.
//
// Deprecated: use DLDevice, the header's name.
type Device = DLDevice

// DataType is DLDataType's former name.
//
// Deprecated: use DLDataType, the header's name.
type DataType = DLDataType

// Tensor is DLTensor's former name.
//
// Deprecated: use DLTensor, the header's name.
type Tensor = DLTensor

// ManagedTensor is DLManagedTensor's former name.
//
// Deprecated: use DLManagedTensor, the header's name.
type ManagedTensor = DLManagedTensor

// ManagedTensorVersioned is DLManagedTensorVersioned's former name.
//
// Deprecated: use DLManagedTensorVersioned, the header's name.
type ManagedTensorVersioned = DLManagedTensorVersioned

// View is Validated's former name.
//
// Deprecated: use Validated.
type View = Validated

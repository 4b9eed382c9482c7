package dlpack_test

// The deprecated names of the ABI mirrors and of Validated (deprecated.go)
// still compile, as a user's code wrote them, and name the same types.

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

func TestDeprecatedNames(t *testing.T) {
	for _, c := range []struct{ old, new reflect.Type }{
		{reflect.TypeFor[dlpack.Version](), reflect.TypeFor[dlpack.DLPackVersion]()},
		{reflect.TypeFor[dlpack.DeviceType](), reflect.TypeFor[dlpack.DLDeviceType]()},
		{reflect.TypeFor[dlpack.Device](), reflect.TypeFor[dlpack.DLDevice]()},
		{reflect.TypeFor[dlpack.DataType](), reflect.TypeFor[dlpack.DLDataType]()},
		{reflect.TypeFor[dlpack.Tensor](), reflect.TypeFor[dlpack.DLTensor]()},
		{reflect.TypeFor[dlpack.ManagedTensor](), reflect.TypeFor[dlpack.DLManagedTensor]()},
		{reflect.TypeFor[dlpack.ManagedTensorVersioned](), reflect.TypeFor[dlpack.DLManagedTensorVersioned]()},
		{reflect.TypeFor[dlpack.View](), reflect.TypeFor[dlpack.Validated]()},
	} {
		if c.old != c.new {
			t.Errorf("%v is not %v", c.old, c.new)
		}
	}

	// A versioned tensor built with the old names validates as one built with the new.
	shape, strides := []int64{2, 3}, []int64{3, 1}
	data := make([]float32, 6)
	var m dlpack.ManagedTensorVersioned
	m.Version = dlpack.Version{Major: dlpack.MajorVersion, Minor: dlpack.MinorVersion}
	m.DLTensor = dlpack.Tensor{
		Data: unsafe.Pointer(&data[0]), Device: dlpack.Device{Type: dlpack.DeviceType(1)}, NDim: 2,
		DType: dlpack.DataType{Code: dlpack.CodeFloat, Bits: 32, Lanes: 1}, Shape: &shape[0], Strides: &strides[0],
	}
	v, err := dlpack.Validate(dlpack.ForeignOf(unsafe.Pointer(&m), true))
	if err != nil {
		t.Fatal(err)
	}
	if v.Device.Type != dlpack.CPU || v.Device.Type.String() != "kDLCPU" || v.DType.Name != "float32" || v.NumElements != 6 {
		t.Errorf("validated %+v", v)
	}
	var legacy dlpack.ManagedTensor
	legacy.DLTensor = m.DLTensor
	var view dlpack.View // ValidateInto's destination, as a user declared it
	if err := dlpack.ValidateInto(&view, dlpack.ForeignOf(unsafe.Pointer(&legacy), false), nil, nil); err != nil || view.NumElements != 6 {
		t.Errorf("legacy: %v, %+v", err, view)
	}
}

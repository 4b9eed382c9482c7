/* dlpack_abi.h: the DLPack v1.3 ABI in C, written from the header's stated layout
 * (dlpack/abi.go mirrors it in Go, and its test pins every offset). No Python here:
 * fast_import.h and the cgo test package internal/fastcheck include it alone. */
#ifndef GODLPACK_DLPACK_ABI_H
#define GODLPACK_DLPACK_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- DLPack v1.3 ABI (written from the header's stated layout) ---- */
typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define GD_DLPACK_MAJOR 1
#define GD_DLPACK_MINOR 3
#define GD_KDLCPU 1
#define GD_KDLONEAPI 14
#define GD_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define GD_FLAG_IS_COPIED ((uint64_t)1 << 1)
#define GD_FLAG_SUBBYTE_PADDED ((uint64_t)1 << 2)
#define GD_ALIGN 256
#define GD_MAX_NDIM 64

typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                            void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind,
                                                             const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(int32_t device_type, int32_t device_id, void **out_current_stream);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor, void **out_py_object);
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;
typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

/* ---- The layout the ABI fixes, checked at compile time ----
 * Every size and offset the declarations above must have: the plain C layout of
 * the header's declarations (no packing) on LP64 targets (x86_64, aarch64), the
 * same numbers dlpack/abi_test.go pins for the Go mirror. A slip fails the C build
 * of every package that includes this header, rather than a consumer reading
 * garbage. Other pointer sizes get only the checks of the pointer-free structs. */
#define GD_ABI_SIZE(type, size) _Static_assert(sizeof(type) == (size), "DLPack ABI: sizeof(" #type ") != " #size)
#define GD_ABI_OFFSET(type, field, off) \
    _Static_assert(offsetof(type, field) == (off), "DLPack ABI: offsetof(" #type ", " #field ") != " #off)

GD_ABI_SIZE(DLPackVersion, 8);
GD_ABI_OFFSET(DLPackVersion, major, 0);
GD_ABI_OFFSET(DLPackVersion, minor, 4);
GD_ABI_SIZE(DLDevice, 8); /* device_type is a C enum: int32-sized */
GD_ABI_OFFSET(DLDevice, device_type, 0);
GD_ABI_OFFSET(DLDevice, device_id, 4);
GD_ABI_SIZE(DLDataType, 4);
GD_ABI_OFFSET(DLDataType, code, 0);
GD_ABI_OFFSET(DLDataType, bits, 1);
GD_ABI_OFFSET(DLDataType, lanes, 2);

#if UINTPTR_MAX == UINT64_MAX
GD_ABI_SIZE(void *, 8);
GD_ABI_SIZE(DLTensor, 48);
GD_ABI_OFFSET(DLTensor, data, 0);
GD_ABI_OFFSET(DLTensor, device, 8);
GD_ABI_OFFSET(DLTensor, ndim, 16);
GD_ABI_OFFSET(DLTensor, dtype, 20);
GD_ABI_OFFSET(DLTensor, shape, 24);
GD_ABI_OFFSET(DLTensor, strides, 32);
GD_ABI_OFFSET(DLTensor, byte_offset, 40);
GD_ABI_SIZE(DLManagedTensor, 64);
GD_ABI_OFFSET(DLManagedTensor, dl_tensor, 0);
GD_ABI_OFFSET(DLManagedTensor, manager_ctx, 48);
GD_ABI_OFFSET(DLManagedTensor, deleter, 56);
GD_ABI_SIZE(DLManagedTensorVersioned, 80);
GD_ABI_OFFSET(DLManagedTensorVersioned, version, 0);
GD_ABI_OFFSET(DLManagedTensorVersioned, manager_ctx, 8);
GD_ABI_OFFSET(DLManagedTensorVersioned, deleter, 16);
GD_ABI_OFFSET(DLManagedTensorVersioned, flags, 24);
GD_ABI_OFFSET(DLManagedTensorVersioned, dl_tensor, 32);
GD_ABI_SIZE(DLPackExchangeAPIHeader, 16);
GD_ABI_OFFSET(DLPackExchangeAPIHeader, version, 0);
GD_ABI_OFFSET(DLPackExchangeAPIHeader, prev_api, 8);
GD_ABI_SIZE(DLPackExchangeAPI, 56);
GD_ABI_OFFSET(DLPackExchangeAPI, header, 0);
GD_ABI_OFFSET(DLPackExchangeAPI, managed_tensor_allocator, 16);
GD_ABI_OFFSET(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync, 24);
GD_ABI_OFFSET(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync, 32);
GD_ABI_OFFSET(DLPackExchangeAPI, dltensor_from_py_object_no_sync, 40);
GD_ABI_OFFSET(DLPackExchangeAPI, current_work_stream, 48);
#endif

#undef GD_ABI_SIZE
#undef GD_ABI_OFFSET

#endif

/* dlpack_abi.h: the DLPack v1.3 ABI in C, written from the header's stated layout
 * (dlpack/abi.go mirrors it in Go, and its test pins every offset). No Python here:
 * fast_import.h and the cgo test package internal/fastcheck include it alone. */
#ifndef GODLPACK_DLPACK_ABI_H
#define GODLPACK_DLPACK_ABI_H

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

#endif

/* dlpack.h: the DLPack v1.3 structs this example's C code uses, written from the
 * DLPack header's stated layout. A program of its own would include the official
 * dlpack.h instead; nothing here comes from the godlpack checkout, so the example
 * builds as an outside module does (docs/arrays-and-dlpack.md, "From Go"). */
#ifndef FROMGO_DLPACK_H
#define FROMGO_DLPACK_H

#include <stdint.h>

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
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif

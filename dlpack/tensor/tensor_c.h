/* tensor_c.h: the C half of package tensor. A produced tensor is one C block:
 * the managed struct (versioned, or legacy after ExportLegacy rewrote it in place),
 * then shape and strides at GDT_ARRAYS, then, for tensors in C memory, the data at
 * the first 256-byte boundary after them. One free releases it all. */
#ifndef GODLPACK_TENSOR_C_H
#define GODLPACK_TENSOR_C_H

#include <stddef.h>
#include <stdint.h>
#include "dlpack_abi.h"

/* Where shape and strides start: past the larger of the two managed structs. */
#define GDT_ARRAYS sizeof(DLManagedTensorVersioned)

typedef struct {
    void *block; /* NULL when out of memory */
    void *data;
} gdt_block;

gdt_block gdt_alloc(size_t header, size_t data);
int64_t gdt_live_blocks(void);
void gdt_deleter_versioned(DLManagedTensorVersioned *m);
void gdt_deleter_legacy(DLManagedTensor *m);
void gdt_call_deleter(void *m, int versioned);

#endif

/* tensor_c.h: the C half of package tensor. A produced tensor is one C block: a
 * gdt_node (the block cache's link and the block's size class), then the managed
 * struct (versioned, or legacy after ExportLegacy rewrote it in place), then shape
 * and strides at GDT_ARRAYS past the struct, then, for tensors in C memory, the
 * data at the first 256-byte boundary after them. One free of the node releases it
 * all. */
#ifndef GODLPACK_TENSOR_C_H
#define GODLPACK_TENSOR_C_H

#include <stddef.h>
#include <stdint.h>
#include "dlpack_abi.h"

/* Where shape and strides start: past the larger of the two managed structs. */
#define GDT_ARRAYS sizeof(DLManagedTensorVersioned)

/* The block cache (cache.go): blocks of GDT_CLASSES power-of-two sizes, the
 * smallest 1 << GDT_MIN_SHIFT bytes, are kept for reuse instead of freed. */
#define GDT_CLASSES 9
#define GDT_MIN_SHIFT 8

/* A block's first bytes; the managed struct follows (32 bytes keep it at malloc's
 * alignment). cls is the block's size class, or -1 for a block never cached in a
 * class; ndim how many dimensions its arrays were written for (room for that
 * many); size the bytes malloc'd, which tell whether a large block kept in
 * tensor.c's slot fits a new tensor. */
typedef struct gdt_node {
    struct gdt_node *next;
    int32_t cls;
    int32_t ndim;
    size_t size;
    size_t pad;
} gdt_node;

/* Blocks the C deleters gave back, one lock-free stack per class: any thread
 * pushes, only Go takes (the whole stack at once). count is an upper bound of
 * the blocks on it (a pusher adds before pushing). Read and written with atomics
 * only, in C and in Go; a cache line each. */
typedef struct {
    uintptr_t head; /* gdt_node* */
    int64_t count;
    int64_t pad[6];
} gdt_returned_stack;

extern gdt_returned_stack gdt_returned[GDT_CLASSES];
extern const int64_t gdt_class_cap[GDT_CLASSES];
extern int64_t gdt_blocks;
extern uintptr_t gdt_large_slot;

typedef struct {
    void *block; /* the managed struct (past the node); NULL when out of memory */
    void *data;
} gdt_block;

gdt_block gdt_alloc(size_t header, size_t data, int cls, int clear);
void gdt_free(gdt_node *n);
void gdt_drop_large_slot(void);
/* The two deleters' names are godlpack's sign of memory made in Go
 * (internal/arraymodule/owner.c's gd_owner_made_by_go, Array.flags["owndata"]): keep them. */
void gdt_deleter_versioned(DLManagedTensorVersioned *m);
void gdt_deleter_legacy(DLManagedTensor *m);
void gdt_call_deleter(uintptr_t m, int versioned);

#endif

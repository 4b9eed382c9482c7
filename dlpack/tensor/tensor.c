/* Allocation and deleters of the tensors package tensor produces, and the
 * trampoline through which Go calls any producer's deleter (Go cannot call a C
 * function pointer itself). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "tensor_c.h"
#include "_cgo_export.h"

/* gdt_alloc returns one 256-byte-aligned block: header bytes rounded up to the
 * alignment, then data bytes (which may be 0), zeroed. The block is NULL when out
 * of memory or when the size overflows; the header is the caller's to fill. */
/* Live blocks, for the tests' leak and double-free checks: a relaxed atomic add
 * per allocation and per deleter, a few ns. */
static _Atomic int64_t live_blocks;

int64_t gdt_live_blocks(void) { return atomic_load_explicit(&live_blocks, memory_order_relaxed); }

gdt_block gdt_alloc(size_t header, size_t data) {
    gdt_block b = {NULL, NULL};
    size_t head = (header + GD_ALIGN - 1) / GD_ALIGN * GD_ALIGN;
    if (head < header || data > SIZE_MAX - head - GD_ALIGN)
        return b;
    size_t total = (head + data + GD_ALIGN - 1) / GD_ALIGN * GD_ALIGN; /* C11 asks a multiple */
    char *p = aligned_alloc(GD_ALIGN, total);
    if (p == NULL)
        return b;
    if (data > 0)
        memset(p + head, 0, data);
    atomic_fetch_add_explicit(&live_blocks, 1, memory_order_relaxed);
    b.block = p;
    b.data = p + head;
    return b;
}

/* The deleters run on whatever thread the consumer drops the tensor, without any
 * lock. A tensor in C memory needs only free. A pinned Go slice's tensor carries a
 * cgo.Handle in manager_ctx; the Go side unpins it (a cgo callback, legal from any
 * thread, including ones Go did not create). */
static void release_ctx(void *ctx) {
    atomic_fetch_sub_explicit(&live_blocks, 1, memory_order_relaxed);
    if (ctx != NULL)
        godlpackTensorUnpin((uintptr_t)ctx);
}

void gdt_deleter_versioned(DLManagedTensorVersioned *m) {
    void *ctx = m->manager_ctx;
    free(m);
    release_ctx(ctx);
}

void gdt_deleter_legacy(DLManagedTensor *m) {
    void *ctx = m->manager_ctx;
    free(m);
    release_ctx(ctx);
}

void gdt_call_deleter(void *m, int versioned) {
    if (versioned) {
        DLManagedTensorVersioned *v = m;
        if (v->deleter != NULL)
            v->deleter(v);
    } else {
        DLManagedTensor *l = m;
        if (l->deleter != NULL)
            l->deleter(l);
    }
}


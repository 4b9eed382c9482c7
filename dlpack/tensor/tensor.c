/* Allocation and deleters of the tensors package tensor produces, and the
 * trampoline through which Go calls any producer's deleter (Go cannot call a C
 * function pointer itself). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "tensor_c.h"
#include "hugepages.h"

/* Live blocks, for the tests' leak and double-free checks: a relaxed atomic add
 * per allocation and per deleter, a few ns. */
static _Atomic int64_t live_blocks;

int64_t gdt_live_blocks(void) { return atomic_load_explicit(&live_blocks, memory_order_relaxed); }

/* gdt_alloc returns one malloc block: header bytes, then data bytes (which may be
 * 0), zeroed, at the first 256-byte boundary past the header, as DLPack asks of
 * data (from 32 MiB, the first huge-page boundary: gd_data_align). The block itself
 * needs no more than malloc's alignment (the managed struct
 * is at its start, and free takes it back): over-allocating by 255 bytes with
 * malloc costs ~15 ns where glibc's aligned_alloc costs 20-90 (measured). Large
 * blocks are calloc'd instead of malloc'd and cleared: glibc maps them fresh from
 * the kernel, whose pages are not cleared again, and they get huge pages as the
 * binding's do (hugepages.h), so writing a new 64 MiB result (goext.scale) costs
 * what NumPy's does (35 ms before, 7 ms). Small blocks keep malloc and memset of the
 * data alone (calloc would clear the header too). The block is NULL when out of
 * memory or when the size overflows. */
#define GDT_CALLOC_MIN ((size_t)128 << 10) /* glibc's default mmap threshold */

gdt_block gdt_alloc(size_t header, size_t data) {
    gdt_block b = {NULL, NULL};
    if (data > SIZE_MAX - header - 2 * GD_HUGEPAGE)
        return b;
    int large = data >= GDT_CALLOC_MIN;
    size_t align = gd_data_align(data, GD_ALIGN); /* hugepages.h: huge pages whole */
    size_t span = (data + align - 1) & ~(align - 1);
    char *p = large ? calloc(1, header + align - 1 + span) : malloc(header + GD_ALIGN - 1 + data);
    if (p == NULL)
        return b;
    char *d = (char *)(((uintptr_t)p + header + align - 1) & ~(uintptr_t)(align - 1));
    if (large)
        gd_advise_hugepages(d, (int64_t)span);
    else if (data > 0)
        memset(d, 0, data);
    atomic_fetch_add_explicit(&live_blocks, 1, memory_order_relaxed);
    b.block = p;
    b.data = d;
    return b;
}

/* The deleters run on whatever thread the consumer drops the tensor, without any
 * lock, and call no Go. A tensor in C memory needs only free. A pinned Go slice's
 * tensor carries in manager_ctx the address of its pinned object's count of live
 * tensors (pins.go, C memory); the Go side unpins the object at a later sweep
 * once the count is zero. The decrement releases: the consumer's reads of the
 * slice happen before the unpin. */
static void release_ctx(void *ctx) {
    atomic_fetch_sub_explicit(&live_blocks, 1, memory_order_relaxed);
    if (ctx != NULL)
        atomic_fetch_sub_explicit((_Atomic int64_t *)ctx, 1, memory_order_release);
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


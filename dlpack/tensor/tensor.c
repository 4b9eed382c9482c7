/* Allocation and deleters of the tensors package tensor produces, and the
 * trampoline through which Go calls any producer's deleter (Go cannot call a C
 * function pointer itself). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "tensor_c.h"
#include "hugepages.h"

/* Blocks malloc'd and not yet freed, cached ones included (the large-block slot's
 * too): cache.go's liveBlocks subtracts those, for the tests' leak and double-free checks. A relaxed atomic add
 * per malloc and per free; a block reused from the cache costs none. */
int64_t gdt_blocks;

gdt_returned_stack gdt_returned[GDT_CLASSES];

/* How many blocks each returned stack (and each of Go's own lists, cache.go) keeps
 * at most: 64 KiB of blocks, and at least two. */
const int64_t gdt_class_cap[GDT_CLASSES] = {256, 128, 64, 32, 16, 8, 4, 2, 2};

static void add_blocks(int64_t d) { atomic_fetch_add_explicit((_Atomic int64_t *)&gdt_blocks, d, memory_order_relaxed); }

/* The large-block slot: the last large block (GDT_SLOT_MIN to GDT_SLOT_MAX bytes)
 * given back, kept instead of freed for the next large tensor.Uninitialized of
 * about its size (a loop's result of the same shape), which then costs no malloc
 * and, above all, no page faults: glibc serves such blocks from the heap once
 * its mmap threshold has risen past them, and trims the heap's top when they are
 * freed, so the next block's pages fault in again (bench_vec's 4096x1024
 * scale_shift: ~250 faults a call in some rounds, 1.2-2.2x the C++ twin's time,
 * whose smaller new[] glibc happened to keep). One block at most: a block given
 * back takes the slot and frees the one it held. Blocks from GDT_SLOT_MAX are
 * huge-page aligned and advised (hugepages.h) and glibc maps them on their own:
 * they fault 2 MiB at a time, and holding one idle would hold too much. The slot
 * is one atomic word exchanged whole, as the returned stacks' heads: any thread
 * puts and takes (deleters run on any thread, without the GIL, after Go is
 * gone); whoever gets a block out of it owns it alone, so none is freed twice.
 * The exchange orders the last owner's writes to the block before the next
 * owner's. */
#define GDT_SLOT_MIN ((size_t)1 << 20)
#define GDT_SLOT_MAX GD_HUGEPAGE_ALIGN_MIN
uintptr_t gdt_large_slot; /* gdt_node* */

static int slot_keeps(size_t size) { return size >= GDT_SLOT_MIN && size < GDT_SLOT_MAX; }

static _Atomic uintptr_t *slot(void) { return (_Atomic uintptr_t *)&gdt_large_slot; }

static void free_now(gdt_node *n) {
    free(n);
    add_blocks(-1);
}

static void free_block(gdt_node *n) {
    if (n->cls < 0 && slot_keeps(n->size)) {
        n = (gdt_node *)atomic_exchange_explicit(slot(), (uintptr_t)n, memory_order_acq_rel);
        if (n == NULL)
            return;
    }
    free_now(n);
}

/* take_large returns the slot's block if it holds size bytes and wastes at most an
 * eighth of them, else NULL; a block that does not fit goes back to the slot,
 * unless another took its place meanwhile (then it is freed). */
static gdt_node *take_large(size_t size) {
    gdt_node *n = (gdt_node *)atomic_exchange_explicit(slot(), 0, memory_order_acq_rel);
    if (n == NULL || (n->size >= size && n->size - size <= size / 8))
        return n;
    uintptr_t empty = 0;
    if (!atomic_compare_exchange_strong_explicit(slot(), &empty, (uintptr_t)n, memory_order_acq_rel,
                                                 memory_order_relaxed))
        free_now(n);
    return NULL;
}

/* gdt_drop_large_slot frees the slot's block, if any (the tests' leak checks). */
void gdt_drop_large_slot(void) {
    gdt_node *n = (gdt_node *)atomic_exchange_explicit(slot(), 0, memory_order_acq_rel);
    if (n != NULL)
        free_now(n);
}

/* gdt_alloc returns a new block whose managed struct has header bytes (struct,
 * shape, strides), then data bytes (which may be 0), zeroed when clear, at the first 256-byte
 * boundary past the header, as DLPack asks of data (from 32 MiB, the first
 * huge-page boundary: gd_data_align). A block of size class cls (cache.go chose
 * it; the block then takes the class's whole size) may be cached and reused; cls
 * -1 sizes it exactly, and it is freed, or kept in the large-block slot above and
 * reused from there for a block not to clear. The block itself needs no more
 * than malloc's alignment (node and struct are at its start, and free takes it
 * back): over-allocating by 255 bytes with malloc costs ~15 ns where glibc's
 * aligned_alloc costs 20-90 (measured). Large blocks are calloc'd instead of
 * malloc'd and cleared: glibc maps them fresh from the kernel, whose pages are not
 * cleared again, and they get huge pages as the binding's do (hugepages.h), so
 * writing a new 64 MiB result (goext.scale) costs what NumPy's does (35 ms before,
 * 7 ms). Small blocks keep malloc and memset of the data alone (calloc would clear
 * the header too). Without clear (tensor.Uninitialized: a result the caller writes
 * whole) every block is malloc'd and nothing is cleared: once glibc has freed a
 * large block, its mmap threshold rises past it and the next one comes from the
 * heap, where calloc clears it again, a whole extra pass over a memory-bound
 * result (bench_vec's scale_shift). The block is NULL when out of memory or when
 * the size overflows. */
#define GDT_CALLOC_MIN ((size_t)128 << 10) /* glibc's default mmap threshold */

gdt_block gdt_alloc(size_t header, size_t data, int cls, int clear) {
    gdt_block b = {NULL, NULL};
    if (data > SIZE_MAX - sizeof(gdt_node) - header - 2 * GD_HUGEPAGE)
        return b;
    int large = data >= GDT_CALLOC_MIN;
    size_t align = gd_data_align(data, GD_ALIGN); /* hugepages.h: huge pages whole */
    size_t span = (data + align - 1) & ~(align - 1);
    /* A cached class's blocks are under 64 KiB: their data's alignment is GD_ALIGN,
     * where cache.go's newBlock finds it again. */
    size_t size = cls >= 0 ? (size_t)1 << (GDT_MIN_SHIFT + cls)
                           : sizeof(gdt_node) + header + align - 1 + (large ? span : data);
    /* A block to clear stays calloc's: fresh pages come cleared, the slot's would
     * need a pass. */
    gdt_node *n = cls < 0 && !clear && slot_keeps(size) ? take_large(size) : NULL;
    int fresh = n == NULL;
    if (fresh) {
        n = large && clear ? calloc(1, size) : malloc(size);
        if (n == NULL)
            return b;
        n->size = size;
        add_blocks(1);
    }
    n->next = NULL;
    n->cls = cls;
    char *m = (char *)(n + 1);
    char *d = (char *)(((uintptr_t)m + header + align - 1) & ~(uintptr_t)(align - 1));
    if (large && fresh)
        gd_advise_hugepages(d, (int64_t)span);
    else if (!large && data > 0 && clear)
        memset(d, 0, data);
    b.block = m;
    b.data = d;
    return b;
}

void gdt_free(gdt_node *n) { free_block(n); }

/* put_block gives back the block whose managed struct is m: onto its class's
 * returned stack unless that holds its cap, else to free. Lock-free, so that a
 * deleter is safe on any thread, in a fork child and after Go is gone. It reads
 * nothing of the stack's blocks (Go may have taken and freed them meanwhile), only
 * the head's address; Go takes whole stacks (one exchange of the head), so a block
 * is never popped from under a pusher and the head cannot go A-B-A. */
static void put_block(void *m) {
    gdt_node *n = (gdt_node *)m - 1;
    if (n->cls < 0) {
        free_block(n);
        return;
    }
    gdt_returned_stack *s = &gdt_returned[n->cls];
    _Atomic int64_t *count = (_Atomic int64_t *)&s->count;
    if (atomic_fetch_add_explicit(count, 1, memory_order_relaxed) >= gdt_class_cap[n->cls]) {
        atomic_fetch_sub_explicit(count, 1, memory_order_relaxed);
        free_block(n);
        return;
    }
    _Atomic uintptr_t *head = (_Atomic uintptr_t *)&s->head;
    uintptr_t h = atomic_load_explicit(head, memory_order_relaxed);
    do
        n->next = (gdt_node *)h;
    while (!atomic_compare_exchange_weak_explicit(head, &h, (uintptr_t)n, memory_order_release, memory_order_relaxed));
}

/* The deleters run on whatever thread the consumer drops the tensor, without any
 * lock, and call no Go. A tensor in C memory needs only its block given back. A
 * pinned Go slice's tensor carries in manager_ctx the address of its pinned
 * object's count of live tensors (pins.go, C memory); the Go side unpins the
 * object at a later sweep once the count is zero. The decrement releases: the
 * consumer's reads of the slice happen before the unpin. cache.go's
 * releaseProduced does the same in Go for a block closed in Go. */
static void release_ctx(void *ctx) {
    if (ctx != NULL)
        atomic_fetch_sub_explicit((_Atomic int64_t *)ctx, 1, memory_order_release);
}

void gdt_deleter_versioned(DLManagedTensorVersioned *m) {
    void *ctx = m->manager_ctx;
    put_block(m);
    release_ctx(ctx);
}

void gdt_deleter_legacy(DLManagedTensor *m) {
    void *ctx = m->manager_ctx;
    put_block(m);
    release_ctx(ctx);
}

/* m is a uintptr_t so that cgo does not check it as a Go pointer: it is C memory
 * (the caller's rule). */
void gdt_call_deleter(uintptr_t m, int versioned) {
    if (versioned) {
        DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)m;
        if (v->deleter != NULL)
            v->deleter(v);
    } else {
        DLManagedTensor *l = (DLManagedTensor *)m;
        if (l->deleter != NULL)
            l->deleter(l);
    }
}


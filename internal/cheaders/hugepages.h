/* hugepages.h: the huge-page advice for large fresh blocks, shared by the godlpack
 * module's allocator (internal/arraymodule/owner.c) and dlpack/tensor's (tensor.c),
 * which include it. */
#ifndef GODLPACK_HUGEPAGES_H
#define GODLPACK_HUGEPAGES_H

#include <stdint.h>
#include <sys/mman.h>

/* NumPy asks for transparent huge pages on blocks of 4 MiB and more; so do we. With
 * THP in "madvise" mode (the common default) a 64 MiB block otherwise takes 16384
 * page faults of 4 KiB when first written, which cost more than the writes. */
#define GD_HUGEPAGE_MIN ((int64_t)4 << 20)

/* A huge page, and the data size from which a fresh block's data starts and ends on
 * huge-page boundaries (gd_data_align): 32 MiB, from which glibc always maps a block on
 * its own (its mmap threshold never grows past that), so the slack is address space
 * only, never cleared. The kernel places a mapping where it likes; data that starts
 * inside a huge page leaves up to 2 MiB at each end in 4 KiB pages, ~1000 faults
 * (~1 ms of a 64 MiB result's 6). Smaller blocks may come from the heap, where calloc
 * clears the slack too: they keep GD_ALIGN. */
#define GD_HUGEPAGE ((size_t)2 << 20)
#define GD_HUGEPAGE_ALIGN_MIN ((size_t)32 << 20)

/* gd_data_align is the alignment of a fresh block's data of nbytes: a huge page's
 * from GD_HUGEPAGE_ALIGN_MIN, else align (the allocator's own, GD_ALIGN). */
static inline size_t gd_data_align(size_t nbytes, size_t align) {
    return nbytes >= GD_HUGEPAGE_ALIGN_MIN ? GD_HUGEPAGE : align;
}

static inline void gd_advise_hugepages(char *data, int64_t nbytes) {
#ifdef MADV_HUGEPAGE
    if (nbytes < GD_HUGEPAGE_MIN) {
        return;
    }
    uintptr_t page = 4096;
    /* From the first whole page to the end of the page holding the last byte, as
     * NumPy does: rounding the end down instead leaves the mapping's last page
     * outside the advice, one more VMA to split and merge, ~1 us an mmap/munmap. */
    uintptr_t start = ((uintptr_t)data + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)data + (uintptr_t)nbytes + page - 1) & ~(page - 1);
    if (end > start) {
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice only */
    }
#else
    (void)data;
    (void)nbytes;
#endif
}

#endif

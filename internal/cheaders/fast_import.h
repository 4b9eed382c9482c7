/* fast_import.h: the C fast path's check of a foreign managed tensor.
 *
 * The Go validator (dlpack/validate.go) is the authority on what godlpack
 * accepts. This check exists because the import of a NumPy array must cost no
 * more than NumPy's own (~170 ns), and a C->Go crossing alone costs ~90 ns. It
 * ACCEPTS only the plain case (CPU, known whole-byte dtype, strides present,
 * nothing overflowing) and otherwise DECLINES, handing the tensor to the Go
 * validator, which accepts it or rejects it with a message naming the field. It
 * never rejects. internal/fastcheck fuzzes it against the Go validator: whatever
 * it accepts, Go accepts with the same view. */
#ifndef GODLPACK_FAST_IMPORT_H
#define GODLPACK_FAST_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "dlpack_abi.h"

/* gd_dtype_slots[code][bits] is 1 + the dtype's index in the Go table for
 * whole-byte dtypes the fast path takes, else 0. Go fills it at module init. */
#define GD_DTYPE_CODES 32
typedef int8_t gd_dtype_slot_table[GD_DTYPE_CODES][256];

typedef struct {
    char *data;             /* element 0: data + byte_offset */
    const int64_t *shape;   /* the producer's arrays: copy before trusting later */
    const int64_t *strides;
    int32_t ndim;
    int32_t dtype_index;
    uint64_t flags;         /* READ_ONLY / IS_COPIED only */
    DLDataType dtype;
    DLDevice device;        /* kDLCPU, with the producer's device id */
} gd_fast_view;

/* Whether a tensor of these extents and strides (in elements, of item bytes each)
 * at data + byte_offset is plain: every extent >= 0, and the elements' count, reach
 * and addresses computed without overflow (an empty tensor's only its offset).
 * gd_fast_check's rule, apart so that internal/cpython/numpy_lend.c checks the
 * extents it has just copied without the header checks it has no need for. */
static inline int gd_fast_extent_ok(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                    const void *data, uint64_t byte_offset, int64_t item) {
    /* Two passes with overflow-checked math: the checks cost next to nothing (a jo
     * after each imul). A first case without them (every extent and |stride| below
     * 2^w, w * ndim small) measured slower, not faster: ~6.4 -> ~7.9 ns a check of a
     * 2-d tensor, the extra pass costing more than the checks it skips; so did one
     * pass summing the reaches in 128 bits (~4.6 -> ~7.3 ns). */
    int64_t lo = 0, hi = 0; /* element offsets reached, relative to element 0 */
    int empty = 0;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t d = shape[i];
        if (d < 0) {
            return 0;
        }
        if (d == 0) {
            empty = 1;
        }
    }
    if (empty) {
        return byte_offset <= UINT64_MAX - (uint64_t)(uintptr_t)data;
    }
    int64_t count = 1;
    for (int32_t i = 0; i < ndim; i++) {
        int64_t reach;
        if (__builtin_mul_overflow(count, shape[i], &count) ||
            __builtin_mul_overflow(shape[i] - 1, strides[i], &reach) ||
            (reach < 0 ? __builtin_add_overflow(lo, reach, &lo)
                       : __builtin_add_overflow(hi, reach, &hi))) {
            return 0;
        }
    }
    /* The bytes reached, [base - below, base - below + span), within the address
     * space and span within int64, each step checked for overflow: 64-bit math with
     * the overflow flags, ~1.4 ns a check less than the same rule in 128 bits.
     * (|lo| * item <= span, so below fits too.) */
    int64_t span;
    uint64_t base, end;
    if (__builtin_sub_overflow(hi, lo, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_mul_overflow(span, item, &span) ||
        __builtin_add_overflow((uint64_t)(uintptr_t)data, byte_offset, &base)) {
        return 0;
    }
    uint64_t below = (uint64_t)-(lo * item); /* bytes before element 0: lo <= 0 */
    return base >= below && !__builtin_add_overflow(base - below, (uint64_t)span, &end) &&
           end <= UINTPTR_MAX;
}

/* Returns 1 and fills out if the tensor is plain; 0 to let Go decide. */
static inline int gd_fast_check(const void *managed, int versioned, const gd_dtype_slot_table slots,
                                gd_fast_view *out) {
    const DLTensor *t;
    uint64_t flags = 0;
    if (versioned) {
        const DLManagedTensorVersioned *m = managed;
        if (m->version.major != 1) {
            return 0;
        }
        flags = m->flags;
        if ((flags & ~(uint64_t)3) != 0) { /* only READ_ONLY and IS_COPIED */
            return 0;
        }
        t = &m->dl_tensor;
    } else {
        t = &((const DLManagedTensor *)managed)->dl_tensor;
    }
    if (t->device.device_type != 1 || t->data == NULL || t->dtype.lanes != 1 ||
        t->dtype.code >= GD_DTYPE_CODES) {
        return 0;
    }
    int slot = slots[t->dtype.code][t->dtype.bits];
    if (slot <= 0 || t->ndim < 0 || t->ndim > 64 ||
        (t->ndim > 0 && (t->shape == NULL || t->strides == NULL))) {
        return 0;
    }
    if (!gd_fast_extent_ok(t->ndim, t->shape, t->strides, t->data, t->byte_offset,
                           t->dtype.bits / 8)) {
        return 0;
    }
    out->data = (char *)t->data + t->byte_offset;
    out->shape = t->shape;
    out->strides = t->strides;
    out->ndim = t->ndim;
    out->dtype_index = slot - 1;
    out->flags = flags;
    out->dtype = t->dtype;
    out->device = t->device;
    return 1;
}

#endif

//go:build godlpack_python

/* owner.c: reference-counted owners of array memory (see arraymodule.h). No Python
 * calls here (the Python-buffer kind's release, in owner_pybuffer.c, takes the GIL
 * itself), so the last reference may be dropped from any thread, without the GIL,
 * or after the interpreter has finalized. */
#include "arraymodule.h"
#include "hugepages.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* When counting is on, every malloc'd block that backs an exchange (owners and
 * exported managed tensors) is counted, so tests can prove that each one is freed
 * exactly once. Set once at module init, before any array exists. */
int gd_counting;
_Atomic int64_t gd_live_count;

int64_t gd_live_allocations(void) {
    return atomic_load_explicit(&gd_live_count, memory_order_relaxed);
}

gd_owner *gd_owner_new_owned(int64_t nbytes, int zero, char **data_out) {
    if (nbytes < 0 || (uint64_t)nbytes > (uint64_t)PTRDIFF_MAX - 2 * GD_ALIGN) {
        return NULL;
    }
    /* One plain malloc/calloc block: data is the first 256-byte boundary at least
     * GD_ALIGN bytes in, and the owner header sits in the GD_ALIGN bytes before it.
     * calloc, not aligned_alloc + memset: glibc hands large blocks straight from
     * mmap and skips clearing pages the kernel already zeroed, so zeros() touches
     * no memory, as NumPy's does. A zero-size array still gets a distinct, aligned,
     * non-NULL data address: consumers such as NumPy and PyTorch treat NULL data as
     * an error even for empty tensors. */
    size_t total = (size_t)nbytes + 2 * GD_ALIGN;
    char *block = zero ? calloc(1, total) : malloc(total);
    if (block == NULL) {
        return NULL;
    }
    char *data = (char *)(((uintptr_t)block + 2 * GD_ALIGN - 1) & ~(uintptr_t)(GD_ALIGN - 1));
    gd_owner *o = (gd_owner *)(data - GD_ALIGN);
    atomic_init(&o->refs, 1);
    o->kind = GD_OWNER_OWNED;
    o->foreign = NULL;
    o->nbytes = nbytes;
    o->block = block;
    gd_advise_hugepages(data, nbytes);
    *data_out = data;
    gd_live_add(1);
    return o;
}

gd_owner *gd_owner_new_foreign(void *managed, int versioned) {
    gd_owner *o = malloc(sizeof *o);
    if (o == NULL) {
        return NULL;
    }
    atomic_init(&o->refs, 1);
    o->kind = versioned ? GD_OWNER_FOREIGN_VERSIONED : GD_OWNER_FOREIGN_LEGACY;
    o->foreign = managed;
    o->nbytes = 0;
    gd_live_add(1);
    return o;
}

void gd_owner_decref(gd_owner *o) {
    /* acq_rel: the thread that frees must see every write made through other refs. */
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) != 1) {
        return;
    }
    switch (o->kind) {
    case GD_OWNER_FOREIGN_VERSIONED:
    case GD_OWNER_FOREIGN_LEGACY:
        /* The producer's deleter is called exactly once, here, when our last holder
         * lets go. */
        gd_call_deleter(o->foreign, o->kind == GD_OWNER_FOREIGN_VERSIONED);
        break;
    case GD_OWNER_PYBUFFER:
        gd_owner_release_pybuffer(o);
        break;
    case GD_OWNER_PYOBJECT:
        gd_owner_release_pyobject(o);
        break;
    default:
        break;
    }
    gd_live_add(-1);
    free(o->kind == GD_OWNER_OWNED ? o->block : o); /* other kinds are one malloc */
}

/* Whether o's memory was made in Go and handed over whole: a tensor of package
 * dlpack/tensor (New, FromSlice: an extension function's result), known by its
 * deleter's exported name, gdt_deleter_versioned or gdt_deleter_legacy
 * (dlpack/tensor/tensor_c.h), as each extension links its own copy of that package
 * at its own address. A tensor a producer made keeps the producer's deleter. */
int gd_owner_made_by_go(const gd_owner *o) {
    uintptr_t deleter;
    if (o->kind == GD_OWNER_FOREIGN_VERSIONED) {
        deleter = (uintptr_t)((const DLManagedTensorVersioned *)o->foreign)->deleter;
    } else if (o->kind == GD_OWNER_FOREIGN_LEGACY) {
        deleter = (uintptr_t)((const DLManagedTensor *)o->foreign)->deleter;
    } else {
        return 0;
    }
    Dl_info info;
    if (deleter == 0 || dladdr((const void *)deleter, &info) == 0 || info.dli_sname == NULL) {
        return 0;
    }
    return strcmp(info.dli_sname, "gdt_deleter_versioned") == 0 ||
           strcmp(info.dli_sname, "gdt_deleter_legacy") == 0;
}

/* A C producer and a C consumer of DLPack tensors, for the tests of package
 * tensor: what a C library on the other side of the exchange would do. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ctensor.h"

/* Deleter calls per produced tensor, by id; ids wrap (tests keep far fewer alive). */
#define CT_IDS (1 << 20)
static _Atomic int32_t calls[CT_IDS];
static _Atomic int64_t next_id;

int32_t ct_deleter_calls(int64_t id) { return atomic_load(&calls[id % CT_IDS]); }

static void count(void *ctx) { atomic_fetch_add(&calls[(int64_t)(intptr_t)ctx % CT_IDS], 1); }
static void del_versioned(DLManagedTensorVersioned *m) { count(m->manager_ctx); free(m); }
static void del_legacy(DLManagedTensor *m) { count(m->manager_ctx); free(m); }

/* ct_produce: one malloc holding the managed struct, shape, strides and data_len
 * bytes of data (copied from data; shape_in and strides_in are
 * copied too, so they may be Go memory), with data_offset bytes before element 0 given
 * as byte_offset. null_data leaves data NULL. The id's deleter count starts at 0. */
void *ct_produce(const ct_spec *s, const int64_t *shape_in, const int64_t *strides_in, const void *data, size_t data_len, int64_t *id_out) {
    size_t head = sizeof(DLManagedTensorVersioned) + 16 * (size_t)(s->ndim > 0 ? s->ndim : 0);
    head = (head + 63) / 64 * 64;
    char *p = calloc(1, head + data_len + 64);
    if (p == NULL)
        return NULL;
    int64_t id = atomic_fetch_add(&next_id, 1);
    atomic_store(&calls[id % CT_IDS], 0);
    *id_out = id;
    int64_t *shape = (int64_t *)(p + sizeof(DLManagedTensorVersioned));
    int64_t *strides = shape + (s->ndim > 0 ? s->ndim : 0);
    DLTensor *t;
    if (s->versioned) {
        DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)p;
        m->version.major = s->major;
        m->version.minor = s->minor;
        m->flags = s->flags;
        m->manager_ctx = (void *)(intptr_t)id;
        m->deleter = del_versioned;
        t = &m->dl_tensor;
    } else {
        DLManagedTensor *m = (DLManagedTensor *)p;
        m->manager_ctx = (void *)(intptr_t)id;
        m->deleter = del_legacy;
        t = &m->dl_tensor;
    }
    t->device.device_type = s->device_type;
    t->device.device_id = 0;
    t->ndim = s->ndim;
    t->dtype.code = s->code;
    t->dtype.bits = s->bits;
    t->dtype.lanes = s->lanes;
    if (s->ndim > 0 && s->ndim <= GD_MAX_NDIM) {
        memcpy(shape, shape_in, 8 * (size_t)s->ndim);
        t->shape = shape;
        if (s->has_strides) {
            memcpy(strides, strides_in, 8 * (size_t)s->ndim);
            t->strides = strides;
        }
    }
    memcpy(p + head, data, data_len);
    t->data = s->null_data ? NULL : p + head;
    t->byte_offset = s->byte_offset;
    return p;
}

/* ct_gather reads a tensor the way a strided C consumer does: every element's
 * storage bytes in C order into out (room for out_len bytes), packed sub-byte
 * tensors as their raw bytes. It returns the bytes written, or -1 if out is too
 * small. It trusts the tensor: callers pass tensors they made valid. */
static int64_t gather(const DLTensor *t, int padded, uint8_t *out, int64_t out_len) {
    int nd = t->ndim;
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= t->shape[i];
    const uint8_t *base = (const uint8_t *)t->data + t->byte_offset;
    if (t->dtype.bits < 8 && !padded) { /* packed: contiguous by rule */
        int64_t bytes = (n * t->dtype.bits + 7) / 8;
        if (bytes > out_len)
            return -1;
        if (bytes > 0)
            memcpy(out, base, (size_t)bytes);
        return bytes;
    }
    int64_t item = t->dtype.bits < 8 ? 1 : t->dtype.bits / 8;
    if (n * item > out_len)
        return -1;
    if (n == 0)
        return 0;
    int64_t idx[GD_MAX_NDIM] = {0}, st[GD_MAX_NDIM];
    int64_t c = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = t->strides ? t->strides[i] : c;
        c *= t->shape[i];
    }
    int64_t off = 0, w = 0;
    for (;;) {
        memcpy(out + w, base + off * item, (size_t)item);
        w += item;
        int k = nd - 1;
        for (; k >= 0; k--) {
            idx[k]++;
            off += st[k];
            if (idx[k] < t->shape[k])
                break;
            off -= st[k] * t->shape[k];
            idx[k] = 0;
        }
        if (k < 0)
            return w;
    }
}

int64_t ct_consume(void *m, int versioned, ct_seen *seen, uint8_t *out, int64_t out_len) {
    const DLTensor *t;
    int padded = 0;
    if (versioned) {
        DLManagedTensorVersioned *v = m;
        seen->major = v->version.major;
        seen->minor = v->version.minor;
        seen->flags = v->flags;
        padded = (v->flags & GD_FLAG_SUBBYTE_PADDED) != 0;
        t = &v->dl_tensor;
    } else {
        t = &((DLManagedTensor *)m)->dl_tensor;
    }
    seen->ndim = t->ndim;
    seen->code = t->dtype.code;
    seen->bits = t->dtype.bits;
    seen->lanes = t->dtype.lanes;
    seen->device_type = t->device.device_type;
    seen->data_align = (int64_t)((uintptr_t)t->data % GD_ALIGN);
    for (int i = 0; i < t->ndim && i < GD_MAX_NDIM; i++) {
        seen->shape[i] = t->shape[i];
        seen->strides[i] = t->strides ? t->strides[i] : 0;
    }
    return gather(t, padded, out, out_len);
}

void ct_delete(void *m, int versioned) {
    if (versioned)
        ((DLManagedTensorVersioned *)m)->deleter(m);
    else
        ((DLManagedTensor *)m)->deleter(m);
}

/* A thread Go did not create calls the deleter, as a C consumer's worker would. */
typedef struct { void *m; int versioned; } thread_arg;
static void *delete_on_thread(void *p) {
    thread_arg *a = p;
    ct_delete(a->m, a->versioned);
    return NULL;
}

int ct_delete_on_new_thread(void *m, int versioned) {
    pthread_t th;
    thread_arg a = {m, versioned};
    if (pthread_create(&th, NULL, delete_on_thread, &a) != 0)
        return -1;
    return pthread_join(th, NULL);
}

/* The benchmark's C producer: a rows x cols float32 tensor, one malloc, a
 * deleter that frees it (no counting). */
static void del_plain(DLManagedTensorVersioned *m) { free(m); }

void *ct_produce_f32(int64_t rows, int64_t cols) {
    size_t head = sizeof(DLManagedTensorVersioned) + 32;
    DLManagedTensorVersioned *m = malloc(head + (size_t)(rows * cols) * 4);
    if (m == NULL)
        return NULL;
    int64_t *dims = (int64_t *)(m + 1);
    dims[0] = rows;
    dims[1] = cols;
    dims[2] = cols;
    dims[3] = 1;
    m->version.major = 1;
    m->version.minor = 3;
    m->manager_ctx = NULL;
    m->deleter = del_plain;
    m->flags = 0;
    m->dl_tensor = (DLTensor){(char *)m + head, {GD_KDLCPU, 0}, 2, {2, 32, 1}, dims, dims + 2, 0};
    return m;
}

/* The benchmark's baseline: what producing and dropping a buffer costs in C. */
void *ct_malloc(size_t n) { return malloc(n); }
void ct_free(void *p) { free(p); }

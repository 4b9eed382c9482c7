/* ctensor.h: the test-only C producer and consumer (ctensor.c). */
#ifndef GODLPACK_CTENSOR_H
#define GODLPACK_CTENSOR_H

#include <stddef.h>
#include <stdint.h>
#include "dlpack_abi.h"

typedef struct {
    int versioned;
    uint32_t major, minor;
    uint64_t flags;
    int32_t device_type;
    int32_t ndim;
    uint8_t code, bits;
    uint16_t lanes;
    int has_strides;
    int null_data;
    uint64_t byte_offset;
} ct_spec;

typedef struct {
    uint32_t major, minor;
    uint64_t flags;
    int32_t ndim, device_type;
    uint8_t code, bits;
    uint16_t lanes;
    int64_t data_align;
    int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM];
} ct_seen;

void *ct_produce(const ct_spec *s, const int64_t *shape_in, const int64_t *strides_in, const void *data, size_t data_len, int64_t *id_out);
int32_t ct_deleter_calls(int64_t id);
int64_t ct_consume(void *m, int versioned, ct_seen *seen, uint8_t *out, int64_t out_len);
void ct_delete(void *m, int versioned);
int ct_delete_on_new_thread(void *m, int versioned);
void *ct_produce_f32(int64_t rows, int64_t cols);
void *ct_malloc(size_t n);
void ct_free(void *p);

#endif

/* engine_internal.h - what the engine's files share and nobody else needs: hashing, the
 * device name the advisor keys its trials by, x filling and small allocation helpers */
#ifndef RVS_ENGINE_INTERNAL_H
#define RVS_ENGINE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include "rvs_engine.h"

/* FNV-1a over len bytes, continuing from h (start with RVS_HASH_SEED). */
#define RVS_HASH_SEED 0xcbf29ce484222325ULL
static inline uint64_t rvs_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static inline uint64_t rvs_hash_i64(uint64_t h, int64_t v) { return rvs_hash(h, &v, sizeof v); }

/* A sample of A's structure: about 4096 row pointers and 4096 column indices, evenly spread,
 * hashed into h (a fingerprint that costs nothing next to reading the matrix). */
uint64_t rvs_hash_structure(uint64_t h, const rvs_csr *A);

/* The name trials are keyed by: the GPU's description, or "cpu/<threads>t". */
void rvs_device_name(rvs_device dev, char *buf, size_t n);

/* y (n values of vt) as double into yd. */
void rvs_y_to_double(double *yd, const void *y, int64_t n, rvs_vtype vt);

/* Fill n values of vt at y with NaN. */
void rvs_fill_nan(void *y, int64_t n, rvs_vtype vt);

/* The check tolerance of spmv(1) for a value type. */
static inline double rvs_check_tol(rvs_vtype vt) { return rvs_vtype_real(vt) == RVS_F64 ? 1e-10 : 1e-4; }

#endif

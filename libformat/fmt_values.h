/* fmt_values.h - values of any value type (f32, f64, c64, c128) moved and tested by the
 * builders and validators, by size: a complex value is two reals side by side, so copying it
 * is copying 8 or 16 bytes. Private to libformat. */
#ifndef RVS_FMT_VALUES_H
#define RVS_FMT_VALUES_H

#include <stdint.h>
#include <string.h>
#include "rvs_csr.h"

/* dst[di] = src[si] for values of vs bytes (4, 8 or 16). */
static inline void rvs_val_copy(void *dst, int64_t di, const void *src, int64_t si, size_t vs)
{
    if (vs == 8)
        ((uint64_t *)dst)[di] = ((const uint64_t *)src)[si];
    else if (vs == 4)
        ((uint32_t *)dst)[di] = ((const uint32_t *)src)[si];
    else
        memcpy((char *)dst + di * 16, (const char *)src + si * 16, 16);
}

/* 1 when value i of v (of type vt) is zero (either sign; both parts for complex). */
static inline int rvs_val_is_zero(const void *v, int64_t i, rvs_vtype vt)
{
    switch (vt) {
    case RVS_F32: return ((const float *)v)[i] == 0;
    case RVS_C64: return ((const float *)v)[2 * i] == 0 && ((const float *)v)[2 * i + 1] == 0;
    case RVS_C128: return ((const double *)v)[2 * i] == 0 && ((const double *)v)[2 * i + 1] == 0;
    default: return ((const double *)v)[i] == 0;
    }
}

#endif

/* ell_gather.h - the inner loop the CPU kernels of the ELL family share (private to kernels/cpu):
 * acc[i] += v[i] * x[c[i]] over a run of contiguous slots, where c[i] = -1 marks padding.
 * Padding reads x[0] (always present when any slot exists) and the select drops the product,
 * so Inf or NaN in x never reaches y through padding; the loop has no branch and vectorises. */
#ifndef RVS_ELL_GATHER_H
#define RVS_ELL_GATHER_H

#include <stdint.h>
#include "cpu_values.h"

#define RVS_ELL_GATHER(NAME, T)                                                                                   \
    static inline void NAME(T *restrict acc, const int32_t *restrict c, const T *restrict v, const T *restrict x, \
                            int64_t n)                                                                            \
    {                                                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                                         \
            int32_t j = c[i];                                                                                     \
            T xv = x[j < 0 ? 0 : j];                                                                              \
            acc[i] += j < 0 ? (T)0 : v[i] * xv;                                                                   \
        }                                                                                                         \
    }

RVS_ELL_GATHER(rvs_ell_gather_f64, double)
RVS_ELL_GATHER(rvs_ell_gather_f32, float)
RVS_ELL_GATHER(rvs_ell_gather_c128, rvs_cd)
RVS_ELL_GATHER(rvs_ell_gather_c64, rvs_cf)

/* Rows per block of the column-major ELL kernels (ELL, ELLR): acc fits in L1. */
#define RVS_ELL_BLOCK 512

/* y = A*x over a column-major ELL block: slot k of row r at k * ld + r. With rl, a block of
 * rows runs only to its longest row (ELLR); without, to width (ELL). */
#define RVS_ELL_COLUMN_KERNEL(NAME, T, GATHER)                                                                     \
    static void NAME(int64_t rows, int64_t ld, int64_t width, const int32_t *col, const T *val, const int32_t *rl, \
                     const T *x, T *y)                                                                             \
    {                                                                                                              \
        int64_t nb = (rows + RVS_ELL_BLOCK - 1) / RVS_ELL_BLOCK;                                                   \
        _Pragma("omp parallel for schedule(static)") for (int64_t b = 0; b < nb; b++)                              \
        {                                                                                                          \
            int64_t r0 = b * RVS_ELL_BLOCK, n = rows - r0 < RVS_ELL_BLOCK ? rows - r0 : RVS_ELL_BLOCK;             \
            int64_t w = rl ? 0 : width;                                                                            \
            T acc[RVS_ELL_BLOCK];                                                                                  \
            for (int64_t i = 0; i < n; i++)                                                                        \
                acc[i] = 0;                                                                                        \
            for (int64_t i = 0; rl && i < n; i++)                                                                  \
                w = rl[r0 + i] > w ? rl[r0 + i] : w;                                                               \
            for (int64_t k = 0; k < w; k++)                                                                        \
                GATHER(acc, col + k * ld + r0, val + k * ld + r0, x, n);                                           \
            for (int64_t i = 0; i < n; i++)                                                                        \
                y[r0 + i] = acc[i];                                                                                \
        }                                                                                                          \
    }

#endif

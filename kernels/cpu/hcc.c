/* hcc.c - CPU SpMV in HCC (scale-free-hcc.txt §III-IV): y zeroed, then panel by panel, the
 * blocks of a panel in parallel. A block runs through its 32-slot segments: products in a
 * vectorisable loop; a segment without an end-of-row bit only adds to the running row sum; a
 * segment with one gets a segmented inclusive prefix sum (five masked vector additions,
 * log2 32, the paper's Fig. 7 with bit fields as masks) and its end-of-row lanes go to y. The
 * first and last piece of a block may be shared with a neighbouring block: added atomically. */
#include "rvs_cpu.h"

#define S 32

#define HCC_KERNEL(NAME, T)                                                                   \
    static void NAME(const rvs_fmt *F, const T *x, T *y)                                      \
    {                                                                                         \
        int64_t np = F->param[0], nb = F->param[1], ncross = F->param[4];                     \
        const int64_t *bseg = rvs_fmt_array(F, "bseg")->data;                                 \
        const int64_t *seg_ptr = rvs_fmt_array(F, "seg_ptr")->data;                           \
        const int64_t *eor_rp = rvs_fmt_array(F, "eor_rp")->data;                            \
        const uint32_t *eor = rvs_fmt_array(F, "eor")->data;                                  \
        const int32_t *row_idx = rvs_fmt_array(F, "row_idx")->data;                           \
        const int32_t *col = rvs_fmt_array(F, "col")->data;                                   \
        const T *val = rvs_fmt_array(F, "val")->data;                                         \
        _Pragma("omp parallel for schedule(static)")                                          \
        for (int64_t i = 0; i < F->rows; i++)                                                 \
            y[i] = 0;                                                                         \
        for (int64_t p = 0; p < np; p++) {                                                    \
            _Pragma("omp parallel for schedule(dynamic, 1)")                                  \
            for (int64_t b = p * nb; b < (p + 1) * nb; b++) {                                 \
                int64_t sidx = rvs_lower_bound_i64(seg_ptr, ncross, bseg[b]);                     \
                int64_t ridx = eor_rp[sidx];                                                  \
                int64_t rfirst = ridx, rlast = eor_rp[rvs_lower_bound_i64(seg_ptr, ncross, bseg[b + 1])] - 1; \
                T carry = 0;                                                                  \
                for (int64_t s = bseg[b]; s < bseg[b + 1]; s++) {                             \
                    T v[S];                                                                   \
                    const int32_t *c = col + s * S;                                           \
                    const T *a = val + s * S;                                                 \
                    _Pragma("omp simd")                                                       \
                    for (int l = 0; l < S; l++)                                               \
                        v[l] = a[l] * x[c[l]];                                                \
                    if (sidx >= ncross || seg_ptr[sidx] != s) {                               \
                        T sum = 0;                                                            \
                        _Pragma("omp simd reduction(+ : sum)")                                \
                        for (int l = 0; l < S; l++)                                           \
                            sum += v[l];                                                      \
                        carry += sum;                                                         \
                        continue;                                                             \
                    }                                                                         \
                    uint32_t w = eor[sidx++];                                                 \
                    uint32_t head = (w << 1) | 1u;                                            \
                    v[0] += carry;                                                            \
                    for (int d = 1; d < S; d *= 2) {                                          \
                        T t[S];                                                               \
                        _Pragma("omp simd")                                                   \
                        for (int l = 0; l < S; l++)                                           \
                            t[l] = v[l];                                                      \
                        _Pragma("omp simd")                                                   \
                        for (int l = d; l < S; l++)                                           \
                            v[l] = (head >> l) & 1u ? t[l] : t[l] + t[l - d];                 \
                        head |= head << d;                                                    \
                    }                                                                         \
                    for (uint32_t m = w; m; m &= m - 1) {                                     \
                        int l = __builtin_ctz(m);                                             \
                        int32_t r = row_idx[ridx];                                            \
                        if (ridx == rfirst || ridx == rlast) {                                \
                            _Pragma("omp atomic")                                             \
                            y[r] += v[l];                                                     \
                        } else {                                                              \
                            y[r] += v[l];                                                     \
                        }                                                                     \
                        ridx++;                                                               \
                    }                                                                         \
                    carry = (w >> (S - 1)) & 1u ? 0 : v[S - 1];                               \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

HCC_KERNEL(hcc_f64, double)
HCC_KERNEL(hcc_f32, float)

/* y = A*x, A in HCC. */
void rvs_cpu_spmv_hcc(const rvs_fmt *F, const void *x, void *y)
{
    if (F->vtype == RVS_F64)
        hcc_f64(F, x, y);
    else
        hcc_f32(F, x, y);
}

/* hcc.c - CPU SpMV in HCC (libformat/fmt_hcc.c): blocks in parallel, each adding its products
 * into a block-local y (the rows of the block), which is then stored; the pieces of a split row
 * add into y atomically after the split rows were zeroed. Also the mixed-precision form (f32
 * values, f64 x and y, f64 sums). */
#include "rvs_cpu.h"
#include "cpu_values.h"

#define HCC_S 32
#define HCC_CB 20
#define HCC_CMASK ((1u << HCC_CB) - 1u)
#define HCC_PAD 0xFFFFFFFFu
#define HCC_RMAX 4095

/* NAME(F, x, y): y = F*x with values of type TV and x, y, sums of type TX. */
#define HCC_KERNEL(NAME, TV, TX, ATOMIC_ADD)                                               \
    static void NAME(const rvs_fmt *F, const TX *x, TX *y)                                 \
    {                                                                                      \
        const int64_t nblk = F->param[1], nsplit = F->param[4];                            \
        const int64_t *brow = rvs_fmt_array(F, "brow")->data;                              \
        const int64_t *bseg = rvs_fmt_array(F, "bseg")->data;                              \
        const int64_t *srow = rvs_fmt_array(F, "srow")->data;                              \
        const int32_t *bnr = rvs_fmt_array(F, "bnr")->data;                                \
        const int32_t *sbase = rvs_fmt_array(F, "sbase")->data;                            \
        const uint32_t *word = rvs_fmt_array(F, "word")->data;                             \
        const TV *val = rvs_fmt_array(F, "val")->data;                                     \
        for (int64_t k = 0; k < nsplit; k++)                                               \
            y[srow[k]] = 0;                                                                \
        _Pragma("omp parallel")                                                            \
        {                                                                                  \
            TX ys[HCC_RMAX];                                                               \
            _Pragma("omp for schedule(dynamic, 8)") for (int64_t b = 0; b < nblk; b++)     \
            {                                                                              \
                int32_t nr = bnr[b] < 0 ? 1 : bnr[b];                                      \
                for (int32_t i = 0; i < nr; i++)                                           \
                    ys[i] = 0;                                                             \
                for (int64_t s = bseg[b]; s < bseg[b + 1]; s++) {                          \
                    if (sbase[s] < 0) { /* one row, plain columns */                       \
                        TX t = 0;                                                          \
                        for (int64_t q = s * HCC_S; q < (s + 1) * HCC_S; q++)              \
                            if (word[q] != HCC_PAD)                                        \
                                t += (TX)val[q] * x[word[q]];                              \
                        ys[-1 - sbase[s]] += t;                                            \
                        continue;                                                          \
                    }                                                                      \
                    const TX *xs = x + sbase[s];                                           \
                    for (int64_t q = s * HCC_S; q < (s + 1) * HCC_S; q++)                  \
                        if (word[q] != HCC_PAD)                                            \
                            ys[word[q] >> HCC_CB] += (TX)val[q] * xs[word[q] & HCC_CMASK]; \
                }                                                                          \
                if (bnr[b] < 0) {                                                          \
                    ATOMIC_ADD(&y[brow[b]], ys[0]);                                        \
                } else {                                                                   \
                    for (int32_t i = 0; i < nr; i++)                                       \
                        y[brow[b] + i] = ys[i];                                            \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }

HCC_KERNEL(hcc_f64, double, double, rvs_atomic_add_f64)
HCC_KERNEL(hcc_f32, float, float, rvs_atomic_add_f32)
HCC_KERNEL(hcc_c128, rvs_cd, rvs_cd, rvs_atomic_add_c128)
HCC_KERNEL(hcc_c64, rvs_cf, rvs_cf, rvs_atomic_add_c64)
HCC_KERNEL(hcc_mixed, float, double, rvs_atomic_add_f64)

/* y = A*x, A in HCC. */
void rvs_cpu_spmv_hcc(const rvs_fmt *F, const void *x, void *y)
{
    RVS_CPU_BY_VTYPE(F->vtype, hcc, F, x, y);
}

/* y = A*x with A's f32 values and f64 x, y and sums. */
void rvs_cpu_spmv_hcc_mixed(const rvs_fmt *F, const double *x, double *y)
{
    hcc_mixed(F, x, y);
}

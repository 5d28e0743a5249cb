/* jad.c - CPU SpMV in JAD: blocks of sorted rows walk the diagonals that reach them */
#include "rvs_cpu.h"
#include "cpu_values.h"

#define JAD_BLOCK 512

#define JAD_KERNEL(NAME, T)                                                                                      \
    static void NAME(int64_t rows, int64_t ndiag, const int32_t *perm, const int64_t *jdptr, const int32_t *col, \
                     const T *val, const T *x, T *y)                                                             \
    {                                                                                                            \
        int64_t nb = (rows + JAD_BLOCK - 1) / JAD_BLOCK;                                                         \
        _Pragma("omp parallel for schedule(dynamic, 1)") for (int64_t b = 0; b < nb; b++)                        \
        {                                                                                                        \
            int64_t p0 = b * JAD_BLOCK, p1 = rows - p0 < JAD_BLOCK ? rows : p0 + JAD_BLOCK;                      \
            T acc[JAD_BLOCK];                                                                                    \
            for (int64_t p = 0; p < p1 - p0; p++)                                                                \
                acc[p] = 0;                                                                                      \
            for (int64_t d = 0; d < ndiag; d++) {                                                                \
                int64_t hi = jdptr[d + 1] - jdptr[d];                                                            \
                if (hi <= p0)                                                                                    \
                    break;                                                                                       \
                hi = hi < p1 ? hi : p1;                                                                          \
                const int32_t *restrict c = col + jdptr[d] + p0;                                                 \
                const T *restrict v = val + jdptr[d] + p0;                                                       \
                for (int64_t p = 0; p < hi - p0; p++)                                                            \
                    acc[p] += v[p] * x[c[p]];                                                                    \
            }                                                                                                    \
            for (int64_t p = p0; p < p1; p++)                                                                    \
                y[perm[p]] = acc[p - p0];                                                                        \
        }                                                                                                        \
    }

JAD_KERNEL(jad_f64, double)
JAD_KERNEL(jad_f32, float)
JAD_KERNEL(jad_c128, rvs_cd)
JAD_KERNEL(jad_c64, rvs_cf)

/* y = A*x, A a JAD block (fmt_jad.c). */
void rvs_cpu_spmv_jad(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *perm = rvs_fmt_array(F, "perm")->data, *col = rvs_fmt_array(F, "col")->data;
    const int64_t *jdptr = rvs_fmt_array(F, "jdptr")->data;
    const void *val = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, jad, F->rows, F->param[0], perm, jdptr, col, val, x, y);
}

/* dia.c - CPU SpMV in DIA: rows in chunks across threads; within a chunk, each diagonal is one
 * contiguous, vectorisable sweep over the rows whose column falls inside the matrix */
#include "cpu_parts.h"
#include "cpu_values.h"

#define DIA_CHUNK 1024

#define DIA_KERNEL(NAME, T)                                                                                   \
    static void NAME(int64_t rows, int64_t cols, int64_t ndiag, int64_t ld, const int32_t *off, const T *val, \
                     const T *x, T *y)                                                                        \
    {                                                                                                         \
        _Pragma("omp parallel for schedule(static)") for (int64_t lo = 0; lo < rows; lo += DIA_CHUNK)         \
        {                                                                                                     \
            int64_t hi = lo + DIA_CHUNK < rows ? lo + DIA_CHUNK : rows;                                       \
            for (int64_t i = lo; i < hi; i++)                                                                 \
                y[i] = 0;                                                                                     \
            for (int64_t k = 0; k < ndiag; k++) {                                                             \
                int64_t o = off[k];                                                                           \
                int64_t a = lo > -o ? lo : -o, b = hi < cols - o ? hi : cols - o;                             \
                const T *v = val + k * ld;                                                                    \
                const T *xs = x + o;                                                                          \
                _Pragma("omp simd") for (int64_t i = a; i < b; i++) y[i] += v[i] * xs[i];                     \
            }                                                                                                 \
        }                                                                                                     \
    }

DIA_KERNEL(dia_f64, double)
DIA_KERNEL(dia_f32, float)
DIA_KERNEL(dia_c128, rvs_cd)
DIA_KERNEL(dia_c64, rvs_cf)

/* y = DIA part of F times x. */
void rvs_cpu_dia_part(const rvs_fmt *F, int64_t ndiag, int64_t ld, const void *x, void *y)
{
    const int32_t *off = rvs_fmt_array(F, "offsets")->data;
    const void *val = rvs_fmt_array(F, "dia_val")->data;
    RVS_CPU_BY_VTYPE(F->vtype, dia, F->rows, F->cols, ndiag, ld, off, val, x, y);
}

/* y = A*x, A in DIA. */
void rvs_cpu_spmv_dia(const rvs_fmt *F, const void *x, void *y)
{
    rvs_cpu_dia_part(F, F->param[0], F->param[1], x, y);
}

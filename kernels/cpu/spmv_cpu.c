/* spmv_cpu.c - dispatch of CPU SpMV by format, and the bytes each format moves */
#include "rvs_cpu.h"

/* y = A*x on the CPU in F's format. */
rvs_status rvs_cpu_spmv(const rvs_fmt *F, const void *x, void *y, rvs_error *err)
{
    switch (F->id) {
    case RVS_FMT_CSR: rvs_cpu_spmv_csr(F, x, y); break;
    case RVS_FMT_COO: rvs_cpu_spmv_coo(F, x, y); break;
    case RVS_FMT_ELL: rvs_cpu_spmv_ell(F, x, y); break;
    case RVS_FMT_ELLR: rvs_cpu_spmv_ellr(F, x, y); break;
    case RVS_FMT_PELLR: rvs_cpu_spmv_pellr(F, x, y); break;
    case RVS_FMT_BIELL: rvs_cpu_spmv_biell(F, x, y); break;
    case RVS_FMT_JAD: rvs_cpu_spmv_jad(F, x, y); break;
    case RVS_FMT_HYB: rvs_cpu_spmv_hyb(F, x, y); break;
    case RVS_FMT_HYBDIA: rvs_cpu_spmv_hybdia(F, x, y); break;
    case RVS_FMT_DIA: rvs_cpu_spmv_dia(F, x, y); break;
    case RVS_FMT_HCC: rvs_cpu_spmv_hcc(F, x, y); break;
    default: return rvs_fail(err, RVS_ERR_ARG, "no CPU kernel for format id %d", (int)F->id);
    }
    return RVS_OK;
}

/* y = A*x with f32 values and f64 x, y and sums. */
rvs_status rvs_cpu_spmv_mixed(const rvs_fmt *F, const double *x, double *y, rvs_error *err)
{
    if (F->vtype != RVS_F32)
        return rvs_fail(err, RVS_ERR_ARG, "mixed precision needs a block with f32 values");
    switch (F->id) {
    case RVS_FMT_CSR: rvs_cpu_spmv_csr_mixed(F, x, y); break;
    case RVS_FMT_HCC: rvs_cpu_spmv_hcc_mixed(F, x, y); break;
    default:
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "no mixed-precision kernel for format %s (csr and hcc have one)",
                        rvs_format_lookup(F->id) ? rvs_format_lookup(F->id)->name : "?");
    }
    return RVS_OK;
}

/* Bytes moved: every array once, x once, y once. */
int64_t rvs_spmv_bytes(const rvs_fmt *F)
{
    int64_t b = 0;
    for (int i = 0; i < F->narrays; i++)
        b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
    size_t vs = rvs_vtype_size(F->vtype);
    return b + (F->cols + F->rows) * (int64_t)vs;
}

/* spmv_cpu.c - dispatch of CPU SpMV by format, and the bytes each format moves */
#include <string.h>
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

/* Bytes of F's array name (0 if absent). */
static int64_t array_bytes(const rvs_fmt *F, const char *name)
{
    const rvs_array *a = rvs_fmt_array(F, name);
    return a ? a->count * (int64_t)rvs_dtype_size(a->dtype) : 0;
}

/* ELLR: the slots its GPU kernel visits. Mirrors ellr_tpr() of kernels/gpu/ellr.cu: one lane
 * per row while rows are short (a thread takes 16 bytes of values, 2 or 4 rows, up to the
 * longest of them), else TPR lanes per row up to rl[r]. */
static int64_t ellr_slots(const rvs_fmt *F)
{
    const rvs_array *a = rvs_fmt_array(F, "rl");
    const int32_t *rl = a ? a->data : NULL;
    int64_t tpr = 1, slots = 0;
    const int n = 16 / (int)rvs_vtype_size(F->vtype);
    if (!rl)
        return 0;
    while (tpr < 32 && F->rows > 0 && F->nnz / F->rows >= 16 * tpr)
        tpr *= 2;
    while (tpr < 32 && F->param[0] > 256 * tpr)
        tpr *= 2;
    for (int64_t r = 0; r < F->rows; r += tpr == 1 ? n : 1) {
        int64_t m = rl[r];
        for (int j = 1; tpr == 1 && j < n && r + j < F->rows; j++)
            m = rl[r + j] > m ? rl[r + j] : m;
        slots += tpr == 1 ? m * n : m;
    }
    return slots;
}

/* Bytes the default GPU kernel of F's format reads from its arrays, plus x read once and y
 * written once: a lower bound of its memory traffic, so GB/s figures cannot be inflated. Padded
 * slot arrays count the slots the kernel visits: ELL, HYB's ELL part, DIA and HCC all of them;
 * ELLR up to rl (ellr_slots); PELLR, BiELL and HYB's ELL part every column slot but only the
 * real values (padding columns are read, their values are not). DIA's presence mask is for the CPU and to_csr only. */
int64_t rvs_spmv_bytes(const rvs_fmt *F)
{
    const int64_t vs = (int64_t)rvs_vtype_size(F->vtype), xy = (F->cols + F->rows) * vs;
    int64_t b = 0;
    switch (F->id) {
    case RVS_FMT_CSR: /* row pointers in 32 bits where the upload narrows them */
        return (F->rows + 1) * (rvs_csr_gpu_sorted(F->rows, F->nnz, F->vtype, F->param) ? 4 : 8) +
               F->nnz * (4 + vs) + xy;
    case RVS_FMT_ELLR: return array_bytes(F, "rl") + ellr_slots(F) * (4 + vs) + xy;
    case RVS_FMT_PELLR:
    case RVS_FMT_BIELL:
        for (int i = 0; i < F->narrays; i++)
            if (strcmp(F->array[i].name, "values") != 0)
                b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
        return b + F->nnz * vs + xy;
    case RVS_FMT_HYB: {
        const rvs_array *cv = rvs_fmt_array(F, "coo_val");
        for (int i = 0; i < F->narrays; i++)
            if (strcmp(F->array[i].name, "ell_val") != 0)
                b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
        return b + (F->nnz - (cv ? cv->count : 0)) * vs + xy;
    }
    case RVS_FMT_DIA:
    case RVS_FMT_HYBDIA:
        for (int i = 0; i < F->narrays; i++)
            if (strcmp(F->array[i].name, "dia_msk") != 0)
                b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
        return b + xy;
    default:
        for (int i = 0; i < F->narrays; i++)
            b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
        return b + xy;
    }
}

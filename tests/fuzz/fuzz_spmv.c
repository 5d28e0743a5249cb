/* fuzz_spmv.c - libFuzzer target: CPU SpMV over every format block of a stream that passed
 * validation, and over the hub and every part in CSR as spmv runs parts without a block; a
 * kernel must stay in bounds and agree with the block's own CSR */
#include <math.h>
#include "fuzz_common.h"
#include "rvs_cpu.h"

/* y against the reference ref of the same block: rows whose scale sum |a x| is far from
 * overflow agree to a relative 1e-6 (f64) or 1e-3 (f32); NaN/Inf rows by class (rvs.5). */
static void compare(const rvs_fmt *F, const double *y, const double *ref, const double *scale)
{
    int f32 = F->vtype == RVS_F32;
    double tol = f32 ? 1e-3 : 1e-6, top = f32 ? 1e37 : 1e300, floor = f32 ? 1e-30 : 1e-290;
    for (int64_t i = 0; i < F->rows; i++) {
        if (isfinite(ref[i]) && !(scale[i] <= top))
            continue; /* overflow may depend on the order of the sums */
        int same = !isfinite(ref[i]) ? (isnan(ref[i]) && isnan(y[i])) || y[i] == ref[i]
                                      : fabs(y[i] - ref[i]) <= tol * scale[i] + floor;
        if (!same)
            FUZZ_FINDING("format %d: row %lld: kernel %.17g, reference %.17g (scale %g)", (int)F->id,
                         (long long)i, y[i], ref[i], scale[i]);
    }
}

/* Run F's kernel into a NaN-poisoned y and compare it with F's own CSR. */
static void check_block(const rvs_fmt *F)
{
    rvs_csr C;
    rvs_error err;
    size_t vs = F->vtype == RVS_F32 ? 4 : 8;
    if ((double)F->cols + (double)F->rows > (double)(1 << 22))
        return; /* x and y of that size are the caller's to afford, not the kernel's to check */
    /* a block that validated converts back; if it cannot, that is a finding */
    rvs_status st = rvs_fmt_to_csr(&C, F, &err);
    if (st == RVS_ERR_NOMEM)
        return;
    if (st != RVS_OK)
        FUZZ_FINDING("format %d validated but does not convert to CSR: %s", (int)F->id, err.msg);
    void *x = malloc((size_t)F->cols * vs + 1), *y = malloc((size_t)F->rows * vs + 1);
    double *xd = malloc((size_t)F->cols * sizeof *xd + 1), *yd = malloc((size_t)F->rows * sizeof *yd + 1);
    double *ref = calloc((size_t)F->rows + 1, sizeof *ref), *scale = calloc((size_t)F->rows + 1, sizeof *scale);
    if (x && y && xd && yd && ref && scale) {
        for (int64_t j = 0; j < F->cols; j++) {
            xd[j] = 1.0 + (double)(j % 7) * 0.25;
            if (vs == 4)
                ((float *)x)[j] = (float)xd[j];
            else
                ((double *)x)[j] = xd[j];
        }
        memset(y, 0xff, (size_t)F->rows * vs); /* NaN */
        st = rvs_cpu_spmv(F, x, y, &err);
        if (st != RVS_OK)
            FUZZ_FINDING("format %d: kernel refused a validated block: %s", (int)F->id, err.msg);
        for (int64_t i = 0; i < F->rows; i++) {
            yd[i] = vs == 4 ? ((float *)y)[i] : ((double *)y)[i];
            for (int64_t p = C.rowptr[i]; p < C.rowptr[i + 1]; p++) {
                double a = rvs_csr_value(&C, p) * xd[rvs_csr_col(&C, p)];
                ref[i] += a;
                scale[i] += fabs(a);
            }
        }
        compare(F, yd, ref, scale);
    }
    free(x);
    free(y);
    free(xd);
    free(yd);
    free(ref);
    free(scale);
    rvs_csr_free(&C);
}

/* What spmv does for a part without a block: the part's rows (or the hub) in CSR, multiplied. */
static void check_part_csr(const rvs_stream *S, int part)
{
    rvs_csr C = {0};
    rvs_fmt F = {0};
    rvs_error err;
    rvs_status st = part < 0 ? rvs_csr_copy(&C, &S->A, &err)
                             : rvs_partition_extract(&C, &S->partition, part, &S->A, &err);
    if (st == RVS_OK && !C.colind64) {
        st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, NULL, &err);
        if (st != RVS_OK && st != RVS_ERR_NOMEM && st != RVS_ERR_OVERFLOW)
            FUZZ_FINDING("part %d of a validated stream does not build as CSR: %s", part, err.msg);
        if (st == RVS_OK)
            check_block(&F);
    }
    rvs_fmt_free(&F);
    rvs_csr_free(&C);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rvs_stream S;
    rvs_error err;
    rvs_status st = fuzz_read_stream(&S, data, size, &err);
    fuzz_check_error(st, &err);
    if (st != RVS_OK)
        return 0;
    for (int i = 0; i < S.nfmt; i++)
        check_block(&S.fmt[i].fmt);
    check_part_csr(&S, -1);
    for (int p = 0; S.has_partition && p < S.partition.k; p++)
        check_part_csr(&S, p);
    rvs_stream_free(&S);
    return 0;
}

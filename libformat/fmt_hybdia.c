/* fmt_hybdia.c - hybrid DIA + COO (HYB-DIA: Yang, Li and Li, "A hybrid computing
 * method of SpMV on CPU-GPU heterogeneous computing systems", J. Parallel Distrib. Comput., 2017,
 * Sec. 4.2).
 *
 * Layout (rows x cols, nnz stored entries, vt = F32 or F64 values):
 *   param[0] = ndiag  diagonals in the DIA part
 *   param[1] = ld     rows rounded up to a multiple of 32
 *   param[2] = ncoo   entries in the COO tail
 *   param[3] = values on the GPU: 0 the DIA part's slots coded into a table where they fit one,
 *                     1 as they are (build option dia_values; see fmt_dia.c)
 *   offsets I32[ndiag], dia_val vt[ld * ndiag], dia_msk U32[ceil(ld * ndiag / 32)]: the DIA part,
 *                     exactly as in fmt_dia.c (column-major, +0 in empty slots, presence mask)
 *   coo_row I32[ncoo], coo_col I32[ncoo], coo_val vt[ncoo]: every entry not on a stored
 *                     diagonal, sorted by row then column (as in fmt_hyb.c)
 * K (rvs_fmt_options.hyb_k) counts diagonals here - the paper's DIA data is N-by-K:
 *   K >= 0            the K diagonals holding the most entries (only diagonals holding one);
 *                     ties go to the smaller |offset|, then to the negative offset. With K = 2
 *                     the paper's example keeps offsets 0 (4 entries) and 1 (2 entries; offset
 *                     -2 also holds 2 but lies farther out), COO gets (3,1,6) and (4,2,5).
 *   RVS_HYB_K_THIRD   the one-third rule on diagonals: keep a diagonal when at least one third
 *                     of the rows have an entry on it (3 * count >= rows).
 *   RVS_HYB_K_AUTO    keep a diagonal when storing it is modelled cheaper than COO: its ld slots
 *                     move vs bytes each (value only, no index), its entries in COO would move
 *                     8 + 3 vs bytes each (row, column, value and the merged partial sum), so a
 *                     diagonal is kept when count * (8 + 3 vs) > ld * vs: count > ld / 4 (f64),
 *                     > ld / 5 (f32). DIA padding therefore stays below 4-5x its entries.
 * Only the absolute cap RVS_DIA_MAX_BYTES applies (RVS_ERR_OVERFLOW before allocating): the
 * ratio limit of DIA is for DIA alone, where nothing can spill to COO.
 * Stats: padded = ld * ndiag - (entries in DIA). */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"
#include "rvs_omp.h"

typedef struct {
    int64_t count;
    int32_t off;
} hybdia_diag;

/* Order for the fixed-K rule: more entries first, then smaller |offset|, then negative first. */
static int hybdia_rank(const void *a, const void *b)
{
    const hybdia_diag *x = a, *y = b;
    int64_t ax = x->off < 0 ? -(int64_t)x->off : x->off, ay = y->off < 0 ? -(int64_t)y->off : y->off;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (ax != ay)
        return ax < ay ? -1 : 1;
    return (x->off > y->off) - (x->off < y->off);
}

/* Ascending offsets. */
static int hybdia_by_offset(const void *a, const void *b)
{
    const hybdia_diag *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* 1 when diagonal j (cnt entries) is a candidate under option k: it holds an entry, and under
 * the one-third and modelled rules it passes the rule. */
static int hybdia_keeps(const rvs_csr *A, int64_t cnt, int64_t k, int64_t ld, double vs)
{
    if (cnt <= 0)
        return 0;
    if (k == RVS_HYB_K_THIRD)
        return 3 * cnt >= A->rows;
    if (k < 0)
        return (double)cnt * (8 + 3 * vs) > (double)ld * vs;
    return 1;
}

/* The diagonals of A kept under option k, sorted by offset, in *out (malloc'd, *ndiag of them).
 * Sized by the candidates, not by the rows + cols - 1 possible diagonals: a sample of scattered
 * rows holds its entries on millions of diagonals, few of them kept (16 bytes a possible
 * diagonal held a sample of the 200^3 stencil's pmf part 90 MiB over its build). */
static rvs_status hybdia_choose(const rvs_csr *A, const int64_t *cnt, int64_t k, hybdia_diag **out, int64_t *ndiag,
                                rvs_error *err)
{
    int64_t nd = A->rows + A->cols - 1, n = 0, ld = rvs_part_ld(A->rows);
    double vs = (double)rvs_vtype_size(A->vtype);
    for (int64_t j = 0; j < nd; j++)
        n += hybdia_keeps(A, cnt[j], k, ld, vs);
    hybdia_diag *d = *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!d)
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb-dia: no memory for %lld diagonals", (long long)n);
    n = 0;
    for (int64_t j = 0; j < nd; j++)
        if (hybdia_keeps(A, cnt[j], k, ld, vs)) {
            d[n].count = cnt[j];
            d[n].off = (int32_t)(j - (A->rows - 1));
            n++;
        }
    if (k >= 0 && n > k) {
        qsort(d, (size_t)n, sizeof *d, hybdia_rank);
        n = k;
    }
    qsort(d, (size_t)n, sizeof *d, hybdia_by_offset);
    *ndiag = n;
    return RVS_OK;
}

/* The diagonals counted: the ones kept (refused over the byte cap), F sized for them and the
 * COO tail of the rest. */
static rvs_status hybdia_sized(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void *state, rvs_error *err)
{
    rvs_dia_state *s = state;
    int64_t ndiag = 0, ld = rvs_part_ld(A->rows), ncoo = A->nnz;
    hybdia_diag *d = NULL;
    int32_t *off = NULL;
    rvs_status st = hybdia_choose(A, s->cnt, o ? o->hyb_k : RVS_HYB_K_AUTO, &d, &ndiag, err);
    if (st != RVS_OK)
        goto done;
    if (!(off = malloc((size_t)(ndiag > 0 ? ndiag : 1) * sizeof *off))) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hyb-dia: no memory for %lld diagonals", (long long)ndiag);
        goto done;
    }
    double bytes = (double)ld * (double)ndiag * ((double)rvs_vtype_size(A->vtype) + 0.125);
    if (bytes > (double)RVS_DIA_MAX_BYTES) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "hyb-dia: %lld diagonals would take %.3g GiB (limit %.3g GiB)",
                      (long long)ndiag, bytes / 1073741824.0, (double)RVS_DIA_MAX_BYTES / 1073741824.0);
        goto done;
    }
    if (o && o->admit_only)
        goto done;
    for (int64_t k = 0; k < ndiag; k++) {
        off[k] = d[k].off;
        ncoo -= d[k].count;
    }
    F->id = RVS_FMT_HYBDIA;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    F->param[0] = ndiag;
    F->param[1] = ld;
    F->param[2] = ncoo;
    F->param[3] = o ? o->dia_values : 0;
    if ((st = rvs_dia_part_add(F, s, off, ndiag, err)) == RVS_OK)
        st = rvs_coo_part_add(F, ncoo, err);
done:
    free(d);
    free(off);
    return st;
}

/* The window's entries on kept diagonals into the DIA part, the others appended to the COO tail. */
static rvs_status hybdia_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    uint8_t *in_dia = calloc((size_t)(w->W->nnz > 0 ? w->W->nnz : 1), 1);
    if (!in_dia)
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb-dia: no memory for %lld flags", (long long)w->W->nnz);
    rvs_dia_part_fill(F, w, in_dia);
    rvs_coo_part_fill(F, w, 0, in_dia, &((rvs_dia_state *)w->state)->coo_next);
    free(in_dia);
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_hybdia = {RVS_FMT_HYBDIA, 32,          NULL,        rvs_dia_shape, rvs_dia_scan, 1,
                                          hybdia_sized,   hybdia_fill, rvs_dia_done};

/* F = A split into the chosen diagonals and a COO tail. */
static rvs_status hybdia_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_hybdia, F, A, o, err);
}

/* A = F as CSR: per row, the DIA entries (ascending offsets) merged with the COO entries. */
static rvs_status hybdia_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    int64_t ndiag = F->param[0], ld = F->param[1], ncoo = F->param[2];
    const int32_t *off = rvs_fmt_array(F, "offsets")->data, *cc = rvs_fmt_array(F, "coo_col")->data;
    const uint32_t *msk = rvs_fmt_array(F, "dia_msk")->data;
    const char *dv = rvs_fmt_array(F, "dia_val")->data, *cv = rvs_fmt_array(F, "coo_val")->data;
    size_t vs = rvs_vtype_size(F->vtype);
    int64_t *first = malloc((size_t)(F->rows + 1) * sizeof *first);
    rvs_status st;
    if (!first)
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb-dia: no memory for row starts");
    if ((st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err)))
        goto done;
    rvs_coo_part_row_starts(F, ncoo, first);
#pragma omp parallel for schedule(static) if (F->rows * (ndiag + 1) > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < F->rows; i++) {
        int64_t n = first[i + 1] - first[i];
        for (int64_t k = 0; k < ndiag; k++)
            n += rvs_dia_present(msk, ld, k, i);
        A->rowptr[i + 1] = n;
    }
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(static) if (F->rows * (ndiag + 1) > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < F->rows; i++) {
        int64_t q = A->rowptr[i], k = 0, p = first[i];
        while (k < ndiag || p < first[i + 1]) {
            if (k < ndiag && !rvs_dia_present(msk, ld, k, i)) {
                k++;
                continue;
            }
            const char *src;
            if (p >= first[i + 1] || (k < ndiag && i + off[k] < cc[p])) {
                A->colind[q] = (int32_t)(i + off[k]);
                src = dv + (size_t)(k++ * ld + i) * vs;
            } else {
                A->colind[q] = cc[p];
                src = cv + (size_t)p++ * vs;
            }
            memcpy((char *)A->values + (size_t)q++ * vs, src, vs);
        }
    }
done:
    free(first);
    return st;
}

/* Check sizes, both parts, the entry count and that no COO entry sits on a stored slot. */
static rvs_status hybdia_validate(const rvs_fmt *F, rvs_error *err)
{
    int64_t ndiag = F->param[0], ld = F->param[1], ncoo = F->param[2], stored = 0;
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        !rvs_vtype_valid(F->vtype))
        return rvs_fail(err, RVS_ERR_FORMAT, "hyb-dia: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if (F->param[3] != 0 && F->param[3] != 1)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "hyb-dia: slot coding %lld is not 0 (a table where it fits) or 1 (none)",
                        (long long)F->param[3]);
    if ((st = rvs_dia_part_validate(F, ndiag, ld, &stored, "hyb-dia", err)) ||
        (st = rvs_coo_part_validate(F, ncoo, "hyb-dia", err)))
        return st;
    if (stored + ncoo != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "hyb-dia: %lld DIA + %lld COO entries, nnz says %lld",
                        (long long)stored, (long long)ncoo, (long long)F->nnz);
    const int32_t *off = rvs_fmt_array(F, "offsets")->data, *r = rvs_fmt_array(F, "coo_row")->data,
                  *c = rvs_fmt_array(F, "coo_col")->data;
    const uint32_t *msk = rvs_fmt_array(F, "dia_msk")->data;
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (ncoo > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < ncoo; p++) {
        int64_t o = (int64_t)c[p] - r[p], lo = 0, hi = ndiag;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (off[mid] < o)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ndiag && off[lo] == o && rvs_dia_present(msk, ld, lo, r[p]))
            bad = p > bad ? p : bad;
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "hyb-dia: COO entry %lld (%d, %d) duplicates a DIA entry",
                        (long long)bad, r[bad], c[bad]);
    return RVS_OK;
}

/* Bytes of both parts; padding of the DIA part. */
static void hybdia_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    int64_t slots = F->param[0] * F->param[1], ncoo = F->param[2], vs = (int64_t)rvs_vtype_size(F->vtype);
    s->bytes = F->param[0] * 4 + slots * vs + (slots + 31) / 32 * 4 + ncoo * (8 + vs);
    s->padded = slots - (F->nnz - ncoo);
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_hybdia = {
    RVS_FMT_HYBDIA, "hyb-dia", hybdia_from_csr, hybdia_to_csr, hybdia_validate, hybdia_stats, NULL};

/* fmt_dia.c - diagonal format (DIA), and the DIA part shared with HYB-DIA.
 *
 * Layout (rows x cols, nnz stored entries, vt = F32 or F64 values):
 *   param[0] = ndiag   number of stored diagonals
 *   param[1] = ld      leading dimension: rows rounded up to a multiple of 32
 *   param[2] = values  on the GPU: 0 the slots coded into a table where they hold at most
 *                      RVS_DICT_MAX distinct values (rvs_fmt_gpu_coded), 1 as they are
 *                      (build option dia_values)
 *   offsets  I32[ndiag]        diagonal offsets c - r, strictly increasing, each in
 *                              [-(rows-1), cols-1]; only diagonals holding an entry are stored
 *   dia_val  vt[ld * ndiag]    column-major: slot k*ld + i holds A(i, i + offsets[k]); slots
 *                              with no entry (column outside [0, cols), i >= rows, or simply no
 *                              entry there) hold +0
 *   dia_msk  U32[ceil(ld * ndiag / 32)]  bit (s & 31) of word s >> 5 is set iff slot s holds a
 *                              stored entry. It makes explicit zeros round-trip exactly (nnz
 *                              counts them); kernels ignore it and multiply the +0 slots, so,
 *                              as in every DIA code, an Inf/NaN in x reaches y through an
 *                              empty slot of a stored diagonal.
 * Limit: conversion is refused with RVS_ERR_OVERFLOW, before anything is allocated in F, when
 * the padded slots rows * ndiag - nnz exceed dia_max_ratio * nnz (default 10), or when the
 * DIA arrays would exceed RVS_DIA_MAX_BYTES (16 GiB).
 * Stats: padded = ld * ndiag - nnz (the 32-row rounding included). */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"
#include "fmt_values.h"
#include "rvs_omp.h"

/* Rows rounded up to 32. */
int64_t rvs_part_ld(int64_t rows)
{
    return (rows + 31) / 32 * 32;
}

/* Value dtype of a vtype. */
rvs_dtype rvs_part_vdtype(rvs_vtype vt)
{
    return rvs_value_dtype(vt);
}

rvs_status rvs_dia_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    const int64_t n = A->rows + A->cols - 1;
    const char *name = rvs_format_lookup(F->id)->name;
    rvs_dia_state *s;
    (void)o;
    if (A->colind64 || A->rows > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "%s: %lld x %lld does not fit 32-bit offsets", name,
                        (long long)A->rows, (long long)A->cols);
    if (!(*state = s = calloc(1, sizeof *s)) || !(s->cnt = calloc((size_t)(n > 0 ? n : 1), sizeof *s->cnt)))
        return rvs_fail(err, RVS_ERR_NOMEM, "%s: no memory for %lld diagonal counts", name, (long long)n);
    return RVS_OK;
}

/* Count the window's entries per diagonal. */
rvs_status rvs_dia_scan(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const rvs_csr *W = w->W;
    int64_t *cnt = ((rvs_dia_state *)w->state)->cnt;
    const int64_t shift = w->L->rows - 1 - w->first; /* row first + i's offsets from column - i */
    (void)F;
    (void)err;
    for (int64_t i = 0; i < W->rows; i++)
        for (int64_t p = W->rowptr[i]; p < W->rowptr[i + 1]; p++)
            cnt[W->colind[p] - i + shift]++;
    return RVS_OK;
}

void rvs_dia_done(void *state)
{
    rvs_dia_state *s = state;
    if (!s)
        return;
    free(s->cnt);
    free(s->slot_of);
    free(s);
}

rvs_status rvs_dia_part_add(rvs_fmt *F, rvs_dia_state *s, const int32_t *off, int64_t ndiag, rvs_error *err)
{
    const int64_t ld = rvs_part_ld(F->rows), nd = F->rows + F->cols - 1;
    int32_t *offs;
    rvs_status st;
    /* values and mask unset: the fill clears each group of 32 rows before it places their entries */
    if ((st = rvs_fmt_add_array(F, "offsets", RVS_DT_I32, ndiag, (void **)&offs, err)) ||
        (st = rvs_fmt_add_array_unset(F, "dia_val", rvs_part_vdtype(F->vtype), ld * ndiag, NULL, err)) ||
        (st = rvs_fmt_add_array_unset(F, "dia_msk", RVS_DT_U32, (ld * ndiag + 31) / 32, NULL, err)))
        return st;
    free(s->cnt); /* counted and chosen: the fill needs only the map (8 bytes a possible diagonal less) */
    s->cnt = NULL;
    if (!(s->slot_of = malloc((size_t)(nd > 0 ? nd : 1) * sizeof *s->slot_of)))
        return rvs_fail(err, RVS_ERR_NOMEM, "dia: no memory for the diagonal map");
    for (int64_t d = 0; d < nd; d++)
        s->slot_of[d] = -1;
    for (int64_t k = 0; k < ndiag; k++) {
        offs[k] = off[k];
        s->slot_of[off[k] + F->rows - 1] = (int32_t)k;
    }
    return RVS_OK;
}

void rvs_dia_part_fill(rvs_fmt *F, const rvs_window *w, uint8_t *in_dia)
{
    const rvs_csr *W = w->W;
    const int32_t *slot_of = ((const rvs_dia_state *)w->state)->slot_of;
    const int64_t ld = F->param[1], ndiag = F->param[0], end = w->first + W->rows;
    uint32_t *msk = rvs_fmt_array(F, "dia_msk")->data;
    char *val = rvs_fmt_array(F, "dia_val")->data;
    const size_t vs = rvs_vtype_size(W->vtype);
    /* 32 consecutive rows share the mask words of each diagonal: one group per iteration (the
     * window starts at a group; the last one's runs to ld), its slots cleared first */
    const int64_t gend = end < F->rows ? end / 32 : ld / 32;
#pragma omp parallel for schedule(dynamic, 16) if ((gend - w->first / 32) * 32 > RVS_OMP_MIN_WORK)
    for (int64_t g = w->first / 32; g < gend; g++) {
        int64_t hi = g * 32 + 32 < end ? g * 32 + 32 : end;
        for (int64_t k = 0; k < ndiag; k++) {
            memset(val + (size_t)(k * ld + g * 32) * vs, 0, 32 * vs);
            msk[(k * ld + g * 32) >> 5] = 0;
        }
        for (int64_t i = g * 32; i < hi; i++)
            for (int64_t p = W->rowptr[i - w->first]; p < W->rowptr[i - w->first + 1]; p++) {
                int32_t k = slot_of[W->colind[p] - i + F->rows - 1];
                if (k < 0)
                    continue;
                int64_t s = k * ld + i;
                memcpy(val + (size_t)s * vs, (const char *)W->values + (size_t)p * vs, vs);
                msk[s >> 5] |= 1u << (s & 31);
                if (in_dia)
                    in_dia[p] = 1;
            }
    }
}

/* Check the DIA part of F. */
rvs_status rvs_dia_part_validate(const rvs_fmt *F, int64_t ndiag, int64_t ld, int64_t *stored, const char *name,
                                 rvs_error *err)
{
    const rvs_array *oa, *va, *ma;
    rvs_status st;
    if (ld != rvs_part_ld(F->rows) || ndiag < 0 || ndiag > (F->rows && F->cols ? F->rows + F->cols - 1 : 0))
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: bad DIA shape: %lld diagonals, ld %lld for %lld x %lld", name,
                        (long long)ndiag, (long long)ld, (long long)F->rows, (long long)F->cols);
    if (ndiag > 0 && ld > (INT64_MAX / 8) / ndiag)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "%s: %lld diagonals of %lld slots overflow", name, (long long)ndiag,
                        (long long)ld);
    if ((st = rvs_fmt_require(F, "offsets", RVS_DT_I32, ndiag, &oa, err)) ||
        (st = rvs_fmt_require(F, "dia_val", rvs_part_vdtype(F->vtype), ld * ndiag, &va, err)) ||
        (st = rvs_fmt_require(F, "dia_msk", RVS_DT_U32, (ld * ndiag + 31) / 32, &ma, err)))
        return st;
    const int32_t *off = oa->data;
    const uint32_t *msk = ma->data;
    for (int64_t k = 0; k < ndiag; k++)
        if (off[k] < -(F->rows - 1) || off[k] > F->cols - 1 || (k > 0 && off[k] <= off[k - 1]))
            return rvs_fail(err, RVS_ERR_RANGE, "%s: diagonal %lld offset %d out of range or out of order", name,
                            (long long)k, off[k]);
    int64_t bad = -1, count = 0;
#pragma omp parallel for reduction(max : bad) reduction(+ : count) if (ndiag * ld > RVS_OMP_MIN_WORK)
    for (int64_t k = 0; k < ndiag; k++)
        for (int64_t i = 0; i < ld; i++) {
            int64_t s = k * ld + i, c = i + off[k];
            int inside = i < F->rows && c >= 0 && c < F->cols;
            int here = rvs_dia_present(msk, ld, k, i);
            count += here;
            if ((here && !inside) || (!here && !rvs_val_is_zero(va->data, s, F->vtype)))
                bad = s > bad ? s : bad;
        }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: slot %lld (row %lld, diagonal %lld) is padding but %s", name,
                        (long long)bad, (long long)(bad % ld) + 1, (long long)(bad / ld) + 1,
                        rvs_dia_present(msk, ld, bad / ld, bad % ld) ? "marked present" : "not zero");
    *stored = count;
    return RVS_OK;
}

/* The diagonals counted: refused when padding exceeds the limit, else F sized to hold them. */
static rvs_status dia_sized(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void *state, rvs_error *err)
{
    rvs_dia_state *s = state;
    int64_t ndiag = 0, nd = A->rows + A->cols - 1;
    int32_t *off = NULL;
    rvs_status st = RVS_OK;
    for (int64_t d = 0; d < nd; d++)
        ndiag += s->cnt[d] > 0;
    int64_t ratio = o && o->dia_max_ratio > 0 ? o->dia_max_ratio : RVS_DIA_DEFAULT_RATIO;
    int64_t ld = rvs_part_ld(A->rows);
    double slots = (double)A->rows * (double)ndiag;
    double bytes = (double)ld * (double)ndiag * ((double)rvs_vtype_size(A->vtype) + 0.125);
    if (slots - (double)A->nnz > (double)ratio * (double)A->nnz || bytes > (double)RVS_DIA_MAX_BYTES)
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "dia: %lld diagonals would store %.2g slots for %.2g non-zeros (limit %lldx, %.3g GiB)",
                        (long long)ndiag, slots, (double)A->nnz, (long long)ratio,
                        (double)RVS_DIA_MAX_BYTES / 1073741824.0);
    if (o && o->admit_only)
        return RVS_OK;
    off = malloc((size_t)(ndiag > 0 ? ndiag : 1) * sizeof *off);
    if (!off)
        return rvs_fail(err, RVS_ERR_NOMEM, "dia: no memory for %lld offsets", (long long)ndiag);
    ndiag = 0;
    for (int64_t d = 0; d < nd; d++)
        if (s->cnt[d] > 0)
            off[ndiag++] = (int32_t)(d - (A->rows - 1));
    F->id = RVS_FMT_DIA;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    F->param[0] = ndiag;
    F->param[1] = ld;
    F->param[2] = o ? o->dia_values : 0;
    st = rvs_dia_part_add(F, s, off, ndiag, err);
    free(off);
    return st;
}

static rvs_status dia_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    (void)err;
    rvs_dia_part_fill(F, w, NULL);
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_dia = {RVS_FMT_DIA, 32,        NULL,     rvs_dia_shape, rvs_dia_scan,
                                       1,           dia_sized, dia_fill, rvs_dia_done};

/* F = A in DIA, refused before allocating when padding exceeds the limit. */
static rvs_status dia_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_dia, F, A, o, err);
}

/* A = F as CSR: present slots of each row in offset order (so columns ascend). */
static rvs_status dia_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    int64_t ndiag = F->param[0], ld = F->param[1];
    const int32_t *off = rvs_fmt_array(F, "offsets")->data;
    const uint32_t *msk = rvs_fmt_array(F, "dia_msk")->data;
    const char *val = rvs_fmt_array(F, "dia_val")->data;
    size_t vs = rvs_vtype_size(F->vtype);
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
#pragma omp parallel for schedule(static) if (F->rows * ndiag > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < F->rows; i++) {
        int64_t n = 0;
        for (int64_t k = 0; k < ndiag; k++)
            n += rvs_dia_present(msk, ld, k, i);
        A->rowptr[i + 1] = n;
    }
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(static) if (F->rows * ndiag > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < F->rows; i++) {
        int64_t q = A->rowptr[i];
        for (int64_t k = 0; k < ndiag; k++)
            if (rvs_dia_present(msk, ld, k, i)) {
                A->colind[q] = (int32_t)(i + off[k]);
                memcpy((char *)A->values + (size_t)q * vs, val + (size_t)(k * ld + i) * vs, vs);
                q++;
            }
    }
    return RVS_OK;
}

/* Check sizes, the DIA part and that the mask counts nnz entries. */
static rvs_status dia_validate(const rvs_fmt *F, rvs_error *err)
{
    int64_t stored = 0;
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        !rvs_vtype_valid(F->vtype))
        return rvs_fail(err, RVS_ERR_FORMAT, "dia: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if (F->param[2] != 0 && F->param[2] != 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "dia: slot coding %lld is not 0 (a table where it fits) or 1 (none)",
                        (long long)F->param[2]);
    if ((st = rvs_dia_part_validate(F, F->param[0], F->param[1], &stored, "dia", err)))
        return st;
    if (stored != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "dia: mask holds %lld entries, nnz says %lld", (long long)stored,
                        (long long)F->nnz);
    return RVS_OK;
}

/* Bytes of offsets, values and mask; padding = slots not holding an entry. */
static void dia_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    int64_t slots = F->param[0] * F->param[1];
    s->bytes = F->param[0] * 4 + slots * (int64_t)rvs_vtype_size(F->vtype) + (slots + 31) / 32 * 4;
    s->padded = slots - F->nnz;
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_dia = {RVS_FMT_DIA, "dia", dia_from_csr, dia_to_csr, dia_validate, dia_stats, NULL};

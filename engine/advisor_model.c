/* advisor_model.c - the byte model of the format advisor: what one SpMV in a format moves
 * (its arrays once, x and y once), predicted from the row lengths and the diagonals of a
 * part before anything is built, so that hopeless formats (ELL padding to one long row, DIA
 * over scattered diagonals) are refused without building them */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"

/* Row lengths of R, descending (counting sort over the lengths). */
static int64_t *lengths_desc(const rvs_row_list *R, int64_t *maxlen)
{
    int64_t n = R->nrows, mx = 0;
    for (int64_t i = 0; i < n; i++)
        if (rvs_row_list_len(R, i) > mx)
            mx = rvs_row_list_len(R, i);
    *maxlen = mx;
    int64_t *count = calloc((size_t)mx + 2, sizeof *count), *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    if (!count || !out) {
        free(count);
        free(out);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        count[rvs_row_list_len(R, i)]++;
    int64_t p = 0;
    for (int64_t k = mx; k >= 0; k--)
        for (int64_t c = 0; c < count[k]; c++)
            out[p++] = k;
    free(count);
    return out;
}

/* Entries per diagonal offset (col - row, row R's own i), descending, nonzero ones only; *nd
 * their number. */
static int64_t *diagonals_desc(const rvs_row_list *R, int64_t *nd)
{
    const rvs_csr *A = R->A;
    int64_t span = R->nrows + A->cols, n = 0;
    int64_t *count = calloc((size_t)(span ? span : 1), sizeof *count);
    if (!count)
        return NULL;
    for (int64_t i = 0; i < R->nrows; i++) {
        const int64_t r = rvs_row_list_row(R, i);
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
            count[rvs_csr_col(A, p) - i + R->nrows]++;
    }
    for (int64_t d = 0; d < span; d++)
        if (count[d])
            count[n++] = count[d];
    /* descending: few distinct diagonals in the matrices where it matters, so insertion is
     * fine there; elsewhere DIA is refused by its count before this order is used */
    if (n <= 4096)
        for (int64_t a = 1; a < n; a++)
            for (int64_t b = a; b > 0 && count[b] > count[b - 1]; b--) {
                int64_t t = count[b];
                count[b] = count[b - 1];
                count[b - 1] = t;
            }
    *nd = n;
    return count;
}

/* Slots of an ELL with rows sorted by length in slices of 32 (PELLR, BiELL's bound). */
static double sliced_slots(const int64_t *len, int64_t rows)
{
    double slots = 0;
    for (int64_t p = 0; p < rows; p += 32)
        slots += 32.0 * (double)len[p];
    return slots;
}

/* HYB: the K (0..maxlen) that minimises ELL slots * (4 + vs) + COO entries * (8 + vs). */
static double hyb_bytes(const int64_t *len, int64_t rows, int64_t maxlen, int64_t nnz, double vs)
{
    double best = (double)nnz * (8 + vs);
    int64_t over = rows; /* rows longer than K, for K rising from 0: len is descending */
    double coo = (double)nnz;
    for (int64_t K = 1; K <= maxlen && K <= 4096; K++) {
        while (over > 0 && len[over - 1] < K)
            over--;
        coo -= (double)over; /* every row with length >= K moves one entry into the ELL part */
        double b = (double)((rows + 31) / 32 * 32) * (double)K * (4 + vs) + coo * (8 + vs);
        if (b < best)
            best = b;
    }
    return best;
}

/* HYB-DIA: K fullest diagonals dense, the rest COO; the K that minimises bytes. */
static double hybdia_bytes(const int64_t *diag, int64_t nd, int64_t rows, int64_t nnz, double vs)
{
    double best = (double)nnz * (8 + vs), in = 0;
    for (int64_t K = 1; K <= nd && K <= 4096; K++) {
        in += (double)diag[K - 1];
        double b = (double)((rows + 31) / 32 * 32) * (double)K * vs + 4.0 * K + ((double)nnz - in) * (8 + vs);
        if (b < best)
            best = b;
    }
    return best;
}

double rvs_model_bytes(rvs_format_id id, const rvs_csr *S, rvs_vtype vt)
{
    rvs_row_list R;
    rvs_row_list_all(&R, S);
    return rvs_model_bytes_rows(id, &R, vt);
}

double rvs_model_bytes_rows(rvs_format_id id, const rvs_row_list *R, rvs_vtype vt)
{
    const double vs = (double)rvs_vtype_size(vt), rows = (double)R->nrows, nnz = (double)R->nnz;
    const double ld = (double)((R->nrows + 31) / 32 * 32), xy = ((double)R->A->cols + rows) * vs;
    int64_t maxlen = 0, nd = 0;
    int64_t *len = NULL, *diag = NULL;
    double b = -1;
    switch (id) {
    case RVS_FMT_CSR: b = 8 * (rows + 1) + nnz * (4 + vs); break;
    case RVS_FMT_COO: b = nnz * (8 + vs); break;
    case RVS_FMT_HCC: b = nnz * (4 + vs) * 1.05 + 4 * rows; break;
    case RVS_FMT_ELL:
    case RVS_FMT_ELLR:
    case RVS_FMT_PELLR:
    case RVS_FMT_BIELL:
    case RVS_FMT_JAD:
    case RVS_FMT_HYB:
        if (!(len = lengths_desc(R, &maxlen)))
            return -1;
        if (id == RVS_FMT_ELL || id == RVS_FMT_ELLR)
            b = ld * (double)maxlen * (4 + vs) + (id == RVS_FMT_ELLR ? 4 * rows : 0);
        else if (id == RVS_FMT_JAD)
            b = nnz * (4 + vs) + 4 * rows + 8.0 * (double)maxlen;
        else if (id == RVS_FMT_HYB)
            b = hyb_bytes(len, R->nrows, maxlen, R->nnz, vs);
        else
            b = sliced_slots(len, R->nrows) * (4 + vs) + 4 * rows + 12 * (rows / 32 + 1);
        break;
    case RVS_FMT_DIA:
    case RVS_FMT_HYBDIA:
        if (!(diag = diagonals_desc(R, &nd)))
            return -1;
        if (id == RVS_FMT_DIA)
            b = (double)nd * ld * vs + 4.0 * (double)nd;
        else
            b = nd > 4096 ? nnz * (8 + vs) : hybdia_bytes(diag, nd, R->nrows, R->nnz, vs);
        break;
    default: return -1; /* a format the model does not know: the trial decides */
    }
    free(len);
    free(diag);
    return b + xy;
}

double rvs_model_bytes_features(rvs_format_id id, const rvs_features *F, int64_t cols, rvs_vtype vt)
{
    const double vs = (double)rvs_vtype_size(vt), rows = (double)F->rows, nnz = (double)F->nnz;
    const double xy = ((double)cols + rows) * vs, entry = 4 + vs;
    const double ld = (double)((F->rows + 31) / 32 * 32), pad = rows > 0 ? ld / rows : 1;
    const double ell = exp2(F->f[6]) * nnz * pad, sorted = exp2(F->f[8]) * nnz;
    const double nd = rows > 0 ? exp2(F->f[9]) * nnz / rows : 0, top = F->f[10];
    double b;
    switch (id) {
    case RVS_FMT_CSR: b = 8 * (rows + 1) + nnz * entry; break;
    case RVS_FMT_COO: b = nnz * (8 + vs); break;
    case RVS_FMT_HCC: b = nnz * entry * 1.05 + 4 * rows; break;
    case RVS_FMT_ELL: b = ell * entry; break;
    case RVS_FMT_ELLR: b = ell * entry + 4 * rows; break;
    case RVS_FMT_PELLR:
    case RVS_FMT_BIELL: b = sorted * entry + 4 * rows + 12 * (rows / 32 + 1); break;
    case RVS_FMT_JAD: b = nnz * entry + 4 * rows + 8.0 * (double)F->max_len; break;
    /* HYB: at least its COO part or its sorted slices, whichever is less */
    case RVS_FMT_HYB: b = fmin(nnz * (8 + vs), sorted * entry); break;
    case RVS_FMT_DIA: b = nd * ld * vs + 4 * nd; break;
    /* HYB-DIA: the sample's 32 fullest diagonals dense, the rest COO */
    case RVS_FMT_HYBDIA:
        b = fmin(nnz * (8 + vs), fmin(nd, 32) * ld * vs + 4 * fmin(nd, 32) + (1 - top) * nnz * (8 + vs));
        break;
    default: return -1;
    }
    return b + xy;
}

/* mpi_local.c - a rank's local stream: its rows, its columns numbered owned-first (the first
 * `rows` of them mirroring the rows). Its matrix keeps only the entries in columns < rows, so
 * that every part of the rank is a run of those rows holding all their entries, which the
 * engine reads in place (a CSR block borrows them; other formats are built from views that give
 * the rows back); the entries in the other columns (received ones, and owned columns past the
 * last row) move to a CSR of their own, H, while the rows are split, in the pages the split
 * gives back. At planning H becomes the received-column parts: one per device the rank's parts
 * run on, each of the entries-outside-the-diagonal class of Algorithm 4 (with one diagonal
 * block of all the rank's rows), so that the engine adds them after the owned ones (phase 1),
 * and each running from a block of its own (the local matrix does not hold those entries). */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

rvs_status rvs_mpi_sort_rows(rvs_csr *C, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(C->vtype);
    int64_t longest = 0;
    for (int64_t i = 0; i < C->rows; i++)
        longest = C->rowptr[i + 1] - C->rowptr[i] > longest ? C->rowptr[i + 1] - C->rowptr[i] : longest;
    int bad = 0;
#pragma omp parallel reduction(| : bad)
    {
        uint64_t *key = malloc((size_t)(longest + 1) * sizeof *key);
        char *val = malloc((size_t)(longest + 1) * vs);
        bad = !key || !val;
#pragma omp for schedule(dynamic, 4096)
        for (int64_t i = 0; i < C->rows; i++) {
            const int64_t a = C->rowptr[i], n = C->rowptr[i + 1] - a;
            int sorted = 1;
            for (int64_t k = 1; k < n && sorted; k++)
                sorted = C->colind[a + k - 1] < C->colind[a + k];
            if (sorted || bad)
                continue;
            for (int64_t k = 0; k < n; k++)
                key[k] = (uint64_t)(uint32_t)C->colind[a + k] << 32 | (uint64_t)k;
            if (n > 32) {
                qsort(key, (size_t)n, sizeof *key, cmp_u64);
            } else {
                for (int64_t k = 1; k < n; k++) { /* insertion sort for short rows */
                    const uint64_t v = key[k];
                    int64_t m = k;
                    for (; m > 0 && key[m - 1] > v; m--)
                        key[m] = key[m - 1];
                    key[m] = v;
                }
            }
            char *row = (char *)C->values + (size_t)a * vs;
            memcpy(val, row, (size_t)n * vs);
            for (int64_t k = 0; k < n; k++) {
                C->colind[a + k] = (int32_t)(key[k] >> 32);
                memcpy(row + (size_t)k * vs, val + (size_t)(key[k] & 0xffffffffu) * vs, vs);
            }
        }
        free(key);
        free(val);
    }
    return bad ? rvs_fail(err, RVS_ERR_NOMEM, "out of memory sorting rows") : RVS_OK;
}

/* Move the entries of C (rows sorted) in columns >= C->rows to M->H and M->far, and close the
 * gaps in C in place, in one pass over the rows: the pages between the entries kept so far and
 * those not read yet go back as it goes, so that C and H together hold about C's bytes. */
static rvs_status split_far(rvs_mpi_spmv *M, rvs_csr *C, rvs_error *err)
{
    const int64_t rows = C->rows, old_nnz = C->nnz;
    const size_t vs = rvs_vtype_size(C->vtype);
    int64_t nfar = 0, hnnz = 0;
#pragma omp parallel for schedule(static) reduction(+ : nfar, hnnz)
    for (int64_t i = 0; i < rows; i++) {
        int64_t s = C->rowptr[i + 1];
        while (s > C->rowptr[i] && C->colind[s - 1] >= rows)
            s--;
        nfar += s < C->rowptr[i + 1];
        hnnz += C->rowptr[i + 1] - s;
    }
    if (hnnz == 0)
        return RVS_OK;
    rvs_status st = rvs_csr_alloc(&M->H, nfar, C->cols, hnnz, C->vtype, err);
    if (st == RVS_OK && !(M->far = malloc((size_t)nfar * sizeof *M->far)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)nfar);
    if (st != RVS_OK)
        return st;
    rvs_csr *H = &M->H;
    char *cv = C->values, *hv = H->values;
    int64_t w = 0, k = 0, given = 0;
    H->rowptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t a = C->rowptr[i], b = C->rowptr[i + 1];
        int64_t s = b;
        while (s > a && C->colind[s - 1] >= rows)
            s--;
        if (s < b) {
            const int64_t h = H->rowptr[k];
            memcpy(H->colind + h, C->colind + s, (size_t)(b - s) * sizeof *C->colind);
            memcpy(hv + (size_t)h * vs, cv + (size_t)s * vs, (size_t)(b - s) * vs);
            M->far[k] = i;
            H->rowptr[++k] = h + b - s;
        }
        if (w != a) {
            memmove(C->colind + w, C->colind + a, (size_t)(s - a) * sizeof *C->colind);
            memmove(cv + (size_t)w * vs, cv + (size_t)a * vs, (size_t)(s - a) * vs);
        }
        C->rowptr[i] = w;
        w += s - a;
        if (b - given >= (int64_t)1 << 20 && b > w) { /* [w, b): moved or moved out, not yet rewritten */
            rvs_csr_release_entries(C, w, b);
            given = b;
        }
    }
    C->rowptr[rows] = w;
    rvs_csr_release_entries(C, w, old_nnz);
    C->nnz = w;
    return RVS_OK;
}

/* Append a part (device, power, class) of rows[0..n) (taken over) to the local partition. */
static void add_part(rvs_partition *P, rvs_device dev, double cp, rvs_entries cls, int64_t *rows, int64_t n)
{
    rvs_part *q = &P->parts[P->k++];
    memset(q, 0, sizeof *q);
    q->device = dev;
    q->cp = cp > 0 ? cp : 1;
    q->entries = cls;
    q->nrows = n;
    q->rows = rows;
}

rvs_status rvs_mpi_local_block(rvs_stream *L, int i, rvs_format_id id, rvs_error *err)
{
    rvs_csr X = {0};
    rvs_fmt_options fo;
    rvs_fmt_options_default(&fo);
    rvs_fmt_block *grown = realloc(L->fmt, ((size_t)L->nfmt + 1) * sizeof *grown);
    if (!grown)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    L->fmt = grown;
    memset(&grown[L->nfmt], 0, sizeof grown[L->nfmt]);
    int view;
    rvs_status st = rvs_partition_part_csr(&X, &view, &L->partition, i, &L->A, err);
    if (st == RVS_OK)
        st = rvs_fmt_from_csr(&grown[L->nfmt].fmt, id, &X, &fo, err);
    if (st == RVS_OK)
        grown[L->nfmt++].part = i;
    rvs_part_csr_free(&X, view);
    return st;
}

rvs_status rvs_mpi_local_stream(rvs_mpi_spmv *M, rvs_csr *C, rvs_error *err)
{
    rvs_stream *L = &M->L;
    rvs_partition *P = &L->partition;
    const int64_t rows = C->rows;
    memset(L, 0, sizeof *L);
    rvs_status st = rvs_mpi_sort_rows(C, err); /* the numbering mixes owned and received columns */
    if (st == RVS_OK)
        st = split_far(M, C, err);
    L->A = *C;
    memset(C, 0, sizeof *C);
    snprintf(L->name, sizeof L->name, "rank %d", M->rank);
    if (st != RVS_OK || M->nparts == 0)
        return st;
    int64_t *off = malloc(((size_t)M->nparts + 1) * sizeof *off);
    int *origin = malloc((size_t)M->nparts * sizeof *origin);
    /* room for the received-column parts rvs_mpi_halo_parts adds, one per device */
    P->parts = calloc((size_t)M->nparts + 2, sizeof *P->parts);
    st = off && origin && P->parts ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    P->alg = RVS_ALG_DIAG;
    P->block_size = rows > 0 ? rows : 1;
    L->has_partition = 1;
    for (int j = 0; off && j <= M->nparts; j++)
        off[j] = j ? off[j - 1] + M->part_rows[j - 1] : 0;
    /* GPU parts first, so that the first part is a GPU part when there is one (the engine's
     * phase rule) */
    for (int dev = RVS_DEV_GPU; dev >= RVS_DEV_CPU && st == RVS_OK; dev--)
        for (int j = 0; j < M->nparts && st == RVS_OK; j++) {
            if ((int)M->part_dev[j] != dev)
                continue;
            int64_t *list = malloc((size_t)(M->part_rows[j] ? M->part_rows[j] : 1) * sizeof *list);
            if (!list) {
                st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)M->part_rows[j]);
                break;
            }
            for (int64_t i = 0; i < M->part_rows[j]; i++)
                list[i] = off[j] + i;
            origin[P->k] = j;
            add_part(P, (rvs_device)dev, M->part_cp[j], RVS_ENTRIES_ALL, list, M->part_rows[j]);
        }
    if (st == RVS_OK)
        st = rvs_partition_metrics(P, &L->A, err);
    for (int i = 0; i < P->k && st == RVS_OK; i++) /* a part keeps the format of its block */
        if (M->part_fmt[origin[i]] != 0)
            st = rvs_mpi_local_block(L, i, M->part_fmt[origin[i]], err);
    free(origin);
    free(off);
    return st;
}

/* The metrics of a received-column part from its entries S (the local matrix has none). */
static void halo_metrics(rvs_part *q, const rvs_csr *S)
{
    q->nnz = S->nnz;
    q->width = 0;
    for (int64_t i = 0; i < S->rows; i++)
        q->width = S->rowptr[i + 1] - S->rowptr[i] > q->width ? S->rowptr[i + 1] - S->rowptr[i] : q->width;
    q->e = q->nrows * q->width;
    q->padded = q->e - q->nnz;
    q->density = q->e > 0 ? (double)q->nnz / (double)q->e : 0;
}

/* The block of received-column part i from S (taken over): format id, or po's rule for 0 (the
 * fallback format, else the advisor's on the part's device). */
static rvs_status halo_block(rvs_stream *L, int i, rvs_csr *S, rvs_format_id id, const rvs_plan_options *po,
                             rvs_error *err)
{
    rvs_fmt_options fo;
    rvs_fmt_options_default(&fo);
    rvs_status st = RVS_OK;
    if (!id && po->fallback) {
        id = po->fallback;
    } else if (!id) {
        rvs_decision *d = malloc(sizeof *d);
        st = d ? rvs_advise(d, S, i, L->partition.parts[i].device, S->vtype, &po->advisor, err)
               : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        if (st == RVS_OK) {
            id = d->cand[d->chosen].format;
            fo = d->cand[d->chosen].knobs.fo;
        }
        free(d);
    }
    rvs_fmt_block *grown = st == RVS_OK ? realloc(L->fmt, ((size_t)L->nfmt + 1) * sizeof *grown) : NULL;
    if (st == RVS_OK && !grown)
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st != RVS_OK)
        return st;
    L->fmt = grown;
    rvs_fmt_block *B = &grown[L->nfmt];
    memset(B, 0, sizeof *B);
    if (id == RVS_FMT_CSR) { /* the block takes S's arrays */
        if ((st = rvs_fmt_csr_borrow(&B->fmt, S, 0, S->rows, err)) == RVS_OK) {
            B->fmt.borrowed = 0;
            memset(S, 0, sizeof *S);
        }
    } else {
        fo.consume = 1; /* S is this block's alone */
        st = rvs_fmt_from_csr(&B->fmt, id, S, &fo, err);
    }
    if (st == RVS_OK) {
        B->part = i;
        L->nfmt++;
    }
    return st;
}

/* The received-column part of the H rows whose parts run on dev (mark[k] == dev), or of all of
 * H when every one does (H and far taken over then). */
static rvs_status halo_part(rvs_mpi_spmv *M, rvs_device dev, const uint8_t *mark, int64_t n,
                            const rvs_plan_options *po, rvs_format_id halo, rvs_error *err)
{
    rvs_partition *P = &M->L.partition;
    rvs_csr S = {0};
    int64_t *rows = NULL;
    rvs_status st = RVS_OK;
    if (n == M->H.rows) {
        S = M->H;
        rows = M->far;
        memset(&M->H, 0, sizeof M->H);
        M->far = NULL;
    } else {
        int64_t *pick = malloc((size_t)n * sizeof *pick);
        rows = malloc((size_t)n * sizeof *rows);
        if (!pick || !rows)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
        for (int64_t k = 0, m = 0; st == RVS_OK && k < M->H.rows; k++)
            if (mark[k] == dev) {
                pick[m] = k;
                rows[m++] = M->far[k];
            }
        if (st == RVS_OK)
            st = rvs_csr_extract_rows(&S, &M->H, pick, n, 0, 0, err);
        free(pick);
    }
    const int i = P->k;
    if (st == RVS_OK)
        add_part(P, dev, 1, RVS_ENTRIES_OFFDIAG, rows, n);
    else
        free(rows);
    if (st == RVS_OK) {
        halo_metrics(&P->parts[i], &S);
        st = halo_block(&M->L, i, &S, halo, po, err);
    }
    rvs_csr_free(&S);
    return st;
}

rvs_status rvs_mpi_halo_parts(rvs_mpi_spmv *M, rvs_run_mode mode, const rvs_plan_options *po, rvs_format_id halo,
                              rvs_error *err)
{
    rvs_partition *P = &M->L.partition;
    const int64_t nfar = M->H.rows;
    const int owned = P->k;
    if (nfar == 0)
        return RVS_OK;
    uint8_t *mark = malloc((size_t)nfar);
    rvs_status st = mark ? rvs_csr_convert_values(&M->H, po->vtype, err)
                         : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row marks", (long long)nfar);
    int64_t count[2] = {0, 0};
    for (int i = 0; i < owned && st == RVS_OK; i++) { /* each owned part: a run of rows */
        const rvs_part *q = &P->parts[i];
        const rvs_device dev = mode == RVS_MODE_CPU ? RVS_DEV_CPU : mode == RVS_MODE_GPU ? RVS_DEV_GPU : q->device;
        if (q->nrows == 0)
            continue;
        const int64_t a = rvs_lower_bound_i64(M->far, nfar, q->rows[0]),
                      b = rvs_lower_bound_i64(M->far, nfar, q->rows[0] + q->nrows);
        memset(mark + a, dev, (size_t)(b - a));
        count[dev] += b - a;
    }
    for (int dev = RVS_DEV_GPU; dev >= RVS_DEV_CPU && st == RVS_OK; dev--)
        if (count[dev] > 0)
            st = halo_part(M, (rvs_device)dev, mark, count[dev], po, halo, err);
    free(mark);
    rvs_csr_free(&M->H);
    free(M->far);
    M->far = NULL;
    return st;
}

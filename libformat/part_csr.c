/* part_csr.c - one part of a partition as CSR: a view of the hub when its rows are a run, else a
 * copy; every part's copy in one pass that gives the hub back as it goes */
#include <string.h>
#include <stdlib.h>
#include "rvs_format.h"
#include "rvs_partition.h"

int rvs_partition_part_is_run(const rvs_partition *P, int part, const rvs_csr *A, int64_t *lo)
{
    const rvs_part *q = &P->parts[part];
    return q->entries == RVS_ENTRIES_ALL && rvs_rows_consecutive(q->rows, q->nrows, lo) && *lo >= 0 &&
           q->nrows <= A->rows - *lo;
}

/* S = part's submatrix, viewed in place when its rows are consecutive and hold every entry. */
rvs_status rvs_partition_part_csr(rvs_csr *S, int *view, const rvs_partition *P, int part,
                                  const rvs_csr *A, rvs_error *err)
{
    int64_t lo;
    *view = 0;
    memset(S, 0, sizeof *S);
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    if (rvs_partition_part_is_run(P, part, A, &lo)) {
        *view = 1;
        return rvs_csr_view_rows(S, A, lo, lo + P->parts[part].nrows, err);
    }
    return rvs_partition_extract(S, P, part, A, err);
}

rvs_status rvs_part_or_whole(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                             const rvs_csr **out, rvs_error *err)
{
    *view = 0;
    memset(S, 0, sizeof *S);
    *out = part < 0 ? A : S;
    return part < 0 ? RVS_OK : rvs_partition_part_csr(S, view, P, part, A, err);
}

void rvs_part_csr_free(rvs_csr *S, int view)
{
    if (view)
        rvs_csr_view_free(S);
    else
        rvs_csr_free(S);
}

/* Tag every row of A that goes to a copy: (part + 1) << 48 | the row's first entry in it; 0 for
 * the rest. Fills the copies' row pointers on the way. 0 when the parts named overlap, hold only
 * some of their rows' entries, or share a row with a part not named (nothing then is tagged for
 * good). */
static int tag_rows(uint64_t *tag, rvs_csr *out, const int *need, const rvs_partition *P, const rvs_csr *A)
{
    for (int p = 0; p < P->k; p++) {
        const rvs_part *q = &P->parts[p];
        if (need && !need[p])
            continue;
        if (q->entries != RVS_ENTRIES_ALL)
            return 0;
        int64_t at = 0;
        for (int64_t i = 0; i < q->nrows; i++) {
            int64_t r = q->rows[i];
            if (r < 0 || r >= A->rows || tag[r])
                return 0;
            tag[r] = (uint64_t)(p + 1) << 48 | (uint64_t)at;
            at += A->rowptr[r + 1] - A->rowptr[r];
            out[p].rowptr[i + 1] = at;
        }
    }
    /* a part not copied that shares a row with a copied one would read it after it is given back */
    for (int p = 0; p < P->k; p++)
        for (int64_t i = 0; need && !need[p] && i < P->parts[p].nrows; i++) {
            int64_t r = P->parts[p].rows[i];
            if (r >= 0 && r < A->rows && tag[r])
                return 0;
        }
    return 1;
}

/* Copy the rows [r0, r1) of A to the copies their tags name; 1 when every one of them had a tag. */
static int copy_rows(rvs_csr *out, const uint64_t *tag, const rvs_csr *A, int64_t r0, int64_t r1)
{
    const size_t vs = rvs_vtype_size(A->vtype);
    int all = 1;
#pragma omp parallel for schedule(dynamic, 4096) reduction(&& : all)
    for (int64_t r = r0; r < r1; r++) {
        if (!tag[r]) {
            all = 0;
            continue;
        }
        rvs_csr *S = &out[(tag[r] >> 48) - 1];
        const int64_t at = (int64_t)(tag[r] & (((uint64_t)1 << 48) - 1)), p = A->rowptr[r],
                      n = A->rowptr[r + 1] - p;
        if (A->colind)
            memcpy(S->colind + at, A->colind + p, (size_t)n * sizeof *A->colind);
        else
            memcpy(S->colind64 + at, A->colind64 + p, (size_t)n * sizeof *A->colind64);
        if (A->values)
            memcpy((char *)S->values + (size_t)at * vs, (const char *)A->values + (size_t)p * vs, (size_t)n * vs);
    }
    return all;
}

rvs_status rvs_partition_split(rvs_csr **copies, const int *need, const rvs_partition *P, rvs_csr *A,
                               int64_t block_nnz, rvs_error *err)
{
    int split = 0;
    *copies = NULL;
    if (P->k >= 65535 || A->nnz >= ((int64_t)1 << 48))
        return RVS_OK;
    uint64_t *tag = calloc((size_t)A->rows + 1, sizeof *tag);
    rvs_csr *out = calloc((size_t)P->k, sizeof *out);
    rvs_status st = tag && out ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory splitting %lld rows into parts",
                                                   (long long)A->rows);
    for (int p = 0; st == RVS_OK && p < P->k; p++) {
        int64_t nnz = 0;
        for (int64_t i = 0; (!need || need[p]) && i < P->parts[p].nrows; i++) {
            int64_t r = P->parts[p].rows[i];
            nnz += r >= 0 && r < A->rows ? A->rowptr[r + 1] - A->rowptr[r] : 0;
        }
        if (!need || need[p])
            st = rvs_csr_alloc(&out[p], P->parts[p].nrows, A->cols, nnz, A->vtype, err);
    }
    if (st == RVS_OK && (split = tag_rows(tag, out, need, P, A)))
        for (int64_t r = 0; r < A->rows;) {   /* row blocks of about block_nnz entries */
            int64_t e = rvs_lower_bound_i64(A->rowptr, A->rows + 1, A->rowptr[r] + block_nnz + 1) - 1;
            e = e > r ? e : r + 1;
            if (copy_rows(out, tag, A, r, e))
                rvs_csr_release_entries(A, A->rowptr[r], A->rowptr[e]);
            r = e;
        }
    free(tag);
    if (st == RVS_OK && split)
        *copies = out;
    else
        rvs_partition_split_free(out, out ? P->k : 0);
    return st;
}

void rvs_partition_split_free(rvs_csr *copies, int k)
{
    for (int p = 0; copies && p < k; p++)
        rvs_csr_free(&copies[p]);
    free(copies);
}

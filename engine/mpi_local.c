/* mpi_local.c - a rank's local stream: its rows, its columns numbered owned-first, and a
 * partition that splits each of its parts in two. The owned columns come first and the first
 * `rows` of them mirror the rows, so the engine's diagonal-block entry classes with one block of
 * all the rank's rows tell them apart: a part's entries in owned columns form a part of class
 * "diag" (stored first), its entries in received columns (and in owned columns past the last
 * row) a part of class "offdiag" holding only the rows that have such entries, which the engine
 * adds after them (phase 1). The planner and the runner then work on this stream as on any. */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

/* Rows of [first, first + n) holding an entry in a column >= split, into rows[]; their count. */
static int64_t rows_with_far(const rvs_csr *A, int64_t first, int64_t n, int64_t split, int64_t *rows)
{
    int64_t k = 0;
    for (int64_t i = first; i < first + n; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (A->colind[p] >= split) {
                rows[k++] = i;
                break;
            }
    return k;
}

/* Append part q (device, power, class, rows) to the local partition. */
static rvs_status add_part(rvs_partition *P, rvs_device dev, double cp, rvs_entries cls, const int64_t *rows,
                           int64_t n, rvs_error *err)
{
    rvs_part *q = &P->parts[P->k];
    q->device = dev;
    q->cp = cp > 0 ? cp : 1;
    q->entries = cls;
    q->nrows = n;
    if (!(q->rows = malloc((size_t)(n ? n : 1) * sizeof *q->rows)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
    memcpy(q->rows, rows, (size_t)n * sizeof *rows);
    P->k++;
    return RVS_OK;
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
    L->A = *C;
    memset(C, 0, sizeof *C);
    snprintf(L->name, sizeof L->name, "rank %d", M->rank);
    if (M->nparts == 0)
        return RVS_OK;
    int64_t *off = malloc(((size_t)M->nparts + 1) * sizeof *off);
    int64_t *list = malloc((size_t)(rows ? rows : 1) * sizeof *list);
    P->parts = calloc(2 * (size_t)M->nparts, sizeof *P->parts);
    rvs_status st = off && list && P->parts ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    P->alg = RVS_ALG_DIAG;
    P->block_size = rows > 0 ? rows : 1;
    L->has_partition = 1;
    for (int j = 0; off && j <= M->nparts; j++)
        off[j] = j ? off[j - 1] + M->part_rows[j - 1] : 0;
    /* a rank with no entry past its rows' columns has no received-column parts: its parts hold
     * all their rows' entries, runs the engine reads in place (a CSR block borrows them) */
    int64_t far = 0;
#pragma omp parallel for reduction(+ : far)
    for (int64_t p = 0; p < L->A.nnz; p++)
        far += L->A.colind[p] >= rows;
    /* owned-column parts, then received-column ones; GPU parts before CPU ones in each, so that
     * the first part is a GPU part when there is one (the engine's phase rule) */
    int *origin = malloc(2 * (size_t)M->nparts * sizeof *origin);
    if (!origin && st == RVS_OK)
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int cls = 0; cls < 2 && st == RVS_OK; cls++)
        for (int dev = RVS_DEV_GPU; dev >= RVS_DEV_CPU && st == RVS_OK; dev--)
            for (int j = 0; j < M->nparts && st == RVS_OK; j++) {
                if ((int)M->part_dev[j] != dev)
                    continue;
                int64_t n = M->part_rows[j];
                if (cls == 0) {
                    for (int64_t i = 0; i < n; i++)
                        list[i] = off[j] + i;
                } else if ((n = rows_with_far(&L->A, off[j], n, rows, list)) == 0) {
                    continue;
                }
                origin[P->k] = j;
                st = add_part(P, (rvs_device)dev, M->part_cp[j],
                              cls ? RVS_ENTRIES_OFFDIAG : far ? RVS_ENTRIES_DIAG : RVS_ENTRIES_ALL, list, n, err);
            }
    if (st == RVS_OK)
        st = rvs_partition_metrics(P, &L->A, err);
    for (int i = 0; i < P->k && st == RVS_OK; i++) /* a part keeps the format of its block */
        if (P->parts[i].entries != RVS_ENTRIES_OFFDIAG && M->part_fmt[origin[i]] != 0)
            st = rvs_mpi_local_block(L, i, M->part_fmt[origin[i]], err);
    free(origin);
    free(off);
    free(list);
    return st;
}

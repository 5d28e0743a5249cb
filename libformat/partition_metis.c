/* partition_metis.c - a communication-aware row partition: METIS k-way on the graph of A + A^T,
 * each row weighted by its entries, so that parts balance non-zeros and few x entries cross
 * (Karypis and Kumar, "A Fast and High Quality Multilevel Scheme for Partitioning Irregular
 * Graphs", SIAM J. Sci. Comput., 1998) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "partition_metis.h"
#if RVS_HAVE_METIS
#include <metis.h>
#endif

/* 1 when this build partitions with METIS. */
int rvs_partition_have_metis(void)
{
#if RVS_HAVE_METIS
    return 1;
#else
    return 0;
#endif
}

#if !RVS_HAVE_METIS

rvs_status rvs_metis_fill_parts(rvs_part *parts, int k, const double *cp, const rvs_csr *A, rvs_error *err)
{
    (void)parts, (void)k, (void)cp, (void)A;
    return rvs_fail(err, RVS_ERR_UNSUPPORTED, "partition algorithm metis: built without METIS (libmetis-dev)");
}

#else

/* The same seed on every run: METIS then gives the same partition for the same matrix. */
#define METIS_SEED 1

/* The largest count METIS's idx_t holds (32 bits in Debian's build, 64 in others). */
#define IDX_LIMIT ((int64_t)(IDXTYPEWIDTH == 32 ? INT32_MAX : INT64_MAX))

/* The symmetrised pattern of square A (A + A^T, no self loops) as METIS's adjacency (xadj,
 * adjncy), each vertex weighted by its row's entries (vwgt; NULL when A has none). */
typedef struct {
    idx_t *xadj, *adjncy, *vwgt;
} metis_graph;

static void graph_free(metis_graph *g)
{
    free(g->xadj);
    free(g->adjncy);
    free(g->vwgt);
    memset(g, 0, sizeof *g);
}

/* The number of neighbours of row i in A + A^T, each counted once (mark[j] == stamp: seen), and
 * written to out when out is not NULL. */
static int64_t neighbours(const rvs_csr *A, const int64_t *tptr, const idx_t *tidx, int64_t i, idx_t *mark,
                          idx_t stamp, idx_t *out)
{
    int64_t deg = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        const int64_t j = rvs_csr_col(A, p);
        if (j != i && mark[j] != stamp) {
            mark[j] = stamp;
            if (out)
                out[deg] = (idx_t)j;
            deg++;
        }
    }
    for (int64_t p = tptr[i]; p < tptr[i + 1]; p++) {
        const idx_t j = tidx[p];
        if (j != i && mark[j] != stamp) {
            mark[j] = stamp;
            if (out)
                out[deg] = j;
            deg++;
        }
    }
    return deg;
}

/* The graph of A: A's pattern transposed (tptr, tidx), then two passes over the rows, one to
 * count each vertex's neighbours and one to write them. */
static rvs_status build_graph(metis_graph *g, const rvs_csr *A, rvs_error *err)
{
    const int64_t n = A->rows;
    rvs_status st = RVS_OK;
    int64_t *tptr = calloc((size_t)n + 1, sizeof *tptr);
    idx_t *tidx = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *tidx);
    idx_t *mark = malloc((size_t)(n ? n : 1) * sizeof *mark);
    memset(g, 0, sizeof *g);
    g->xadj = malloc(((size_t)n + 1) * sizeof *g->xadj);
    g->vwgt = A->nnz ? malloc((size_t)(n ? n : 1) * sizeof *g->vwgt) : NULL;
    if (!tptr || !tidx || !mark || !g->xadj || (A->nnz && !g->vwgt)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "metis: out of memory for the graph of %lld rows", (long long)n);
        goto done;
    }
    for (int64_t p = 0; p < A->nnz; p++)
        tptr[rvs_csr_col(A, p) + 1]++;
    for (int64_t j = 0; j < n; j++)
        tptr[j + 1] += tptr[j];
    for (int64_t i = 0; i < n; i++) /* rows ascending: each column's rows come out sorted */
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            tidx[tptr[rvs_csr_col(A, p)]++] = (idx_t)i;
    for (int64_t j = n; j > 0; j--) /* tptr[j] moved to the end of column j: shift back */
        tptr[j] = tptr[j - 1];
    tptr[0] = 0;
    int64_t edges = 0;
    for (int64_t i = 0; i < n; i++)
        mark[i] = -1;
    g->xadj[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        edges += neighbours(A, tptr, tidx, i, mark, (idx_t)i, NULL);
        if (edges > IDX_LIMIT) {
            st = rvs_fail(err, RVS_ERR_OVERFLOW,
                          "metis: the graph of A + A^T has more than %lld edge ends, past "
                          "what this METIS's %d-bit idx_t holds",
                          (long long)IDX_LIMIT, IDXTYPEWIDTH);
            goto done;
        }
        g->xadj[i + 1] = (idx_t)edges;
        if (g->vwgt)
            g->vwgt[i] = (idx_t)(A->rowptr[i + 1] - A->rowptr[i]);
    }
    if (!(g->adjncy = malloc((size_t)(edges ? edges : 1) * sizeof *g->adjncy))) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "metis: out of memory for %lld edge ends", (long long)edges);
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        mark[i] = -1;
    for (int64_t i = 0; i < n; i++)
        neighbours(A, tptr, tidx, i, mark, (idx_t)i, g->adjncy + g->xadj[i]);
done:
    free(tptr);
    free(tidx);
    free(mark);
    if (st != RVS_OK)
        graph_free(g);
    return st;
}

/* part[i] = the part of row i, by METIS k-way on the graph of A. */
static rvs_status metis_part(idx_t *part, int k, const double *cp, const rvs_csr *A, rvs_error *err)
{
    metis_graph g;
    rvs_status st = build_graph(&g, A, err);
    if (st != RVS_OK)
        return st;
    idx_t nvtxs = (idx_t)A->rows, ncon = 1, nparts = k, objval = 0, options[METIS_NOPTIONS];
    real_t *tpwgts = malloc((size_t)k * sizeof *tpwgts);
    if (!tpwgts) {
        graph_free(&g);
        return rvs_fail(err, RVS_ERR_NOMEM, "metis: out of memory");
    }
    long double cpsum = 0;
    for (int i = 0; i < k; i++)
        cpsum += cp[i];
    for (int i = 0; i < k; i++)
        tpwgts[i] = (real_t)(cp[i] / cpsum);
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = METIS_SEED;
    options[METIS_OPTION_NUMBERING] = 0;
    /* k-way, not recursive bisection, which balances worse at k not a power of two; on the edge
     * cut, which follows the volume: METIS_OBJTYPE_VOL took several times as long for a few % less */
    options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
    const int rc = METIS_PartGraphKway(&nvtxs, &ncon, g.xadj, g.adjncy, g.vwgt, NULL, NULL, &nparts, tpwgts, NULL,
                                       options, &objval, part);
    free(tpwgts);
    graph_free(&g);
    if (rc == METIS_ERROR_MEMORY)
        return rvs_fail(err, RVS_ERR_NOMEM, "metis: out of memory partitioning %lld rows", (long long)A->rows);
    if (rc != METIS_OK)
        return rvs_fail(err, RVS_ERR_INTERNAL, "metis: METIS_PartGraphKway failed (%d) on %lld rows into %d parts",
                        rc, (long long)A->rows, k);
    return RVS_OK;
}

rvs_status rvs_metis_fill_parts(rvs_part *parts, int k, const double *cp, const rvs_csr *A, rvs_error *err)
{
    const int64_t n = A->rows;
    if (A->rows != A->cols)
        return rvs_fail(
            err, RVS_ERR_DIM,
            "metis needs a square matrix (its rows and columns are one set of vertices), not %lld x %lld",
            (long long)A->rows, (long long)A->cols);
    if (n >= IDX_LIMIT || A->nnz > IDX_LIMIT)
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "metis: %lld rows and %lld entries pass what this METIS's %d-bit "
                        "idx_t holds",
                        (long long)n, (long long)A->nnz, IDXTYPEWIDTH);
    idx_t *part = malloc((size_t)(n ? n : 1) * sizeof *part);
    if (!part)
        return rvs_fail(err, RVS_ERR_NOMEM, "metis: out of memory for %lld rows", (long long)n);
    rvs_status st = RVS_OK;
    if (k == 1 || n <= k) /* nothing to choose: one part, or a row a part */
        for (int64_t i = 0; i < n; i++)
            part[i] = (idx_t)(k == 1 ? 0 : i);
    else
        st = metis_part(part, k, cp, A, err);
    for (int i = 0; st == RVS_OK && i < k; i++)
        parts[i].nrows = 0;
    for (int64_t i = 0; st == RVS_OK && i < n; i++) {
        if (part[i] < 0 || part[i] >= k) {
            st = rvs_fail(err, RVS_ERR_INTERNAL, "metis: row %lld put in part %lld of %d", (long long)i + 1,
                          (long long)part[i] + 1, k);
            break;
        }
        parts[part[i]].nrows++;
    }
    for (int i = 0; st == RVS_OK && i < k; i++)
        if (!(parts[i].rows = malloc((size_t)(parts[i].nrows ? parts[i].nrows : 1) * sizeof *parts[i].rows)))
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a part of %lld rows", (long long)parts[i].nrows);
    for (int i = 0; st == RVS_OK && i < k; i++)
        parts[i].nrows = 0;
    for (int64_t i = 0; st == RVS_OK && i < n; i++) /* each part's rows ascending */
        parts[part[i]].rows[parts[part[i]].nrows++] = i;
    free(part);
    return st;
}

#endif

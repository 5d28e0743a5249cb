/* blocks.c - what a stream's format blocks hold: a part's block, and the whole matrix as the
 * kernels multiply it (each block back in CSR, placed through the partition's row sets) */
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"

const rvs_fmt *rvs_stream_block(const rvs_stream *S, int part)
{
    for (int i = 0; i < S->nfmt; i++)
        if (S->fmt[i].part == part)
            return &S->fmt[i].fmt;
    return NULL;
}

/* CSR of one part as the stream holds it: its block converted back, else the hub's rows. */
static rvs_status part_csr(rvs_csr *P, const rvs_stream *S, int part, rvs_error *err)
{
    const rvs_fmt *F = rvs_stream_block(S, part);
    if (F)
        return rvs_fmt_to_csr(P, F, err);
    if (part < 0)
        return rvs_csr_copy(P, &S->A, err);
    return rvs_partition_extract(P, &S->partition, part, &S->A, err);
}

/* Append the entries of P (rows mapped through rows[], NULL: identity) to the triplets at *n;
 * complex values as (re, im) pairs when cplx. */
static void append_triplets(int64_t *ri, int64_t *ci, double *v, int64_t *n, const rvs_csr *P, const int64_t *rows,
                            int cplx)
{
    for (int64_t i = 0; i < P->rows; i++)
        for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++, (*n)++) {
            ri[*n] = rows ? rows[i] : i;
            ci[*n] = rvs_csr_col(P, k);
            if (cplx) {
                v[2 * *n] = rvs_csr_value(P, k);
                v[2 * *n + 1] = rvs_csr_value_im(P, k);
            } else {
                v[*n] = rvs_csr_value(P, k);
            }
        }
}

/* M = the whole matrix as the stream's format blocks hold it (what the kernels multiply):
 * each part's block back in CSR, placed through the partition's row sets; parts without a
 * block come from the hub. Without blocks, a copy of the hub. Values become vt. */
rvs_status rvs_blocks_matrix(rvs_csr *M, const rvs_stream *S, rvs_vtype vt, rvs_error *err)
{
    int whole = S->nfmt == 0 || !S->has_partition || rvs_stream_block(S, -1);
    int nparts = whole ? 1 : S->partition.k;
    rvs_csr *P = calloc((size_t)nparts, sizeof *P);
    int64_t *ri = NULL, *ci = NULL, total = 0, n = 0;
    double *v = NULL;
    rvs_status st = P ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    const int cplx = rvs_vtype_is_complex(vt);
    if (cplx != rvs_vtype_is_complex(S->A.vtype) && st == RVS_OK && !cplx)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "complex values cannot become %s", rvs_vtype_name(vt));
    for (int i = 0; st == RVS_OK && i < nparts; i++) {
        st = part_csr(&P[i], S, whole ? -1 : i, err);
        total += P[i].nnz;
    }
    if (st == RVS_OK && whole) {
        *M = P[0];
        memset(&P[0], 0, sizeof P[0]);
        st = rvs_csr_convert_values(M, vt, err);
        goto done;
    }
    if (st == RVS_OK) {
        ri = malloc((size_t)(total ? total : 1) * sizeof *ri);
        ci = malloc((size_t)(total ? total : 1) * sizeof *ci);
        v = malloc((size_t)(total ? total : 1) * (cplx ? 2 : 1) * sizeof *v);
        if (!ri || !ci || !v)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld entries", (long long)total);
    }
    for (int i = 0; st == RVS_OK && i < nparts; i++) {
        append_triplets(ri, ci, v, &n, &P[i], S->partition.parts[i].rows, cplx);
        rvs_csr_free(&P[i]);
    }
    if (st == RVS_OK && cplx)
        st = rvs_csr_from_coo_complex(M, S->A.rows, S->A.cols, n, ri, ci, v, vt, err);
    else if (st == RVS_OK)
        st = rvs_csr_from_coo(M, S->A.rows, S->A.cols, n, ri, ci, v, vt, err);
done:
    for (int i = 0; P && i < nparts; i++)
        rvs_csr_free(&P[i]);
    free(P);
    free(ri);
    free(ci);
    free(v);
    return st;
}

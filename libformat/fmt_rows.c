/* fmt_rows.c - a run of the hub's rows built as format blocks of bounded size, row block by row
 * block, the hub's pages given back as soon as no later block needs them */
#include <stdlib.h>
#include <string.h>
#include "rvs_format.h"
#include "rvs_mem.h"

/* Release the entries [from, to) of A: columns and values. */
void rvs_csr_release_entries(rvs_csr *A, int64_t from, int64_t to)
{
    if (to <= from)
        return;
    const size_t cw = A->colind ? sizeof *A->colind : sizeof *A->colind64, vw = rvs_vtype_size(A->vtype);
    rvs_mem_give_back((char *)(A->colind ? (void *)A->colind : (void *)A->colind64) + (size_t)from * cw,
                      (size_t)(to - from) * cw);
    rvs_mem_give_back((char *)A->values + (size_t)from * vw, (size_t)(to - from) * vw);
}

#define HUB_WINDOW_SHIFT 16

rvs_status rvs_hub_count_init(rvs_hub_count *H, rvs_csr *A, rvs_error *err)
{
    const int64_t W = (int64_t)1 << HUB_WINDOW_SHIFT;
    H->A = A;
    H->nwin = (A->nnz + W - 1) / W;
    H->left = malloc((size_t)(H->nwin ? H->nwin : 1) * sizeof *H->left);
    if (!H->left)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld window counts", (long long)H->nwin);
    for (int64_t w = 0; w < H->nwin; w++)
        H->left[w] = (w + 1) * W < A->nnz ? W : A->nnz - w * W;
    return RVS_OK;
}

void rvs_hub_count_take(rvs_hub_count *H, int64_t r)
{
    const int64_t a = H->A->rowptr[r], b = H->A->rowptr[r + 1];
    for (int64_t w = a >> HUB_WINDOW_SHIFT; a < b && w <= (b - 1) >> HUB_WINDOW_SHIFT; w++) {
        const int64_t lo = w << HUB_WINDOW_SHIFT, hi = (w + 1) << HUB_WINDOW_SHIFT;
        H->left[w] -= (b < hi ? b : hi) - (a > lo ? a : lo);
        if (H->left[w] == 0)
            rvs_csr_release_entries(H->A, lo, hi < H->A->nnz ? hi : H->A->nnz);
    }
}

void rvs_hub_count_free(rvs_hub_count *H)
{
    free(H->left);
    H->left = NULL;
    H->nwin = 0;
}

/* Give back the pages of F's own arrays (not the borrowed ones). */
void rvs_fmt_release(rvs_fmt *F)
{
    for (int i = 0; i < F->narrays; i++)
        if (!(F->borrowed & (1u << i)) && F->array[i].data)
            rvs_mem_give_back(F->array[i].data, (size_t)F->array[i].count * rvs_dtype_size(F->array[i].dtype));
}

/* End of the row block that starts at row r: the last row end within max_nnz entries of
 * rowptr[r] (one row at least), never past hi. */
static int64_t block_end(const rvs_csr *A, int64_t r, int64_t hi, int64_t max_nnz)
{
    int64_t e = rvs_lower_bound_i64(A->rowptr, hi + 1, A->rowptr[r] + max_nnz + 1) - 1;
    return e > r ? e : r + 1;
}

/* Build rows [lo, hi) of A in format id as row blocks of about max_nnz entries each. */
rvs_status rvs_fmt_build_rows(rvs_fmt **blocks, int64_t **cuts, int *nblocks, rvs_csr *A, int64_t lo, int64_t hi,
                              rvs_format_id id, const rvs_fmt_options *o, int64_t max_nnz, int release,
                              rvs_error *err)
{
    rvs_status st = RVS_OK;
    int n = 0, cap = 0;
    rvs_fmt *F = NULL;
    int64_t *cut = NULL;
    *blocks = NULL;
    *cuts = NULL;
    *nblocks = 0;
    if (lo < 0 || hi < lo || hi > A->rows || max_nnz < 1)
        return rvs_fail(err, RVS_ERR_ARG, "rows %lld..%lld of %lld in blocks of %lld entries", (long long)lo,
                        (long long)hi, (long long)A->rows, (long long)max_nnz);
    for (int64_t r = lo; st == RVS_OK && (r < hi || n == 0);) {
        int64_t e = r < hi ? block_end(A, r, hi, max_nnz) : hi;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            rvs_fmt *g = realloc(F, (size_t)cap * sizeof *F);
            int64_t *c = g ? realloc(cut, ((size_t)cap + 1) * sizeof *cut) : NULL;
            if (g)
                F = g;
            if (c)
                cut = c;
            if (!g || !c) {
                st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for row blocks");
                break;
            }
        }
        rvs_csr V;
        if ((st = rvs_csr_view_rows(&V, A, r, e, err)) == RVS_OK) {
            st = rvs_fmt_from_csr(&F[n], id, &V, o, err);
            rvs_csr_view_free(&V);
        }
        if (st != RVS_OK)
            break;
        cut[n++] = r;
        /* the entries before row e's are used by no later block: pages wholly among them go */
        if (release)
            rvs_csr_release_entries(A, A->rowptr[lo], A->rowptr[e]);
        r = e;
    }
    if (st != RVS_OK) {
        for (int k = 0; k < n; k++)
            rvs_fmt_free(&F[k]);
        free(F);
        free(cut);
        return st;
    }
    cut[n] = hi;
    *blocks = F;
    *cuts = cut;
    *nblocks = n;
    return RVS_OK;
}

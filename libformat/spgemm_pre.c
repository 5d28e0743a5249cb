/* spgemm_pre.c - exact SpGEMM product counts, hySpMM pre-processing, budgeted row blocks,
 * blocks of C's rows, and the allocation of C's entries */
#define _DEFAULT_SOURCE 1
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "rvs_spgemm_pre.h"

/* Shared argument checks of the SpGEMM kernels. */
rvs_status rvs_spgemm_check_args(const rvs_csr *A, const rvs_csr *B, rvs_error *err)
{
    if (A->cols != B->rows)
        return rvs_fail(err, RVS_ERR_DIM, "dimension mismatch: A is %lld x %lld, B is %lld x %lld",
                        (long long)A->rows, (long long)A->cols, (long long)B->rows, (long long)B->cols);
    if (A->vtype != B->vtype)
        return rvs_fail(err, RVS_ERR_ARG, "A and B have different value types");
    if (!B->colind && B->nnz > 0)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "B has more than 2^31-1 columns");
    return RVS_OK;
}

/* Exact products per row of A*B, as prefix sums. */
rvs_status rvs_spgemm_row_products(int64_t *prodptr, const rvs_csr *A, const rvs_csr *B, rvs_error *err)
{
    const int64_t *brp = B->rowptr;
    int bad = 0;
    if (A->cols != B->rows)
        return rvs_spgemm_check_args(A, B, err);
    prodptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(| : bad)
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t s = 0;
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
            int64_t k = rvs_csr_col(A, e);
            if (__builtin_add_overflow(s, brp[k + 1] - brp[k], &s))
                bad = 1;
        }
        prodptr[i + 1] = s;
    }
    for (int64_t i = 0; i < A->rows && !bad; i++)
        if (__builtin_add_overflow(prodptr[i], prodptr[i + 1], &prodptr[i + 1]))
            bad = 1;
    if (bad)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "the number of products of A*B exceeds 2^63");
    return RVS_OK;
}

/* repeat_A and the duplicated B for rows [r0, r1) (Alg. 2, one row per iteration). */
void rvs_spgemm_expand(const rvs_csr *A, const rvs_csr *B, const int64_t *prodptr, int64_t r0, int64_t r1,
                       int32_t *repeat, int32_t *dup_col, void *dup_val)
{
    const int64_t ebase = A->rowptr[r0], pbase = prodptr[r0];
    const size_t vs = rvs_vtype_size(B->vtype);
    char *dv = (char *)dup_val;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = r0; i < r1; i++) {
        int64_t off = prodptr[i] - pbase;
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
            int64_t k = rvs_csr_col(A, e);
            int64_t b0 = B->rowptr[k], len = B->rowptr[k + 1] - b0;
            repeat[e - ebase] = (int32_t)len;
            memcpy(dup_col + off, B->colind + b0, (size_t)len * sizeof(int32_t));
            memcpy(dv + (size_t)off * vs, (const char *)B->values + (size_t)b0 * vs, (size_t)len * vs);
            off += len;
        }
    }
}

/* Device bytes of a block with these counts (Eq. 3, exact). */
static size_t block_bytes(const rvs_spgemm_budget *b, int64_t entries, int64_t products, int64_t rows)
{
    return b->bytes_per_entry * (size_t)entries + b->bytes_per_product * (size_t)products +
           b->bytes_per_row * (size_t)(rows + 1);
}

/* Append a block to a growing array. */
static int push_block(rvs_spgemm_block **v, int64_t *n, int64_t *cap, rvs_spgemm_block blk)
{
    if (*n == *cap) {
        int64_t nc = *cap ? 2 * *cap : 64;
        rvs_spgemm_block *p = realloc(*v, (size_t)nc * sizeof *p);
        if (!p)
            return 0;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = blk;
    return 1;
}

/* Greedy split of A's rows into blocks that fit the budget. */
rvs_status rvs_spgemm_plan(const rvs_csr *A, const int64_t *prodptr, const rvs_spgemm_budget *b,
                           rvs_spgemm_block **blocks, int64_t *nblocks, rvs_error *err)
{
    rvs_spgemm_block *v = NULL, cur = {0, 0, 0, 0, 0};
    int64_t n = 0, cap = 0;
    rvs_status st = RVS_OK;
    *blocks = NULL;
    *nblocks = 0;
    if (block_bytes(b, 0, 0, 1) > b->budget_bytes) {
        st = rvs_fail(err, RVS_ERR_ARG, "GPU memory budget of %zu bytes is too small for one row", b->budget_bytes);
        goto done;
    }
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t ent = A->rowptr[i + 1] - A->rowptr[i], prod = prodptr[i + 1] - prodptr[i];
        int fits = block_bytes(b, cur.entries + ent, cur.products + prod, cur.r1 - cur.r0 + 1) <= b->budget_bytes &&
                   (b->max_products <= 0 || cur.products + prod <= b->max_products);
        if (!fits && cur.r1 > cur.r0) {
            if (!push_block(&v, &n, &cap, cur))
                goto nomem;
            cur = (rvs_spgemm_block){i, i, 0, 0, 0};
            fits = block_bytes(b, ent, prod, 1) <= b->budget_bytes &&
                   (b->max_products <= 0 || prod <= b->max_products);
        }
        if (!fits) {
            rvs_spgemm_block big = {i, i + 1, ent, prod, 1};
            if (!push_block(&v, &n, &cap, big))
                goto nomem;
            cur = (rvs_spgemm_block){i + 1, i + 1, 0, 0, 0};
            continue;
        }
        cur.r1 = i + 1;
        cur.entries += ent;
        cur.products += prod;
    }
    if (cur.r1 > cur.r0 && !push_block(&v, &n, &cap, cur))
        goto nomem;
    *blocks = v;
    *nblocks = n;
    v = NULL;
    goto done;
nomem:
    st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory planning SpGEMM blocks");
done:
    free(v);
    return st;
}

/* Blocks of consecutive rows holding at most cap entries of C (each block's end by binary
 * search: the offsets are monotone). */
rvs_status rvs_spgemm_plan_c(const int64_t *crowptr, int64_t rows, int64_t cap, rvs_spgemm_block **blocks,
                             int64_t *nblocks, rvs_error *err)
{
    rvs_spgemm_block *v = NULL;
    int64_t n = 0, vcap = 0, r = 0;
    *blocks = NULL;
    *nblocks = 0;
    if (cap < 1)
        return rvs_fail(err, RVS_ERR_ARG, "blocks of C need room for at least one entry");
    while (r < rows) {
        rvs_spgemm_block blk = {r, r + 1, crowptr[r + 1] - crowptr[r], 0, 0};
        if (blk.entries > cap) {
            blk.too_big = 1;
        } else { /* the last row end r1 with crowptr[r1] - crowptr[r] <= cap */
            int64_t lo = r + 1, hi = rows;
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo + 1) / 2;
                if (crowptr[mid] - crowptr[r] <= cap)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            blk.r1 = lo;
            blk.entries = crowptr[lo] - crowptr[r];
        }
        if (!push_block(&v, &n, &vcap, blk)) {
            free(v);
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory planning blocks of C");
        }
        r = blk.r1;
    }
    *blocks = v;
    *nblocks = n;
    return RVS_OK;
}

/* size bytes (free()-able). Below 32 MiB, glibc's largest mmap threshold, malloc serves them
 * from the heap, whose pages are reused; larger ones get fresh pages anyway: those are 2 MiB
 * aligned and marked for transparent huge pages, so that filling them takes few page faults.
 * NULL when out of memory. */
static void *alloc_big(size_t size)
{
    const size_t huge = (size_t)1 << 21;
    if (size < ((size_t)32 << 20))
        return malloc(size ? size : 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, (size + huge - 1) & ~(huge - 1), MADV_HUGEPAGE); /* advice only */
#endif
    return p;
}

/* C's entry arrays replaced by uninitialised ones for nnz entries. */
rvs_status rvs_spgemm_alloc_entries(rvs_csr *C, int64_t nnz, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(C->vtype);
    if (nnz < 0 || (uint64_t)nnz > SIZE_MAX / 8)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "C of %lld entries is too large", (long long)nnz);
    if (C->cols > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "C has more than 2^31-1 columns");
    free(C->colind);
    free(C->colind64);
    free(C->values);
    C->colind64 = NULL;
    C->colind = alloc_big((size_t)nnz * sizeof *C->colind);
    C->values = alloc_big((size_t)nnz * vs);
    C->nnz = nnz;
    if (!C->colind || !C->values)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a %lld x %lld matrix with %lld entries",
                        (long long)C->rows, (long long)C->cols, (long long)nnz);
    return RVS_OK;
}

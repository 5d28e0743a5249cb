/* pmf.c - the probability mass function of row lengths and its statistics */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_pmf.h"
#include "rvs_omp.h"

/* Ascending comparison of int64. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Run-length encode the row lengths into (k, b) pairs, by counting when the longest row is
 * small and by sorting otherwise (so one huge row does not cost a huge histogram). */
static rvs_status histogram(rvs_pmf *P, const rvs_csr *A, rvs_error *err)
{
    int64_t n = A->rows, mx = P->max, nb = 0;
    if (mx <= 4 * n + 1024) {
        int64_t *cnt = calloc((size_t)mx + 1, sizeof *cnt);
        if (!cnt)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the PMF");
        for (int64_t i = 0; i < n; i++)
            cnt[A->rowptr[i + 1] - A->rowptr[i]]++;
        for (int64_t k = 0; k <= mx; k++)
            nb += cnt[k] > 0;
        P->k = malloc((size_t)(nb ? nb : 1) * sizeof *P->k);
        P->b = malloc((size_t)(nb ? nb : 1) * sizeof *P->b);
        if (P->k && P->b) {
            nb = 0;
            for (int64_t k = 0; k <= mx; k++)
                if (cnt[k]) {
                    P->k[nb] = k;
                    P->b[nb++] = cnt[k];
                }
        }
        free(cnt);
    } else {
        int64_t *len = malloc((size_t)n * sizeof *len);
        if (!len)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the PMF");
        for (int64_t i = 0; i < n; i++)
            len[i] = A->rowptr[i + 1] - A->rowptr[i];
        qsort(len, (size_t)n, sizeof *len, cmp_i64);
        for (int64_t i = 0; i < n; i++)
            nb += i == 0 || len[i] != len[i - 1];
        P->k = malloc((size_t)(nb ? nb : 1) * sizeof *P->k);
        P->b = malloc((size_t)(nb ? nb : 1) * sizeof *P->b);
        if (P->k && P->b) {
            nb = 0;
            for (int64_t i = 0; i < n; i++) {
                if (i == 0 || len[i] != len[i - 1]) {
                    P->k[nb] = len[i];
                    P->b[nb++] = 0;
                }
                P->b[nb - 1]++;
            }
        }
        free(len);
    }
    if (!P->k || !P->b)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the PMF");
    P->nbins = nb;
    return RVS_OK;
}

/* P = PMF of A's row lengths with mean, deviation, extremes and ELL density. */
rvs_status rvs_pmf_compute(rvs_pmf *P, const rvs_csr *A, rvs_error *err)
{
    memset(P, 0, sizeof *P);
    P->rows = A->rows;
    P->cols = A->cols;
    P->nnz = A->nnz;
    int64_t mn = INT64_MAX, mx = 0, empty = 0;
    double sq = 0;
    double mean = A->rows ? (double)A->nnz / (double)A->rows : 0.0;
#pragma omp parallel for reduction(min : mn) reduction(max : mx) reduction(+ : empty, sq) \
    if (A->rows > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t l = A->rowptr[i + 1] - A->rowptr[i];
        mn = l < mn ? l : mn;
        mx = l > mx ? l : mx;
        empty += l == 0;
        sq += ((double)l - mean) * ((double)l - mean);
    }
    P->min = A->rows ? mn : 0;
    P->max = mx;
    P->empty_rows = empty;
    P->mean = mean;
    P->stddev = A->rows ? sqrt(sq / (double)A->rows) : 0.0;
    P->ell_density = (A->rows && mx) ? (double)A->nnz / ((double)A->rows * (double)mx) : 0.0;
    rvs_status st = histogram(P, A, err);
    if (st != RVS_OK)
        rvs_pmf_free(P);
    return st;
}

/* Free P's arrays and zero it. */
void rvs_pmf_free(rvs_pmf *P)
{
    if (!P)
        return;
    free(P->k);
    free(P->b);
    memset(P, 0, sizeof *P);
}

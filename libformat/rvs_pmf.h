/* rvs_pmf.h - the probability mass function of row lengths (Eq. 1 of pmf-partitioning) */
#ifndef RVS_PMF_H
#define RVS_PMF_H

#include "rvs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Row-length distribution of a matrix. Only lengths k with b_k > 0 are listed, ascending;
 * p_k = b_k / rows. */
typedef struct {
    int64_t rows, cols, nnz;
    int64_t empty_rows;  /* b_0 */
    int64_t min, max;    /* shortest and longest row (0 when rows == 0) */
    double mean, stddev; /* of the row lengths (population standard deviation) */
    double ell_density;  /* nnz / (rows * max): the whole matrix as one ELL; 0 if empty */
    int64_t nbins;       /* number of distinct row lengths */
    int64_t *k;          /* nbins row lengths, ascending */
    int64_t *b;          /* nbins row counts */
} rvs_pmf;

/* Compute the PMF of A. */
rvs_status rvs_pmf_compute(rvs_pmf *P, const rvs_csr *A, rvs_error *err);

/* Free P's arrays and zero it. */
void rvs_pmf_free(rvs_pmf *P);

#ifdef __cplusplus
}
#endif
#endif

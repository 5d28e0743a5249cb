/* check_complex.h - the complex SpMV check (check_complex.c) with the rule of check.c spelled
 * out: lenient passes over a row whose magnitude overflowed a double (the advisor's trials)
 * where rvs_spmv_check_complex fails it */
#ifndef RVS_CHECK_COMPLEX_H
#define RVS_CHECK_COMPLEX_H

#include "rvs_csr.h"

rvs_status rvs_spmv_check_complex_rule(const rvs_csr *A, const double *x, const double *y, double tol, int lenient,
                                       double *max_err, int64_t *worst_row, rvs_error *err);

#endif

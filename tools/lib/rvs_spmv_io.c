/* rvs_spmv_io.c - spmv's x, y and their check: x from a file or a seed, y checked and written */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_spmv_report.h"
#include "rvs_tool.h"

/* x into the engine's buffer (from -x FILE or the seed; NULL with the seed: the values alone);
 * returns the values used, as double ((re, im) pairs for a complex run). */
double *rvs_spmv_make_x(const char *xfile, unsigned long long seed, const rvs_stream *S, rvs_vtype vt, void *x)
{
    const int64_t n = S->A.cols, parts = rvs_vtype_is_complex(vt) ? 2 : 1;
    double *xd = NULL;
    rvs_error err;
    if (!xfile) {
        if (!(xd = malloc((size_t)(n * parts) * sizeof *xd + 8)))
            rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
        rvs_fill_x(x, xd, n, vt, seed);
        return xd;
    }
    int64_t r = 0, c = 0;
    rvs_tool_need_stdin(strcmp(xfile, "-") == 0 ? NULL : xfile);
    if ((parts == 2 ? rvs_mm_read_dense_complex(&xd, &r, &c, xfile, &err)
                    : rvs_mm_read_dense(&xd, &r, &c, xfile, &err)) != RVS_OK)
        rvs_tool_die_err(xfile, &err);
    if (r * c != n || (n > 0 && r != 1 && c != 1))
        rvs_tool_die(RVS_EX_DATAERR, xfile, "x has %lld entries, matrix has %lld columns", (long long)(r * c),
                     (long long)n);
    for (int64_t j = 0; j < n * parts; j++) {
        if (rvs_vtype_real(vt) == RVS_F64)
            ((double *)x)[j] = xd[j];
        else
            xd[j] = ((float *)x)[j] = (float)xd[j];
    }
    return xd;
}

/* Median of n values (copied). */
double rvs_spmv_median(const double *t, int n)
{
    double *v = malloc((size_t)n * sizeof *v + 8);
    if (!v)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    memcpy(v, t, (size_t)n * sizeof *v);
    double m = rvs_tool_median(v, n);
    free(v);
    return m;
}

/* Check y (host, plan type) against the reference ref and scale (rvs_spmv_reference, made before
 * the engine gave the hub back), else against A in double precision (complex: CXSparse; mixed:
 * A rounded to f32, y of f64 sums); dies with status 1 beyond the tolerance, or where a row's
 * magnitude overflowed (no tolerance bounds it: the library's message says so). */
void rvs_spmv_check_y(const rvs_csr *A, const double *xd, const double *ref, const double *scale, const double *yd,
                      rvs_vtype vt, rvs_spmv_results *R, const char *name)
{
    double tol = rvs_vtype_real(vt) == RVS_F64 ? 1e-10 : 1e-4, max_err = 0, *own = NULL;
    int64_t row = -1;
    rvs_error err;
    if (!ref && !rvs_vtype_is_complex(vt) && rvs_vtype_real(vt) != rvs_vtype_real(A->vtype)) {
        /* y not in A's precision (mixed): a reference of its own, checked as y's type */
        if (!(own = malloc(2 * (size_t)A->rows * sizeof *own + 8)))
            rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
        rvs_spmv_reference(A, xd, own, own + A->rows);
        ref = own;
        scale = own + A->rows;
    }
    rvs_status st = ref ? rvs_spmv_check_ref(ref, scale, yd, A->rows, vt, tol, &max_err, &row, &err)
                        : rvs_spmv_check(A, xd, yd, tol, &max_err, &row, &err);
    free(own);
    if (st == RVS_ERR_CHECK && isinf(max_err))
        rvs_tool_die(1, name, "%s", err.msg);
    if (st == RVS_ERR_CHECK)
        rvs_tool_die(1, name, "check failed: row %lld error %.3g > tol %.3g", (long long)row + 1, max_err, tol);
    if (st != RVS_OK)
        rvs_tool_die_err(name, &err);
    R->check_err = max_err > R->check_err ? max_err : R->check_err;
    R->checked = 1;
    R->tol = tol;
}

/* Write y (double) to -y FILE (no partial file on error). */
void rvs_spmv_write_y(const char *file, const double *yd, int64_t rows, int cplx)
{
    rvs_error err;
    FILE *f = rvs_tool_open_text(file, &err);
    if (!f)
        rvs_tool_die_err(file, &err);
    rvs_status st = cplx ? rvs_mm_write_array_complex(f, yd, rows, 1, &err)
                         : rvs_mm_write_array(f, yd, rows, 1, &err);
    rvs_status st2 = rvs_tool_close_text(f, file, st == RVS_OK, &err);
    if (st != RVS_OK || st2 != RVS_OK)
        rvs_tool_die_err(file, &err);
}

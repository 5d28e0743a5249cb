/* rvs_test.h - small helpers for the C tests: checks, random matrices, the shared matrices */
#ifndef RVS_TEST_H
#define RVS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include "rvs.h"

#define RVS_TEST_SKIP 77

/* Count of failed checks so far; tests end with `return rvs_test_done();`. */
extern int rvs_test_failures;
extern int rvs_test_checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        rvs_test_checks++;                                                           \
        if (!(cond)) {                                                               \
            rvs_test_failures++;                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)
#define CHECKF(cond, ...)                                                            \
    do {                                                                             \
        rvs_test_checks++;                                                           \
        if (!(cond)) {                                                               \
            rvs_test_failures++;                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)
#define CHECK_OK(st, err) CHECKF((st) == RVS_OK, "status %d: %s", (int)(st), (err)->msg)

/* Print "N checks, M failed" and return 0 / 1. A test that ran no check fails. */
int rvs_test_done(void);

/* A named test case of a program that runs one case per ctest test (regression tests). */
typedef struct {
    const char *name;
    void (*run)(void);
} rvs_test_case;

/* Run the case named by argv[1] (every case when none is named) and return rvs_test_done(),
 * or 2 for a name that is not among the n cases. */
int rvs_test_run_cases(int argc, char **argv, const rvs_test_case *cases, size_t n);

/* Folder of the shared matrices (env RVS_MATRICES), or NULL if absent. */
const char *rvs_test_matrices_dir(void);

/* Entries of INDEX.tsv: name, rows, cols, nnz_declared, field, symmetry, kind. */
typedef struct {
    char name[128];
    long long rows, cols, nnz_declared;
    char field[16], symmetry[24], kind[24];
    char path[1024];
} rvs_test_matrix;

/* Load INDEX.tsv; returns count (0 when absent) and a malloc'd array in *list. With the
 * environment variable RVS_TEST_MATRICES_MAX=N, only the first N. */
int rvs_test_matrix_list(rvs_test_matrix **list);

/* A random rows x cols CSR (f64) with roughly density*rows*cols entries, seeded. Some rows
 * are left empty on purpose when empty_rows is set. Values uniform in [-1, 1]. */
rvs_status rvs_test_random_csr(rvs_csr *A, int64_t rows, int64_t cols, double density, int empty_rows,
                               unsigned seed);

/* y = A*x in double by CSparse (cs_dl_gaxpy on the transpose of A's CSR): the independent
 * reference of the tests (a real A of either value type). */
void rvs_test_csparse_product(const rvs_csr *A, const double *x, double *y);

/* A made complex (vt RVS_C64 or RVS_C128): its values become the real parts, imaginary parts
 * are random in [-1, 1] (every fifth value purely real, every seventh purely imaginary). */
rvs_status rvs_test_complexify(rvs_csr *A, rvs_vtype vt, unsigned seed);

/* 1 when A and B are the same CSR: sizes, value type, row pointers, columns (32- or 64-bit)
 * and values bit for bit. */
int rvs_test_csr_same(const rvs_csr *A, const rvs_csr *B);

/* A rows x cols CSR with the given row lengths (columns spread evenly, values 1..). */
rvs_status rvs_test_csr_from_lengths(rvs_csr *A, const int64_t *len, int64_t rows, int64_t cols);

/* Deterministic pseudo-random doubles in [-1, 1]. */
void rvs_test_random_vector(double *x, int64_t n, unsigned seed);

/* Max over i of |a-b| / (|b|_inf-of-row-scale): relative error of y against reference ref,
 * scaled by the largest |ref| (or 1 if all zero). */
double rvs_test_rel_err(const double *y, const double *ref, int64_t n);

/* 1 if a GPU is usable (rvs_gpu_count() > 0). */
int rvs_test_have_gpu(void);

#endif

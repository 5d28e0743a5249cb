/* rvs_partition.h - row vector sets: Algorithms 1-4 of pmf-partitioning, METIS, and their metrics */
#ifndef RVS_PARTITION_H
#define RVS_PARTITION_H

#include "rvs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Partition algorithms. The numbers are written to the stream: never renumber. */
typedef enum { RVS_ALG_ROWS = 1, RVS_ALG_NNZ = 2, RVS_ALG_PMF = 3, RVS_ALG_DIAG = 4, RVS_ALG_METIS = 5 } rvs_alg;

/* Where a part runs. Written to the stream. */
typedef enum { RVS_DEV_CPU = 0, RVS_DEV_GPU = 1 } rvs_device;

/* Which entries of its rows a part holds (Algorithm 4 splits entries, not rows). */
typedef enum {
    RVS_ENTRIES_ALL = 0,    /* every entry of the part's rows */
    RVS_ENTRIES_DIAG = 1,   /* only entries inside the diagonal blocks (R1) */
    RVS_ENTRIES_OFFDIAG = 2 /* only entries outside them (R2) */
} rvs_entries;

/* One RVS. rows lists the part's matrix rows (0-based) in the order the part stores them:
 * ascending for Algorithms 1, 2 and 4 and metis; by length, then index, for Algorithm 3. */
typedef struct {
    rvs_device device;
    double cp; /* computing power given for this part */
    rvs_entries entries;
    int64_t nrows; /* N(A_i) */
    int64_t *rows;
    /* metrics (filled by rvs_partition_metrics) */
    int64_t nnz;    /* NNZ(A_i) */
    int64_t width;  /* W(A_i), longest row of the part (counting held entries only) */
    int64_t e;      /* E(A_i) = N * W */
    int64_t padded; /* E - NNZ: zeros an ELL of the part pads */
    double density; /* D(A_i) = NNZ / E (0 when E == 0) */
} rvs_part;

typedef struct {
    rvs_alg alg;
    int64_t block_size; /* Algorithm 4 only */
    int k;              /* number of parts */
    rvs_part *parts;
    /* metrics */
    int64_t nnz;     /* NNZ(A) */
    int64_t e_total; /* sum of E(A_i) */
    int64_t padded_total;
    double mean_density;   /* Eq. 7 */
    double mean_zero_fill; /* Eq. 9 */
    double rel_diff_pct;   /* sum_i |NNZ(A_i) - r_i NNZ| / (r_i NNZ) * 100, r_i = CP_i / sum CP */
} rvs_partition;

/* Split A into len(cp) parts with algorithm alg (rows, nnz, pmf, diag, metis), cp[i] > 0 the
 * computing power of part i and dev[i] its device (dev may be NULL: all CPU). block_size is
 * for diag (0 means 32). Fills the metrics too. Rules (see partition.1):
 *  - rows: part i ends at row floor(N * (CP_1+..+CP_i) / CP); the last part takes the rest.
 *  - nnz:  part i takes rows in order while that brings its NNZ nearer to CP_i/CP * NNZ
 *          (ties: fewer rows); the last part takes the rest.
 *  - pmf:  the same rule over rows ordered by length (b_0 first), then index.
 *  - diag: part 1 holds the entries inside the diagonal blocks of every row; parts 2..K split
 *          the remaining entries by rows with the nnz rule over CP_2..CP_K (K >= 2).
 *  - metis: METIS k-way on the graph of A + A^T (square A), rows weighted by their entries,
 *          minimising the x entries that cross parts; fixed seed (RVS_ERR_UNSUPPORTED when
 *          built without METIS, see rvs_partition_have_metis). */
rvs_status rvs_partition_compute(rvs_partition *P, const rvs_csr *A, rvs_alg alg, int k, const double *cp,
                                 const rvs_device *dev, int64_t block_size, rvs_error *err);

/* Recompute the per-part and per-partition metrics of P for A. */
rvs_status rvs_partition_metrics(rvs_partition *P, const rvs_csr *A, rvs_error *err);

/* Check P against A: every row index in range, row-mode parts disjoint and covering every
 * row; for diag, part 1 covers every row and parts 2..K are disjoint and complete. */
rvs_status rvs_partition_validate(const rvs_partition *P, const rvs_csr *A, rvs_error *err);

/* The part's submatrix (rows in the part's order, entries filtered by its entry class). */
rvs_status rvs_partition_extract(rvs_csr *S, const rvs_partition *P, int part, const rvs_csr *A, rvs_error *err);

/* The part's submatrix as rvs_partition_extract gives it, without copying entries when the part
 * is a run of consecutive rows holding all their entries (Algorithms 1 and 2 give such parts):
 * then *view = 1 and S is a view of A (free it with rvs_csr_view_free), else *view = 0 and S is
 * a copy (rvs_csr_free). */
rvs_status rvs_partition_part_csr(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                                  rvs_error *err);

/* *out = the matrix of part (part >= 0: as rvs_partition_part_csr gives it, into S) or A
 * itself (part < 0: the whole matrix; S zeroed). Free S with rvs_part_csr_free. */
rvs_status rvs_part_or_whole(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                             const rvs_csr **out, rvs_error *err);
/* Free what rvs_partition_part_csr or rvs_part_or_whole put in S (a view or a copy). */
void rvs_part_csr_free(rvs_csr *S, int view);

/* 1 when part's rows are a run of A's rows from *lo holding every entry (rvs_partition_part_csr
 * views such a part instead of copying it). */
int rvs_partition_part_is_run(const rvs_partition *P, int part, const rvs_csr *A, int64_t *lo);

/* (*copies)[p] = a copy of part p's submatrix, as rvs_partition_extract gives it, for each part
 * with need[p] != 0 (need NULL: every part; the others zeroed), made in one pass over A's rows
 * in row blocks of about block_nnz entries. A block whose rows all went to copies has its entries given back
 * (rvs_csr_release_entries: A's columns and values there must not be read again), so the hub
 * and the copies together hold about one matrix, not two. *copies = NULL (A untouched) when
 * this does not apply: a part named holds only some of its rows' entries, two parts named share
 * a row, or a size passes 2^48 entries or 65534 parts; the caller then extracts part by part.
 * Free with rvs_partition_split_free. */
rvs_status rvs_partition_split(rvs_csr **copies, const int *need, const rvs_partition *P, rvs_csr *A,
                               int64_t block_nnz, rvs_error *err);
/* Free the k copies of rvs_partition_split (NULL: nothing). */
void rvs_partition_split_free(rvs_csr *copies, int k);

/* Free P's arrays and zero it. */
void rvs_partition_free(rvs_partition *P);

/* 1 when this build has METIS (RVS_ALG_METIS), else 0. */
int rvs_partition_have_metis(void);

/* Name of an algorithm ("rows", "nnz", "pmf", "diag", "metis") and back (0 if unknown). */
const char *rvs_alg_name(rvs_alg a);
rvs_alg rvs_alg_from_name(const char *s);

#ifdef __cplusplus
}
#endif
#endif

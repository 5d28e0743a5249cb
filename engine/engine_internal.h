/* engine_internal.h - what the engine's files share and nobody else needs: hashing, the
 * device name the advisor keys its trials by, x filling and small allocation helpers */
#ifndef RVS_ENGINE_INTERNAL_H
#define RVS_ENGINE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include "rvs_engine.h"

/* FNV-1a over len bytes, continuing from h (start with RVS_HASH_SEED). */
#define RVS_HASH_SEED 0xcbf29ce484222325ULL
static inline uint64_t rvs_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static inline uint64_t rvs_hash_i64(uint64_t h, int64_t v)
{
    return rvs_hash(h, &v, sizeof v);
}

/* A sample of A's structure: about 4096 row pointers and 4096 column indices, evenly spread,
 * hashed into h (a fingerprint that costs nothing next to reading the matrix). */
uint64_t rvs_hash_structure(uint64_t h, const rvs_csr *A);
/* rvs_hash_structure of R's copy, without the copy (row_list.c). */
uint64_t rvs_hash_row_list(uint64_t h, const rvs_row_list *R);

/* *M = what the advisor's trials of R run on, values in vt: an evenly spread sample of its row
 * blocks (*sampled = 1) when it holds more than o->sample_nnz entries, its entries keeping their
 * diagonals (keep_diag) or their columns; else the part itself (R's hub when R is all of it,
 * else its copy). own holds what was made for it (rvs_csr_free). (advisor.c) */
rvs_status rvs_advise_trial_matrix(rvs_csr *own, const rvs_csr **M, int *sampled, const rvs_row_list *R,
                                   rvs_device dev, rvs_vtype vt, int keep_diag, const rvs_advisor_options *o,
                                   rvs_error *err);
/* 1 when the byte model of d's candidates finds diagonals worth storing (DIA survives the
 * pruning, or HYB-DIA's dense diagonals save bytes over COO): the sample then keeps each entry's
 * diagonal, else its column. */
int rvs_advise_keeps_diagonals(const rvs_decision *d);

/* The name trials are keyed by: the GPU's description, or "cpu/<threads>t". */
void rvs_device_name(rvs_device dev, char *buf, size_t n);

/* Fill n values of vt at y with NaN. */
void rvs_fill_nan(void *y, int64_t n, rvs_vtype vt);

/* The check tolerance of spmv(1) for a value type. */
static inline double rvs_check_tol(rvs_vtype vt)
{
    return rvs_vtype_real(vt) == RVS_F64 ? 1e-10 : 1e-4;
}

/* End of the run of A's rows from r holding at most target entries (whole rows, one at least),
 * at most hi: how row blocks and chunks are cut. */
static inline int64_t rvs_rows_within(const rvs_csr *A, int64_t r, int64_t hi, int64_t target)
{
    int64_t e = rvs_lower_bound_i64(A->rowptr, hi + 1, A->rowptr[r] + target + 1) - 1;
    return e > r ? e : r + 1;
}

/* 1 when item it runs a run of consecutive matrix rows with all their entries (its row block,
 * the whole matrix, or parts of Algorithms 1 and 2): the run into [*lo, *hi). (plan_memory.c) */
int rvs_item_run(const rvs_stream *S, const rvs_plan_item *it, int64_t *lo, int64_t *hi);

/* Where the runner takes an item's block from: built from the hub, the stream's own block for
 * its part, or the hub's arrays borrowed as a CSR block (a run of rows, CSR, the hub's type). */
typedef enum { RVS_SRC_BUILT = 0, RVS_SRC_BLOCK = 1, RVS_SRC_BORROWED = 2 } rvs_item_src;
rvs_item_src rvs_item_source(const rvs_stream *S, const rvs_plan_item *it, rvs_vtype vt);

/* to takes over the host x and y it shares with from (built with rvs_plan.vectors = from), so
 * that they outlive from (spmv_run.c). Nothing happens unless from owns what to shares. */
void rvs_spmv_engine_take_vectors(rvs_spmv_engine *to, rvs_spmv_engine *from);

/* The planner's memory pass over P: row blocks, then the device budget (plan_memory.c). */
rvs_status rvs_plan_memory(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev,
                           const rvs_plan_options *o, rvs_error *err);

/* A configuration file's path into buf: $var when set, else
 * ${XDG_CONFIG_HOME:-$HOME/.config}/rvskit/file, its folders made when mkdirs (calibrate.c). */
rvs_status rvs_config_path(char *buf, size_t n, const char *var, const char *file, int mkdirs, rvs_error *err);

#endif

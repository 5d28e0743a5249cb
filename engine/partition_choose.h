/* partition_choose.h - the row partitions of a matrix side by side (partition_choose.c): their
 * balance, cut and volume, and the one a job of ranks takes when the user names none */
#ifndef RVS_PARTITION_CHOOSE_H
#define RVS_PARTITION_CHOOSE_H

#include "rvs_partition.h"
#include "mpi_cut.h"

/* rvs_partition_pick weighs the partitions whose imbalance is at most this fraction above the
 * best one's: METIS keeps within 3%, and a part 10% heavier slows the compute by at most 10%,
 * while the volume it may save crosses PCIe or a network on every call. */
#define RVS_PICK_BALANCE_SLACK 0.10

/* One candidate partition of A into k parts and what it would cost a job of k ranks. */
typedef struct {
    rvs_alg alg;
    rvs_status status; /* RVS_OK, else why it was not made (msg) */
    char msg[256];
    int64_t max_nnz;  /* the most entries one part holds */
    double imbalance; /* max over the parts of nnz_i / (cp_i / sum(cp) * nnz): 1 is even */
    rvs_mpi_cut cut;  /* part i on rank i, x owned like y */
    double ms;        /* time to make the partition */
} rvs_partition_score;

/* The algorithms whose parts are sets of whole rows, in the order a tie is settled: nnz, rows,
 * pmf, then metis where this build has METIS. Returns how many (at most 4) went into algs. */
int rvs_partition_candidates(rvs_alg algs[4]);

/* Partition A into k parts with alg (cp: the parts' computing powers) into P, and score it in
 * s. A failure of the algorithm itself (metis on a rectangular matrix, say) is kept in s and
 * returns RVS_OK with P empty; RVS_ERR_NOMEM and the like return. P NULL: dropped once scored. */
rvs_status rvs_partition_score_one(rvs_partition_score *s, rvs_partition *P, const rvs_csr *A, rvs_alg alg, int k,
                                   const double *cp, rvs_error *err);

/* Which of the n scores to take: the smallest volume among those made whose imbalance is within RVS_PICK_BALANCE_SLACK of the best made; a tie
 * goes to the earlier. -1 when none was made. */
int rvs_partition_pick(const rvs_partition_score *s, int n);

/* rvs_partition_choose tries metis up to this many entries: past them METIS takes minutes, more
 * than the calls of a job; partition --alg metis makes such a partition once, to be kept. */
#define RVS_PICK_METIS_MAX_NNZ ((int64_t)1 << 25)

/* 1 when rvs_partition_choose tries alg on A (all but metis past RVS_PICK_METIS_MAX_NNZ). */
int rvs_partition_choose_tries(rvs_alg alg, const rvs_csr *A);

/* P = the partition of A into k equal parts that rvs_partition_pick takes among the candidates
 * (metis up to RVS_PICK_METIS_MAX_NNZ entries); why (len bytes) says which, and each one's
 * volume, imbalance and time. */
rvs_status rvs_partition_choose(rvs_partition *P, const rvs_csr *A, int k, char *why, size_t len, rvs_error *err);

#endif

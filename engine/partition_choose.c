/* partition_choose.c - the row partitions of a matrix side by side: balance, cut, volume and the
 * time each takes, and the rule that picks one for a job of ranks (partition_choose.h) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partition_choose.h"
#include "rvs_engine.h"

int rvs_partition_candidates(rvs_alg algs[4])
{
    /* nnz first: it was spmv-mpi's only choice, and its parts are runs of rows, read in place */
    int n = 0;
    algs[n++] = RVS_ALG_NNZ;
    algs[n++] = RVS_ALG_ROWS;
    algs[n++] = RVS_ALG_PMF;
    if (rvs_partition_have_metis())
        algs[n++] = RVS_ALG_METIS;
    return n;
}

/* max over the parts of nnz_i / (cp_i / sum(cp) * nnz), 1 for a matrix without entries. */
static double imbalance(const rvs_partition *P, int64_t *max_nnz)
{
    long double cpsum = 0, worst = 0;
    *max_nnz = 0;
    for (int i = 0; i < P->k; i++) {
        cpsum += P->parts[i].cp;
        *max_nnz = P->parts[i].nnz > *max_nnz ? P->parts[i].nnz : *max_nnz;
    }
    if (P->nnz == 0)
        return 1.0;
    for (int i = 0; i < P->k; i++) {
        const long double r = (long double)P->parts[i].nnz / ((long double)P->parts[i].cp / cpsum * P->nnz);
        worst = r > worst ? r : worst;
    }
    return (double)worst;
}

rvs_status rvs_partition_score_one(rvs_partition_score *s, rvs_partition *P, const rvs_csr *A, rvs_alg alg, int k,
                                   const double *cp, rvs_error *err)
{
    rvs_partition own;
    rvs_partition *Q = P ? P : &own;
    memset(s, 0, sizeof *s);
    s->alg = alg;
    const double t0 = rvs_engine_now();
    rvs_status st = rvs_partition_compute(Q, A, alg, k, cp, NULL, 0, err);
    s->ms = (rvs_engine_now() - t0) * 1e3;
    if (st == RVS_ERR_DIM || st == RVS_ERR_OVERFLOW || st == RVS_ERR_UNSUPPORTED) { /* not for this matrix */
        s->status = st;
        snprintf(s->msg, sizeof s->msg, "%s", err->msg);
        return RVS_OK;
    }
    if (st != RVS_OK)
        return st;
    s->imbalance = imbalance(Q, &s->max_nnz);
    int32_t *row_owner = malloc((size_t)(A->rows ? A->rows : 1) * sizeof *row_owner);
    int32_t *col_owner = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *col_owner);
    if (!row_owner || !col_owner)
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory counting the cut of %lld rows", (long long)A->rows);
    if (st == RVS_OK) {
        rvs_mpi_owners(Q, NULL, k, A->rows, A->cols, row_owner, col_owner);
        st = rvs_mpi_cut_count(A, row_owner, col_owner, k, 0, &s->cut, err);
    }
    free(row_owner);
    free(col_owner);
    if (st != RVS_OK || !P)
        rvs_partition_free(Q);
    return st;
}

int rvs_partition_pick(const rvs_partition_score *s, int n)
{
    double best_balance = 0;
    int pick = -1;
    for (int i = 0; i < n; i++)
        if (s[i].status == RVS_OK && (best_balance == 0 || s[i].imbalance < best_balance))
            best_balance = s[i].imbalance;
    for (int i = 0; i < n; i++)
        if (s[i].status == RVS_OK && s[i].imbalance <= best_balance * (1 + RVS_PICK_BALANCE_SLACK) &&
            (pick < 0 || s[i].cut.volume < s[pick].cut.volume))
            pick = i;
    return pick;
}

/* Append to why (len bytes) what printf gives. */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
    const size_t used = strlen(why);
    va_list ap;
    va_start(ap, fmt);
    if (used < len)
        vsnprintf(why + used, len - used, fmt, ap);
    va_end(ap);
}

int rvs_partition_choose_tries(rvs_alg alg, const rvs_csr *A)
{
    return alg != RVS_ALG_METIS || A->nnz <= RVS_PICK_METIS_MAX_NNZ;
}

rvs_status rvs_partition_choose(rvs_partition *P, const rvs_csr *A, int k, char *why, size_t len, rvs_error *err)
{
    rvs_alg algs[4];
    rvs_partition made[4];
    rvs_partition_score sc[4];
    rvs_status st = RVS_OK;
    const int n = rvs_partition_candidates(algs);
    double *cp = malloc((size_t)k * sizeof *cp);
    memset(P, 0, sizeof *P);
    memset(made, 0, sizeof made);
    if (!cp)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < k; i++)
        cp[i] = 1;
    for (int i = 0; i < n && st == RVS_OK; i++) {
        if (!rvs_partition_choose_tries(algs[i], A)) {
            memset(&sc[i], 0, sizeof sc[i]);
            sc[i].alg = algs[i];
            sc[i].status = RVS_ERR_UNSUPPORTED;
            snprintf(sc[i].msg, sizeof sc[i].msg, "metis not tried past %lld entries",
                     (long long)RVS_PICK_METIS_MAX_NNZ);
            continue;
        }
        st = rvs_partition_score_one(&sc[i], &made[i], A, algs[i], k, cp, err);
    }
    const int pick = st == RVS_OK ? rvs_partition_pick(sc, n) : -1;
    if (st == RVS_OK && pick < 0)
        st = rvs_fail(err, RVS_ERR_INTERNAL, "no row partition of %d parts could be made", k);
    if (st == RVS_OK && pick >= 0) {
        *P = made[pick];
        memset(&made[pick], 0, sizeof made[pick]);
        why[0] = 0;
        say(why, len,
            "partition %s: the least volume within %.0f%% of the best imbalance; volume (x entries a call), "
            "imbalance, ms:",
            rvs_alg_name(sc[pick].alg), RVS_PICK_BALANCE_SLACK * 100);
        for (int i = 0; i < n; i++)
            if (sc[i].status == RVS_OK)
                say(why, len, " %s %lld %.4f %.1f;", rvs_alg_name(sc[i].alg), (long long)sc[i].cut.volume,
                    sc[i].imbalance, sc[i].ms);
            else
                say(why, len, " %s;", sc[i].msg); /* its message names it */
        if (strlen(why) > 0 && why[strlen(why) - 1] == ';')
            why[strlen(why) - 1] = 0;
        int R, C; /* the 2-D layout beside them: reported, never taken (no measurement says when it pays) */
        rvs_mpi_grid_shape(k, &R, &C);
        say(why, len, ". --grid %dx%d would move %lld x and partial y entries a call", R, C,
            (long long)rvs_mpi_grid_volume(A->rows, A->cols, R, C));
    }
    for (int i = 0; i < n; i++)
        rvs_partition_free(&made[i]);
    free(cp);
    return st;
}

/* mpi_report.c - spmv-mpi's tables: per mode and rank, then per mode the job against the cut */
#include <string.h>
#include "mpi_report.h"

void mpi_plan_formats(const rvs_mpi_spmv *M, char *buf, size_t n)
{
    mpi_formats_of(rvs_mpi_plan(M), buf, n);
}

void mpi_formats_of(const rvs_plan *P, char *buf, size_t n)
{
    size_t used = 0;
    snprintf(buf, n, "-");
    for (int i = 0; P && i < P->nitems && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "+" : "",
                                 rvs_format_lookup(P->items[i].format)->name);
}

void mpi_exchange_of(const rvs_mpi_spmv *M, rank_report *R)
{
    snprintf(R->exchange, sizeof R->exchange, "%s", rvs_mpi_exchange_name(M));
    rvs_mpi_exchange_pairs(M, R->pairs, sizeof R->pairs);
    snprintf(R->why, sizeof R->why, "%s", rvs_mpi_exchange_why(M));
}

/* The exchange of rank r in mode m (calls with host vectors stage through host memory). */
static const char *exchange_in(const rank_report *R, int m)
{
    return R->info.recv_ranks + R->info.send_ranks == 0 ? "-" : m ? R->exchange : "host";
}

/* The job's exchange in mode m: peer, host or peer+host over its ranks, - without messages. */
static const char *job_exchange(const rank_report *R, int K, int m)
{
    int peer = 0, host = 0;
    for (int r = 0; r < K; r++) {
        const char *e = exchange_in(&R[r], m);
        peer |= strstr(e, "peer") != NULL;
        host |= strstr(e, "host") != NULL;
    }
    return peer && host ? "peer+host" : peer ? "peer" : host ? "host" : "-";
}

void mpi_report_exchange(FILE *f, const rank_report *R, int K, const char *asked)
{
    int first_why = -1, n = 0;
    fprintf(f, "# exchange %s: calls with host vectors through host memory; resident calls, receiver <- sender:",
            asked);
    for (int r = 0; r < K; r++) {
        if (R[r].info.recv_ranks > 0)
            fprintf(f, "%s %d <- %s", n++ ? ";" : "", r, R[r].pairs);
        if (first_why < 0 && R[r].why[0])
            first_why = r;
    }
    fprintf(f, "%s\n", n ? "" : " none");
    if (first_why >= 0 && strcmp(asked, "host") != 0)
        fprintf(f, "# exchange host where not peer: %s\n", R[first_why].why);
}

static const char *what[2] = {"call", "resident"};

/* The per-rank table: its header, then a row per mode and rank. */
static void rank_rows(FILE *f, const rank_report *R, int K, int resident)
{
    fprintf(f, "# mode rank device parts rows nnz formats recv_cols send_cols call_ms phase0_ms phase1_ms "
               "exchange_ms wait_ms idle_ms exchange\n");
    for (int m = 0; m < 1 + resident; m++)
        for (int r = 0; r < K; r++) {
            const rvs_mpi_info *I = &R[r].info;
            const double *t = R[r].med[m];
            char dev[16];
            if (R[r].device >= 0)
                snprintf(dev, sizeof dev, "gpu%d", R[r].device);
            else
                snprintf(dev, sizeof dev, "cpu");
            fprintf(f, "%s %d %s %d %lld %lld %s %lld %lld %.4f %.4f %.4f %.4f %.4f %.4f %s\n", what[m], r, dev,
                    I->parts, (long long)I->rows, (long long)I->nnz, R[r].formats, (long long)I->recv_cols,
                    (long long)I->send_cols, t[0], t[1], t[2], t[3], t[4], t[5], exchange_in(&R[r], m));
        }
}

/* The job's head line. */
static void head(FILE *f, const char *name, const rvs_csr *A, rvs_vtype vt, int K, const char *mode, int iters)
{
    fprintf(f, "# spmv-mpi %s: %lld x %lld, nnz %lld, %s, %d rank%s, mode %s, median of %d calls\n", name,
            (long long)A->rows, (long long)A->cols, (long long)A->nnz, vt == RVS_F64 ? "f64" : "f32", K,
            K > 1 ? "s" : "", mode, iters);
}

static void check_line(FILE *f, rvs_vtype vt, double check_err)
{
    fprintf(f, "# check ok: largest error %.3g, tolerance %.3g (reference summed in double, row by row)\n",
            check_err, vt == RVS_F64 ? 1e-10 : 1e-4);
}

void mpi_report(FILE *f, const char *name, const rvs_stream *S, const int *rank_of, const rank_report *R, int K,
                const rvs_mpi_cut *cut, rvs_vtype vt, const char *mode, int iters, int resident, int checked,
                double check_err)
{
    const rvs_csr *A = &S->A;
    const double vs = (double)rvs_vtype_size(vt);
    int64_t sent = 0, msgs = 0;
    for (int r = 0; r < K; r++)
        sent += R[r].info.send_cols, msgs += R[r].info.send_ranks;
    head(f, name, A, vt, K, mode, iters);
    fprintf(f, "# partition %s, %d parts; rank of each part:", rvs_alg_name(S->partition.alg), S->partition.k);
    for (int i = 0; i < S->partition.k; i++)
        fprintf(f, " %d", rank_of[i]);
    fprintf(f, "\n");
    rank_rows(f, R, K, resident);
    fprintf(f, "# job ranks call_ms gflops exchanged_bytes messages cut_volume_bytes edge_cut exchange\n");
    for (int m = 0; m < 1 + resident; m++) {
        const double ms = R[0].med[m][REPORT_TIMES - 1];
        fprintf(f, "%s %d %.4f %.5g %.0f %lld %.0f %lld %s\n", what[m], K, ms,
                ms > 0 ? 2.0 * (double)A->nnz / ms / 1e6 : 0, (double)sent * vs, (long long)msgs,
                cut->volume >= 0 ? (double)cut->volume * vs : -1.0, (long long)cut->edge_cut,
                job_exchange(R, K, m));
    }
    if (checked)
        check_line(f, vt, check_err);
}

void mpi_report_grid(FILE *f, const char *name, const rvs_stream *S, int R, int C, const int64_t *row_cut,
                     const int64_t *col_cut, int had_partition, int permuted, const rank_report *Rk, int K,
                     rvs_vtype vt, const char *mode, int iters, int resident, int checked, double check_err)
{
    const rvs_csr *A = &S->A;
    const double vs = (double)rvs_vtype_size(vt);
    int64_t sent = 0, msgs = 0;
    for (int r = 0; r < K; r++)
        sent += Rk[r].info.send_cols, msgs += Rk[r].info.send_ranks;
    const int64_t volume = rvs_mpi_grid_volume(A->rows, A->cols, R, C);
    head(f, name, A, vt, K, mode, iters);
    fprintf(f, "# grid %dx%d: rank r runs block (r / %d, r %% %d); row blocks from rows", R, C, C, C);
    for (int i = 0; i < R; i++)
        fprintf(f, " %lld", (long long)row_cut[i] + 1);
    fprintf(f, ", column blocks from columns");
    for (int j = 0; j < C; j++)
        fprintf(f, " %lld", (long long)col_cut[j] + 1);
    fprintf(f, " (balanced by non-zeros%s)\n",
            permuted ? ", of the matrix permuted at random: --grid-permute" : "");
    if (had_partition)
        fprintf(f, "# grid: the stream's partition (%s, %d parts) is not used\n", rvs_alg_name(S->partition.alg),
                S->partition.k);
    fprintf(f,
            "# grid: recv_cols, send_cols: x entries of the expand and partial y entries of the fold per "
            "call; phase0_ms: the block; exchange_ms: the expand and the fold%s\n",
            resident ? " (resident: with the copies of the rank's pieces of x and y between GPU and host)" : "");
    rank_rows(f, Rk, K, resident);
    fprintf(f, "# job ranks call_ms gflops exchanged_bytes messages cut_volume_bytes edge_cut exchange\n");
    for (int m = 0; m < 1 + resident; m++) {
        const double ms = Rk[0].med[m][REPORT_TIMES - 1];
        fprintf(f, "%s %d %.4f %.5g %.0f %lld %.0f -1 %s\n", what[m], K, ms,
                ms > 0 ? 2.0 * (double)A->nnz / ms / 1e6 : 0, (double)sent * vs, (long long)msgs,
                (double)volume * vs, K > 1 ? "host" : "-");
    }
    if (checked)
        check_line(f, vt, check_err);
}

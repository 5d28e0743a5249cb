/* bench_cut.c - what SpMV over K ranks must exchange, without running it: for each partition
 * algorithm and rank count, the parts of equal computing power one per rank, the cut as
 * spmv-mpi(1) would move it (x owned like y), and the load of the fullest rank. Feeds the model
 * of bench/mpi_model.py.
 *   bench_cut [--algs rows,nnz,pmf] [--node-size N] FILE K...   (FILE: stream or .mtx)
 * With --node-size, also what crosses between nodes of N consecutive ranks. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_cut.h"
#include "rvs_tool.h"

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"algs", required_argument, 0, 'a'}, {"node-size", required_argument, 0, 'N'}, {0, 0, 0, 0}};
    const char *algs = "rows,nnz,pmf";
    int node_size = 0;
    rvs_stream S;
    rvs_error err;
    int c;
    rvs_tool_init("bench_cut");
    while ((c = getopt_long(argc, argv, "a:N:", opts, NULL)) != -1) {
        if (c == 'a')
            algs = optarg;
        else if (c == 'N')
            node_size = (int)rvs_tool_parse_int("--node-size", optarg, 1, 64);
        else
            rvs_tool_usage("usage: bench_cut [--algs rows,nnz,pmf] [--node-size N] FILE K...");
    }
    if (argc - optind < 2)
        rvs_tool_usage("usage: bench_cut [--algs rows,nnz,pmf] [--node-size N] FILE K...");
    const char *name = argv[optind];
    if (rvs_tool_read_input(name, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    const rvs_csr *A = &S.A;
    int32_t *row_owner = malloc((size_t)A->rows * sizeof *row_owner + 4);
    int32_t *col_owner = malloc((size_t)A->cols * sizeof *col_owner + 4);
    if (!row_owner || !col_owner)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    printf("# bench_cut %s: %lld x %lld, nnz %lld\n", name, (long long)A->rows, (long long)A->cols,
           (long long)A->nnz);
    printf("# alg K edge_cut volume max_recv max_send pairs max_part_nnz mean_part_nnz node_size node_out node_in "
           "max_traffic\n");
    char list[256];
    snprintf(list, sizeof list, "%s", algs);
    for (char *save = NULL, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        const rvs_alg alg = rvs_alg_from_name(a);
        if (!alg || alg == RVS_ALG_DIAG)
            rvs_tool_usage("--algs: '%s' is not rows, nnz or pmf", a);
        for (int i = optind + 1; i < argc; i++) {
            const int k = (int)rvs_tool_parse_int("K", argv[i], 1, 64);
            double *cp = malloc((size_t)k * sizeof *cp);
            rvs_partition P;
            rvs_mpi_cut cut;
            if (!cp)
                rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
            for (int j = 0; j < k; j++)
                cp[j] = 1;
            if (rvs_partition_compute(&P, A, alg, k, cp, NULL, 0, &err) != RVS_OK)
                rvs_tool_die_err(name, &err);
            rvs_mpi_owners(&P, NULL, k, A->rows, A->cols, row_owner, col_owner);
            const int ns = node_size > 0 && node_size < k ? node_size : 0;
            if (rvs_mpi_cut_count(A, row_owner, col_owner, k, ns, &cut, &err) != RVS_OK)
                rvs_tool_die_err(name, &err);
            int64_t most = 0;
            for (int j = 0; j < k; j++)
                most = P.parts[j].nnz > most ? P.parts[j].nnz : most;
            printf("%s %d %lld %lld %lld %lld %lld %lld %.0f %d %lld %lld %lld\n", a, k, (long long)cut.edge_cut,
                   (long long)cut.volume, (long long)cut.max_recv, (long long)cut.max_send, (long long)cut.pairs,
                   (long long)most, (double)A->nnz / k, ns, (long long)cut.node_out, (long long)cut.node_in,
                   (long long)cut.max_traffic);
            fflush(stdout);
            rvs_partition_free(&P);
            free(cp);
        }
    }
    free(row_owner);
    free(col_owner);
    rvs_stream_free(&S);
    return 0;
}

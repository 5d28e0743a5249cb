/* bench_rows.c - peak memory of building a format from the hub: whole (hub and block side by
 * side) against row blocks that give the hub back as they go (rvs_fmt_build_rows).
 *   bench_rows FORMAT whole|rows [MAX_NNZ [FILE]]   (FILE: a stream or .mtx; default stdin)
 * Prints "mode format hub_MB blocks_MB peak_MB seconds" (peak: this process's maximum RSS). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "rvs_tool.h"

int main(int argc, char **argv)
{
    rvs_stream S;
    rvs_error err;
    rvs_tool_init("bench_rows");
    if (argc < 3 || (strcmp(argv[2], "whole") != 0 && strcmp(argv[2], "rows") != 0))
        rvs_tool_usage("usage: bench_rows FORMAT whole|rows [MAX_NNZ [FILE]]");
    const rvs_format_ops *ops = rvs_format_by_name(argv[1]);
    if (!ops)
        rvs_tool_usage("unknown format '%s'", argv[1]);
    int64_t max_nnz = argc > 3 ? rvs_tool_parse_int("MAX_NNZ", argv[3], 1, INT64_MAX) : 8 << 20;
    const char *in = argc > 4 ? argv[4] : NULL;
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(rvs_tool_input_name(in), &err);
    const rvs_csr *A = &S.A;
    double hub = 8.0 * (double)(A->rows + 1) + (double)A->nnz * (4.0 + (double)rvs_vtype_size(A->vtype)),
           blocks = 0;
    double t0 = rvs_tool_now();
    if (strcmp(argv[2], "whole") == 0) {
        rvs_fmt F;
        if (rvs_fmt_from_csr(&F, ops->id, A, NULL, &err) != RVS_OK)
            rvs_tool_die_err("build", &err);
        for (int i = 0; i < F.narrays; i++)
            blocks += (double)F.array[i].count * (double)rvs_dtype_size(F.array[i].dtype);
        rvs_fmt_free(&F);
    } else {
        rvs_fmt *B;
        int64_t *cuts;
        int nb;
        if (rvs_fmt_build_rows(&B, &cuts, &nb, &S.A, 0, A->rows, ops->id, NULL, max_nnz, 1, &err) != RVS_OK)
            rvs_tool_die_err("build", &err);
        for (int k = 0; k < nb; k++) {
            for (int i = 0; i < B[k].narrays; i++)
                blocks += (double)B[k].array[i].count * (double)rvs_dtype_size(B[k].array[i].dtype);
            rvs_fmt_free(&B[k]);
        }
        free(B);
        free(cuts);
    }
    double t = rvs_tool_now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-6s %-8s %10.1f %10.1f %10.1f %8.3f\n", argv[2], ops->name, hub / 1e6, blocks / 1e6,
           (double)ru.ru_maxrss * 1024.0 / 1e6, t);
    rvs_stream_free(&S);
    return 0;
}

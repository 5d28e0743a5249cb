/* pmf_stats.c - an example program built against the installed librvskit: read a sparse
 * matrix (Matrix Market, plain or gzip'd, or an RVS stream) and print the statistics of the
 * distribution of its row lengths.
 *   cmake -S examples -B build-example -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build-example
 *   cc pmf_stats.c $(pkg-config --cflags --libs rvskit) -o pmf_stats   (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig)
 *   ./pmf_stats A.mtx */
#include <stdio.h>
#include <string.h>
#include <rvskit/rvskit.h>

/* Read path into A: a stream when it starts with the stream's magic, else Matrix Market. */
static rvs_status read_matrix(const char *path, rvs_csr *A, rvs_error *err)
{
    unsigned char head[RVS_MAGIC_LEN] = {0};
    rvs_stream S;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rvs_fail(err, RVS_ERR_NOFILE, "cannot open %s", path);
    size_t n = fread(head, 1, sizeof head, f);
    if (!rvs_stream_sniff(head, n)) {
        fclose(f);
        return rvs_mm_read_file(A, NULL, path, NULL, NULL, err);
    }
    rvs_status st = rvs_stream_read(&S, f, head, n, err);
    fclose(f);
    if (st == RVS_OK) {
        *A = S.A; /* keep the hub, free the rest */
        memset(&S.A, 0, sizeof S.A);
        rvs_stream_free(&S);
    }
    return st;
}

int main(int argc, char **argv)
{
    rvs_csr A;
    rvs_pmf P;
    rvs_error err;
    if (argc != 2) {
        fprintf(stderr, "usage: pmf_stats MATRIX\n");
        return 64;
    }
    if (read_matrix(argv[1], &A, &err) != RVS_OK || rvs_pmf_compute(&P, &A, &err) != RVS_OK) {
        fprintf(stderr, "pmf_stats: %s: %s\n", argv[1], err.msg);
        return rvs_status_exit_code(err.code);
    }
    printf("librvskit %d.%d.%d (CUDA %s)\n", RVSKIT_VERSION_MAJOR, RVSKIT_VERSION_MINOR, RVSKIT_VERSION_PATCH,
           RVSKIT_HAVE_CUDA ? "yes" : "no");
    printf("rows %lld cols %lld nnz %lld\n", (long long)P.rows, (long long)P.cols, (long long)P.nnz);
    printf("row length min %lld max %lld mean %.3f stddev %.3f\n", (long long)P.min, (long long)P.max, P.mean,
           P.stddev);
    printf("empty rows %lld, ELL density %.4f, %lld distinct lengths\n", (long long)P.empty_rows, P.ell_density,
           (long long)P.nbins);
    printf("# k b_k p_k\n");
    for (int64_t i = 0; i < P.nbins; i++)
        printf("%lld %lld %.6f\n", (long long)P.k[i], (long long)P.b[i], (double)P.b[i] / (double)P.rows);
    rvs_pmf_free(&P);
    rvs_csr_free(&A);
    return 0;
}

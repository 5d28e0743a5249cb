/* bench_mmread.c - Matrix Market read throughput, and a generator of large test files */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "rvs_tool.h"

#define ROW_LENGTH 10

/* splitmix64: a stateless hash, so rows can be generated in parallel. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Write a square random matrix of `entries` entries (ROW_LENGTH per row, columns near the
 * diagonal or anywhere, values uniform in [-1, 1]) as coordinate real general. */
static int generate(const char *path, int64_t entries)
{
    rvs_csr A;
    rvs_error err;
    int64_t rows = entries / ROW_LENGTH > 0 ? entries / ROW_LENGTH : 1;
    int rc = 1;
    FILE *f = NULL;
    if (rvs_csr_alloc(&A, rows, rows, entries, RVS_F64, &err) != RVS_OK) {
        fprintf(stderr, "bench_mmread: %s\n", err.msg);
        return 1;
    }
    double *v = A.values;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < entries; k++) {
        int64_t r = k / ROW_LENGTH < rows ? k / ROW_LENGTH : rows - 1;
        uint64_t h = mix((uint64_t)k);
        /* most entries in a band of 1000 around the diagonal, one in four anywhere */
        int64_t c = (h & 3) ? r - 500 + (int64_t)((h >> 2) % 1000) : (int64_t)((h >> 2) % (uint64_t)rows);
        if (c < 0 || c >= rows)
            c = (int64_t)((h >> 12) % (uint64_t)rows);
        A.colind[k] = (int32_t)c;
        v[k] = (double)(mix(h) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
    for (int64_t r = 0; r < rows; r++)
        A.rowptr[r] = r * ROW_LENGTH;
    A.rowptr[rows] = entries;
    f = fopen(path, "wb");
    if (!f) {
        perror(path);
        goto done;
    }
    if (rvs_mm_write_coordinate(f, &A, 0, &err) != RVS_OK) {
        fprintf(stderr, "bench_mmread: %s: %s\n", path, err.msg);
        goto done;
    }
    rc = 0;
done:
    if (f && fclose(f) != 0)
        rc = 1;
    rvs_csr_free(&A);
    return rc;
}

/* Read path `repeat` times; print name bytes seconds(best) MB_per_s nnz. */
static int bench_file(const char *path, int repeat)
{
    struct stat sb;
    double best = 0;
    int64_t nnz = 0;
    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    for (int i = 0; i < repeat; i++) {
        rvs_csr A;
        rvs_error err;
        double t0 = rvs_tool_now();
        if (rvs_mm_read_file(&A, NULL, path, NULL, NULL, &err) != RVS_OK) {
            fprintf(stderr, "bench_mmread: %s: %s\n", path, err.msg);
            return 1;
        }
        double t = rvs_tool_now() - t0;
        nnz = A.nnz;
        rvs_csr_free(&A);
        if (i == 0 || t < best)
            best = t;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("%-24s %12lld %10.4f %10.1f %12lld\n", name, (long long)sb.st_size, best,
           (double)sb.st_size / 1e6 / best, (long long)nnz);
    return 0;
}

int main(int argc, char **argv)
{
    int repeat = 3, rc = 0, i = 1;
    if (argc == 4 && strcmp(argv[1], "--generate") == 0)
        return generate(argv[2], strtoll(argv[3], NULL, 10));
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        repeat = atoi(argv[2]);
        i = 3;
    }
    if (i >= argc || repeat < 1) {
        fprintf(stderr, "usage: bench_mmread [-n REPEAT] FILE...\n"
                        "       bench_mmread --generate FILE ENTRIES\n");
        return 64;
    }
    printf("%-24s %12s %10s %10s %12s\n", "name", "bytes", "seconds", "MB_per_s", "nnz");
    for (; i < argc; i++)
        rc |= bench_file(argv[i], repeat);
    return rc;
}

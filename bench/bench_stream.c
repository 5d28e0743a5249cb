/* bench_stream.c - RVS stream throughput: write a generated CSR, read one back, CRC-32C alone.
 *   bench_stream write [NNZ] [f32|f64] > OUT   generate a CSR (10 entries per row), write it
 *   bench_stream read < IN                      read and validate a stream (clock starts at its first byte)
 *   bench_stream crc [MIB]                      CRC-32C of an in-memory buffer
 * Each prints one line "what bytes seconds GB_per_s" to stderr; stdout carries the stream. */
#include <stdlib.h>
#include <string.h>
#include "rvs_tool.h"

#define ROW_NNZ 10

/* Print one table row to stderr. */
static void report(const char *what, double bytes, double seconds)
{
    fprintf(stderr, "%-12s %14.0f %10.4f %10.3f\n", what, bytes, seconds, bytes / seconds / 1e9);
}

/* A rows x rows CSR with ROW_NNZ sorted, distinct columns per row, filled in parallel. */
static rvs_status generate(rvs_csr *A, int64_t nnz, rvs_vtype vt, rvs_error *err)
{
    int64_t rows = nnz / ROW_NNZ, stride = rows / ROW_NNZ;
    rvs_status st = rvs_csr_alloc(A, rows, rows, rows * ROW_NNZ, vt, err);
    if (st != RVS_OK)
        return st;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++) {
        A->rowptr[i + 1] = (i + 1) * ROW_NNZ;
        for (int64_t j = 0; j < ROW_NNZ; j++) {
            int64_t at = i * ROW_NNZ + j;
            A->colind[at] = (int32_t)(j * stride + i % stride);
            if (vt == RVS_F64)
                ((double *)A->values)[at] = 1.0 + (double)(at % 1000) / 7.0;
            else
                ((float *)A->values)[at] = 1.0f + (float)(at % 1000) / 7.0f;
        }
    }
    A->rowptr[0] = 0;
    return RVS_OK;
}

/* Bytes the stream of S takes (prelude, chunk overheads, payloads): for the table. */
static double stream_bytes(const rvs_stream *S)
{
    const rvs_csr *A = &S->A;
    return 16.0 + 5 * 16 + 36 + strlen(S->name) + 3 * 24 + 8 + 8.0 * (double)(A->rows + 1) +
           (4.0 + (double)rvs_vtype_size(A->vtype)) * (double)A->nnz;
}

/* Generate and write a stream to stdout. */
static int bench_write(int64_t nnz, rvs_vtype vt)
{
    rvs_stream S = {0};
    rvs_error err;
    rvs_status st = generate(&S.A, nnz, vt, &err);
    if (st != RVS_OK)
        rvs_tool_die_err(NULL, &err);
    snprintf(S.name, sizeof S.name, "generated-%lld", (long long)nnz);
    double t0 = rvs_tool_now();
    st = rvs_stream_write(stdout, &S, &err);
    double t1 = rvs_tool_now();
    if (st != RVS_OK)
        rvs_tool_die_err("stdout", &err);
    report("write", stream_bytes(&S), t1 - t0);
    rvs_stream_free(&S);
    return 0;
}

/* Read a stream from stdin; the clock starts once its first bytes are there. */
static int bench_read(void)
{
    rvs_stream S;
    rvs_error err;
    unsigned char head[RVS_MAGIC_LEN];
    if (fread(head, 1, sizeof head, stdin) != sizeof head)
        rvs_tool_die(RVS_EX_DATAERR, "stdin", "no stream");
    double t0 = rvs_tool_now();
    rvs_status st = rvs_stream_read(&S, stdin, head, sizeof head, &err);
    double t1 = rvs_tool_now();
    if (st != RVS_OK)
        rvs_tool_die_err("stdin", &err);
    report("read", stream_bytes(&S), t1 - t0);
    rvs_stream_free(&S);
    return 0;
}

/* CRC-32C of a buffer of mib MiB, in cache-sized pieces as the stream code does it. */
static int bench_crc(size_t mib)
{
    size_t n = mib << 20;
    unsigned char *buf = malloc(n);
    if (!buf)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    memset(buf, 0x5a, n);
    uint32_t c = 0;
    double t0 = rvs_tool_now();
    for (int rep = 0; rep < 4; rep++)
        c = rvs_crc32c(c, buf, n);
    double t1 = rvs_tool_now();
    report("crc32c", 4.0 * (double)n, t1 - t0);
    free(buf);
    return c == 0xdeadbeef; /* keep the loop */
}

int main(int argc, char **argv)
{
    rvs_tool_init("bench_stream");
    if (argc >= 2 && strcmp(argv[1], "write") == 0)
        return bench_write(argc >= 3 ? rvs_tool_parse_int("NNZ", argv[2], ROW_NNZ * ROW_NNZ, INT64_MAX / 16)
                                     : 50000000,
                           argc >= 4 && strcmp(argv[3], "f32") == 0 ? RVS_F32 : RVS_F64);
    if (argc >= 2 && strcmp(argv[1], "read") == 0)
        return bench_read();
    if (argc >= 2 && strcmp(argv[1], "crc") == 0)
        return bench_crc(argc >= 3 ? (size_t)rvs_tool_parse_int("MIB", argv[2], 1, 1 << 16) : 512);
    rvs_tool_usage("usage: bench_stream write [NNZ] [f32|f64] | read | crc [MIB]");
}

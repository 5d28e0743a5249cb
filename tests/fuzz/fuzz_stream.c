/* fuzz_stream.c - libFuzzer target: the RVS stream reader on any bytes, every chunk kind; what it
 * accepts must write back and read again to the same bytes, and its matrix must go through
 * Matrix Market and back unchanged */
#include <math.h>
#include "fuzz_common.h"

/* Write S into a memory buffer; abort when that fails (a valid stream always writes). */
static char *write_mem(const rvs_stream *S, size_t *len)
{
    char *mem = NULL;
    rvs_error err;
    FILE *f = open_memstream(&mem, len);
    if (!f)
        abort();
    rvs_status st = rvs_stream_write(f, S, &err);
    if (fclose(f) != 0 || st != RVS_OK)
        FUZZ_FINDING("a stream that was read cannot be written: %s", err.msg);
    return mem;
}

/* A's value k, in A's own type, as bits (NaN: only its class and sign, payloads are not kept). */
static uint64_t value_bits(const rvs_csr *A, int64_t k)
{
    double v = rvs_csr_value(A, k);
    uint64_t b;
    if (v != v)
        return signbit(v) ? 1 : 2;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* A valid stream's matrix, written as Matrix Market the way convert --to mtx writes it (field
 * from its mmhd chunk, symmetry when exact, fewest digits), reads back to the same matrix. */
static void mm_round_trip(const rvs_stream *S)
{
    rvs_mm_info src;
    rvs_mm_write_options o;
    rvs_csr B = {0};
    rvs_error err;
    char *mem = NULL;
    size_t len = 0;
    memset(&o, 0, sizeof o);
    if (rvs_stream_mm_source(S, &src))
        o.field = src.field;
    FILE *f = open_memstream(&mem, &len);
    if (!f)
        abort();
    rvs_status st = rvs_mm_write(f, &S->A, &o, NULL, &err);
    if (fclose(f) != 0 || (st != RVS_OK && st != RVS_ERR_NOMEM))
        FUZZ_FINDING("a valid matrix does not write as Matrix Market: %s", err.msg);
    if (st == RVS_OK) {
        st = rvs_mm_parse(&B, NULL, mem, len, &err);
        if (st == RVS_OK && B.vtype != S->A.vtype)
            st = rvs_csr_convert_values(&B, S->A.vtype, &err);
        if (st != RVS_OK && st != RVS_ERR_NOMEM && st != RVS_ERR_OVERFLOW)
            FUZZ_FINDING("Matrix Market written from a valid matrix does not read back: %s", err.msg);
        if (st == RVS_OK) {
            int same = B.rows == S->A.rows && B.cols == S->A.cols && B.nnz == S->A.nnz;
            for (int64_t r = 0; same && r <= B.rows; r++)
                same = B.rowptr[r] == S->A.rowptr[r];
            for (int64_t k = 0; same && k < B.nnz; k++)
                same = rvs_csr_col(&B, k) == rvs_csr_col(&S->A, k) && value_bits(&B, k) == value_bits(&S->A, k);
            if (!same)
                FUZZ_FINDING("Matrix Market written from a valid matrix reads back different");
        }
    }
    rvs_csr_free(&B);
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rvs_stream S, S2;
    rvs_error err;
    rvs_status st = fuzz_read_stream(&S, data, size, &err);
    fuzz_check_error(st, &err);
    if (st != RVS_OK)
        return 0;
    size_t n1 = 0, n2 = 0;
    char *w1 = write_mem(&S, &n1);
    st = fuzz_read_stream(&S2, (const uint8_t *)w1, n1, &err);
    if (st != RVS_OK)
        FUZZ_FINDING("the reader refuses what the writer wrote: %s", err.msg);
    char *w2 = write_mem(&S2, &n2);
    if (n1 != n2 || memcmp(w1, w2, n1) != 0)
        FUZZ_FINDING("write(read(write(S))) differs from write(S): %zu and %zu bytes", n1, n2);
    free(w1);
    free(w2);
    mm_round_trip(&S);
    rvs_stream_free(&S2);
    rvs_stream_free(&S);
    return 0;
}

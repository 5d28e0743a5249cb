/* fuzz_stream.c - libFuzzer target: the RVS stream reader on any bytes, every chunk kind; what it
 * accepts must write back and read again to the same bytes */
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
    rvs_stream_free(&S2);
    rvs_stream_free(&S);
    return 0;
}

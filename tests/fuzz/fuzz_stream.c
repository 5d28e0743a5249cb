/* fuzz_stream.c - libFuzzer target: the RVS stream reader on any bytes, every chunk kind; what it
 * accepts must write back and read again to the same bytes, and its matrix must go through
 * Matrix Market and back unchanged */
#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rvs_stream S;
    if (!fuzz_read_valid(&S, data, size))
        return 0;
    fuzz_check_rewrite(&S);
    fuzz_check_chunks_kept(data, size, &S);
    fuzz_check_mm_round_trip(&S);
    rvs_stream_free(&S);
    return 0;
}

/* fuzz_spmv.c - libFuzzer target: CPU SpMV over every format block of a stream that passed
 * validation, and over the hub and every part in CSR as spmv runs parts without a block; a
 * kernel must stay in bounds and agree with the block's own CSR */
#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rvs_stream S;
    if (!fuzz_read_valid(&S, data, size))
        return 0;
    fuzz_check_spmv(&S);
    rvs_stream_free(&S);
    return 0;
}

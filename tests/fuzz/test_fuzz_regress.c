/* test_fuzz_regress.c - regression tests for what the structure-aware fuzz targets found (issue
 * 38), one case per finding (argv[1]); each input is also in the fuzz corpus, replayed there */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_test.h"

/* auto_records_claim: rvs_decisions_read allocated its record count (up to 131074 records of
 * some 9.8 KB each) before checking that the chunk could hold them: an 80-byte chunk claiming
 * 65536 records took 640 MB (fuzz_stream_struct under -malloc_limit_mb). A record holds at
 * least one candidate: 120 bytes. */
static void auto_records_claim(void)
{
    static const struct {
        uint32_t records, held; /* claimed, and whole records in the payload */
        const char *want;       /* the message, "" for none */
    } cases[] = {
        {65536, 0, "chunk 'auto': 80 bytes cannot hold 65536 records"},
        {131074, 0, "chunk 'auto': 80 bytes cannot hold 131074 records"},
        {2, 1, "chunk 'auto': 200 bytes cannot hold 2 records"},
        {1, 1, ""},
        {0, 0, ""},
    };
    rvs_stream S;
    rvs_raw_chunk chunk;
    rvs_error err;
    const int64_t lengths[2] = {1, 1};
    memset(&S, 0, sizeof S);
    CHECK_OK(rvs_test_csr_from_lengths(&S.A, lengths, 2, 2), &err);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint8_t p[80 + 24 + 96] = {0};
        const uint32_t head[2] = {1, cases[i].records}, rec[6] = {(uint32_t)-1, 0, RVS_F64, 1, 0, 0};
        memcpy(p, head, sizeof head);
        memcpy(p + 80, rec, sizeof rec);
        memcpy(p + 80 + 24, &(uint32_t){RVS_FMT_CSR}, 4);
        memcpy(p + 80 + 24 + 24, "default", 8);
        memcpy(chunk.type, "auto", 4);
        chunk.len = 80 + (uint64_t)cases[i].held * (24 + 96);
        chunk.data = p;
        S.extra = &chunk;
        S.nextra = 1;
        rvs_decisions D;
        int current;
        rvs_status st = rvs_decisions_read(&D, &S, &current, &err);
        if (cases[i].want[0])
            CHECKF(st == RVS_ERR_FORMAT && strcmp(err.msg, cases[i].want) == 0, "%u records in %u: %d '%s'",
                   cases[i].records, cases[i].held, (int)st, st ? err.msg : "");
        else
            CHECKF(st == RVS_OK && D.n == (int)cases[i].records, "%u records in %u: %d '%s'", cases[i].records,
                   cases[i].held, (int)st, st ? err.msg : "");
        if (st == RVS_OK)
            rvs_decisions_free(&D);
    }
    S.extra = NULL;
    S.nextra = 0;
    rvs_stream_free(&S);
}

int main(int argc, char **argv)
{
    static const rvs_test_case cases[] = {
        {"auto_records_claim", auto_records_claim},
    };
    return rvs_test_run_cases(argc, argv, cases, sizeof cases / sizeof *cases);
}

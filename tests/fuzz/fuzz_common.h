/* fuzz_common.h - what the libFuzzer targets share: input as a FILE, findings that stop the run */
#ifndef RVS_FUZZ_COMMON_H
#define RVS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rvs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Claims above this are refused (rvs_mem.h), so an input that declares a huge but valid matrix
 * tests the refusal instead of exhausting the fuzzer. Work that grows with a declared size (a
 * pass over every row) runs some 60 times slower under the fuzzing build's instrumentation: at
 * 256 MB a 76-byte text declaring 16 million empty rows held fuzz_mm past its 10 s time-out
 * (regress_mm_fuzz_declared_rows_timeout); 16 MB keeps such inputs to a million rows. */
#define FUZZ_MEM_LIMIT ((uint64_t)16 << 20)

#ifndef FUZZ_REPLAY_MAIN /* defined once, in the target's file (not in replay.c or a helper) */
/* Once before the first input: claims are held to FUZZ_MEM_LIMIT. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rvs_mem_set_limit(FUZZ_MEM_LIMIT);
    return 0;
}
#endif

/* A finding: say what broke and abort, so libFuzzer saves the input. */
#define FUZZ_FINDING(...)                         \
    do {                                          \
        fprintf(stderr, "finding: " __VA_ARGS__); \
        fputc('\n', stderr);                      \
        abort();                                  \
    } while (0)

/* data[0..size) as a read-only FILE (fmemopen refuses size 0: /dev/null then). */
static inline FILE *fuzz_open(const uint8_t *data, size_t size)
{
    return size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
}

/* Read a stream from data; RVS_OK leaves it in *S. */
static inline rvs_status fuzz_read_stream(rvs_stream *S, const uint8_t *data, size_t size, rvs_error *err)
{
    FILE *f = fuzz_open(data, size);
    if (!f)
        abort();
    rvs_status st = rvs_stream_read(S, f, NULL, 0, err);
    fclose(f);
    return st;
}

/* An error must say something: a status without a message is a finding. */
static inline void fuzz_check_error(rvs_status st, const rvs_error *err)
{
    if (st != RVS_OK && (err->code != st || !err->msg[0] || strchr(err->msg, '\n')))
        FUZZ_FINDING("status %d with error record %d '%s'", (int)st, (int)err->code, err->msg);
}

#endif

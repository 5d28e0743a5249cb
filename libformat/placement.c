/* placement.c - the ancillary chunk 'plac' (man/man5/rvs.5, version 1.2): which processor a part
 * of the partition is bound to, from partition(1)'s "gpuN"/"cpuN" items; spmv-mpi(1) runs a part
 * bound to N on rank N. Kept among the stream's ancillary chunks, so that readers that do not
 * know it pass it on. */
#include <stdlib.h>
#include <string.h>
#include "rvs_stream.h"
#include "stream_layout.h"

static const char chunk_type[4] = {'p', 'l', 'a', 'c'};
#define PLAC_HEAD 8 /* u32 K, u32 reserved */
#define PLAC_REC 16 /* i64 N (the part's rows), i32 processor number (-1 free), u32 reserved */

/* The index of S's 'plac' chunk, or -1. */
static int find_chunk(const rvs_stream *S)
{
    for (int i = 0; i < S->nextra; i++)
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            return i;
    return -1;
}

rvs_status rvs_placement_get(const rvs_stream *S, int32_t *number, rvs_error *err)
{
    const int k = S->has_partition ? S->partition.k : 0;
    for (int i = 0; i < k; i++)
        number[i] = -1;
    const int c = find_chunk(S);
    if (c < 0 || k == 0)
        return RVS_OK;
    for (int i = c + 1; i < S->nextra; i++) /* rvs(5): at most one */
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'plac' appears twice");
    const uint8_t *p = S->extra[c].data;
    const uint64_t len = S->extra[c].len;
    if (len < PLAC_HEAD || (len - PLAC_HEAD) % PLAC_REC != 0 || (len - PLAC_HEAD) / PLAC_REC != rvs_le32(p))
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "chunk 'plac': %llu bytes do not hold the %u part records it announces",
                        (unsigned long long)len, len >= 4 ? rvs_le32(p) : 0);
    if (rvs_le32(p) != (uint32_t)k)
        return RVS_OK;          /* made for another partition: stale */
    for (int i = 0; i < k; i++) /* the same part count with other row counts is stale too */
        if ((int64_t)rvs_le64(p + PLAC_HEAD + (size_t)i * PLAC_REC) != S->partition.parts[i].nrows)
            return RVS_OK;
    for (int i = 0; i < k; i++) {
        const int32_t n = (int32_t)rvs_le32(p + PLAC_HEAD + (size_t)i * PLAC_REC + 8);
        if (n < -1 || n >= RVS_PLACE_MAX) {
            for (int j = 0; j < k; j++)
                number[j] = -1;
            return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'plac': part %d is bound to processor %d (-1..%d)", i + 1,
                            (int)n, RVS_PLACE_MAX - 1);
        }
        number[i] = n;
    }
    return RVS_OK;
}

/* Remove S's 'plac' chunk, if any. */
static void drop_chunk(rvs_stream *S)
{
    int n = 0;
    for (int i = 0; i < S->nextra; i++) {
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            free(S->extra[i].data);
        else
            S->extra[n++] = S->extra[i];
    }
    S->nextra = n;
}

rvs_status rvs_placement_set(rvs_stream *S, const int32_t *number, rvs_error *err)
{
    const int k = S->has_partition ? S->partition.k : 0;
    int bound = 0;
    drop_chunk(S);
    for (int i = 0; number && i < k; i++) {
        if (number[i] < -1 || number[i] >= RVS_PLACE_MAX)
            return rvs_fail(err, RVS_ERR_ARG, "part %d: processor %d out of range (-1..%d)", i + 1, (int)number[i],
                            RVS_PLACE_MAX - 1);
        bound |= number[i] >= 0;
    }
    if (!bound)
        return RVS_OK;
    const uint64_t len = PLAC_HEAD + (uint64_t)k * PLAC_REC; /* k <= 65536: no overflow */
    uint8_t *p = calloc(1, (size_t)len);
    rvs_raw_chunk *grown = p ? realloc(S->extra, ((size_t)S->nextra + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(p);
        return rvs_fail(err, RVS_ERR_NOMEM, "chunk 'plac': out of memory");
    }
    S->extra = grown;
    rvs_put32(p, (uint32_t)k);
    for (int i = 0; i < k; i++) {
        rvs_put64(p + PLAC_HEAD + (size_t)i * PLAC_REC, (uint64_t)S->partition.parts[i].nrows);
        rvs_put32(p + PLAC_HEAD + (size_t)i * PLAC_REC + 8, (uint32_t)number[i]);
    }
    memcpy(grown[S->nextra].type, chunk_type, 4);
    grown[S->nextra].len = len;
    grown[S->nextra].data = p;
    S->nextra++;
    return RVS_OK;
}

int rvs_placement_present(const rvs_stream *S)
{
    return find_chunk(S) >= 0;
}

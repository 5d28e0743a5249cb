/* stream_mutator.h - private to the stream mutator (stream_mutator.c: chunks, repairs, entry
 * points; stream_fields.c: values and fields; stream_records.c: arrays, parts and records) */
#ifndef RVS_STREAM_MUTATOR_H
#define RVS_STREAM_MUTATOR_H

#include "fuzz_chunks.h"
#include "fuzz_rng.h"
#include "stream_layout.h"

#define AUTO_HEAD 80 /* the auto and plac chunks' layouts (rvs.5) */
#define AUTO_REC 24
#define AUTO_CAND 96
#define PLAC_HEAD 8
#define PLAC_REC 16

typedef fuzz_rng rng;

static inline uint64_t next(rng *r)
{
    return fuzz_next(r);
}

static inline size_t below(rng *r, size_t n)
{
    return fuzz_below(r, n);
}

static inline int one_in(rng *r, size_t n)
{
    return below(r, n) == 0;
}

/* What the stream says of itself, for values near its own edges. */
typedef struct {
    uint64_t rows, cols, nnz;
    uint32_t vtype;
    uint64_t k;
} context;

void read_context(const fz_stream *s, context *x);
/* An integer near an edge: of its type, of the stream's sizes, or of its own value. */
uint64_t some_int(rng *r, const context *x, uint64_t cur);

/* ---- fields (stream_fields.c) ---- */

enum { F_CODE, F_I32, F_I64, F_F64, F_F32, F_U8, F_TEXT };

typedef struct {
    size_t off, len;
    int kind;
} field;

/* Element size and field kind of an ARRY element type (0: unknown). */
size_t element(uint32_t dtype, int *kind);
/* The offset of record i of the auto chunk c, or SIZE_MAX past its end. */
size_t auto_record(const fz_chunk *c, size_t i);
/* The offset of part record i of the PART chunk c, or SIZE_MAX. */
size_t part_record(const fz_chunk *c, size_t i);
/* Tunables as the auto chunk records them: known keys with values at their edges, or "default". */
void some_knobs(rng *r, char *buf, size_t n);
/* A random field of chunk c; kind F_U8 at a random byte for chunks of no known layout. */
field pick_field(const fz_chunk *c, rng *r);
void mutate_field(fz_chunk *c, field f, rng *r, const context *x);

/* ---- structure (stream_records.c) ---- */

void mutate_array(fz_chunk *c, rng *r);
void mutate_partition(fz_chunk *c, rng *r);
/* The rows of each part of the PART chunk p into n[0..k) (k <= max); the count. */
size_t part_sizes(const fz_chunk *p, uint64_t *n, size_t max);
/* A new auto chunk (one record for the whole matrix or each part) or plac chunk (the stream's
 * parts bound near the edges) before chunk at; its index, or -1. */
int new_auto(fz_stream *s, int at, rng *r, const context *x);
int new_plac(fz_stream *s, int at, rng *r);
void mutate_auto(fz_chunk *c, rng *r, const context *x);
void mutate_plac(fz_chunk *c, rng *r);
void mutate_pmf(fz_chunk *c, rng *r, const context *x);
void mutate_name(fz_chunk *c, rng *r);
void mutate_mmhd(fz_chunk *c, rng *r);

#endif

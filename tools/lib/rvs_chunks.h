/* rvs_chunks.h - walk the chunks of a stream held in memory, for the inspector: offsets,
 * lengths, CRC verdicts and what each chunk's head says, damaged streams included */
#ifndef RVS_CHUNKS_H
#define RVS_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include "rvs.h"

/* One chunk as found. */
typedef struct {
    uint64_t offset; /* of its type field, from the start of the stream */
    uint64_t length; /* payload length L as stored */
    char type[5];    /* four letters (non-letters shown as '?') */
    int critical;    /* type starts with an upper-case letter */
    int known;       /* a chunk of rvs.5 (or mmhd, rvs_source.h) */
    int crc_ok;      /* 1 matches, 0 differs, -1 not checked (the stream ends inside it) */
    char what[192];  /* what its head says, e.g. "rowptr i64 x 21" */
} rvs_chunk_info;

/* The walk of a whole stream. */
typedef struct {
    uint64_t bytes;        /* input length */
    int prelude_crc_ok;    /* the prelude's CRC matches */
    unsigned major, minor; /* version in the prelude */
    int n;                 /* chunks found */
    rvs_chunk_info *chunk;
    int ended;         /* REND seen */
    uint64_t trailing; /* bytes after REND (another stream, perhaps) */
    char problem[200]; /* first thing wrong in the layout ("" when none) */
} rvs_chunk_walk;

/* Walk buf[0..len), which starts with the stream magic. Damage (a CRC that differs, a length
 * running past the end) is recorded, not an error; RVS_ERR_NOMEM is the only failure. */
rvs_status rvs_chunks_walk(rvs_chunk_walk *W, const uint8_t *buf, size_t len, rvs_error *err);

/* Free W's chunk list and zero it. */
void rvs_chunks_free(rvs_chunk_walk *W);

/* A whole input in memory: mapped (a regular file) or read (a pipe, a terminal). */
typedef struct {
    uint8_t *data;
    size_t len;
    int mapped;
} rvs_input_buf;

/* Read all of path (NULL: stdin) into b. RVS_ERR_NOFILE when it cannot be opened or is a
 * directory, RVS_ERR_IO when reading fails part way, RVS_ERR_NOMEM. */
rvs_status rvs_input_load(const char *path, rvs_input_buf *b, rvs_error *err);
void rvs_input_free(rvs_input_buf *b);

#endif

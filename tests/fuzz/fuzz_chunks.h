/* fuzz_chunks.h - an RVS stream as a list of chunks, for the structure-aware mutator: decoded
 * from bytes without judging any field, encoded back with every CRC right (rvs.5) */
#ifndef RVS_FUZZ_CHUNKS_H
#define RVS_FUZZ_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char type[4];
    uint8_t *data; /* the payload (malloc'd; NULL when len is 0) */
    size_t len;
} fz_chunk;

typedef struct {
    uint16_t major, minor;
    int n, cap;
    fz_chunk *c;
    uint8_t *tail; /* bytes after the end chunk, or after the last whole chunk */
    size_t tail_len;
} fz_stream;

/* Decode data: 0 with *s filled when it starts with the stream magic, else -1 (*s empty). A
 * chunk whose length runs past the end keeps the bytes there are. */
int fz_decode(fz_stream *s, const uint8_t *data, size_t size);

/* Bytes fz_encode writes. */
size_t fz_encoded_size(const fz_stream *s);

/* Write s into out with every CRC computed; the size, or 0 when it is more than max. */
size_t fz_encode(const fz_stream *s, uint8_t *out, size_t max);

void fz_free(fz_stream *s);

/* Insert a chunk of type with a copy of data[0..len) (zeros when data is NULL) before chunk at;
 * its index, or -1 when out of memory. */
int fz_insert(fz_stream *s, int at, const char *type, const uint8_t *data, size_t len);

/* Remove chunk at. */
void fz_remove(fz_stream *s, int at);

/* Replace payload bytes [at, at + del) of c by ins_len bytes of ins (zeros when ins is NULL); 0,
 * or -1 when out of memory. */
int fz_splice(fz_chunk *c, size_t at, size_t del, const void *ins, size_t ins_len);

/* The index of the first chunk of type at or after from, or -1. */
int fz_find(const fz_stream *s, const char *type, int from);

#endif

/* rvs_stream.h - the RVS container: reading and writing whole streams (man/man5/rvs.5) */
#ifndef RVS_STREAM_H
#define RVS_STREAM_H

#include <stdio.h>
#include "rvs_csr.h"
#include "rvs_pmf.h"
#include "rvs_partition.h"
#include "rvs_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RVS_STREAM_MAJOR 1
#define RVS_STREAM_MINOR 1         /* what a real stream without a 'plac' chunk is written as */
#define RVS_STREAM_MINOR_PLACE 2   /* ... a real stream with one */
#define RVS_STREAM_MINOR_COMPLEX 3 /* ... a stream with complex value or element types */
/* The minor version a stream whose values are of type vt is written as at least: 3 for c64 and
 * c128, else 1, so that real streams stay byte for byte what version 1.1 wrote. */
#define RVS_STREAM_MINOR_FOR(vt) (rvs_vtype_is_complex(vt) ? RVS_STREAM_MINOR_COMPLEX : RVS_STREAM_MINOR)
#define RVS_MAGIC_LEN 8
extern const unsigned char rvs_magic[RVS_MAGIC_LEN]; /* 0x89 'R' 'V' 'S' '\r' '\n' 0x1a '\n' */

/* An ancillary chunk this reader does not know, kept byte for byte to be passed on. */
typedef struct {
    char type[4];
    uint64_t len;
    uint8_t *data;
} rvs_raw_chunk;

/* A format block: part index (-1: the whole matrix) and the format. */
typedef struct {
    int part;
    rvs_fmt fmt;
} rvs_fmt_block;

/* Everything a stream carries. The CSR hub is always present. */
typedef struct {
    rvs_csr A;
    char name[256]; /* source name (file the matrix came from) */
    int has_pmf;
    rvs_pmf pmf;
    int has_partition;
    rvs_partition partition;
    int nfmt;
    rvs_fmt_block *fmt;
    int nextra;
    rvs_raw_chunk *extra;
} rvs_stream;

/* 1 if buf (n >= RVS_MAGIC_LEN bytes) starts with the stream magic. */
int rvs_stream_sniff(const void *buf, size_t n);

/* Read a whole stream from f in one forward pass. prefix/prefix_len: bytes already consumed
 * from f (the magic, after sniffing), or NULL/0. Validates every chunk (CRC-32C, lengths,
 * sizes against overflow, CSR structure, partition against the matrix, format arrays via
 * the format's validator) before returning. Errors: RVS_ERR_CRC, RVS_ERR_TRUNCATED (also
 * when the end chunk is missing), RVS_ERR_VERSION, RVS_ERR_UNSUPPORTED (unknown critical
 * chunk), RVS_ERR_FORMAT. On error *S is freed and zeroed. */
rvs_status rvs_stream_read(rvs_stream *S, FILE *f, const void *prefix, size_t prefix_len, rvs_error *err);

/* Write S to f (the whole stream, end chunk last). RVS_ERR_IO on a failed write (closed
 * pipe: the caller ignores SIGPIPE). */
rvs_status rvs_stream_write(FILE *f, const rvs_stream *S, rvs_error *err);

/* The same stream written in three steps, for a program that builds its blocks one at a time
 * and writes each as soon as it is built (so never holds them all): the head (prelude, matrix,
 * PMF, partition: S's blocks, if any, only count for the version written), then any number of
 * blocks, then the tail (S's kept chunks and the end chunk; *W is freed, whatever happened).
 * A block whose values are complex needs a complex hub. Errors as rvs_stream_write's. */
typedef struct rvs_stream_writer rvs_stream_writer;
rvs_status rvs_stream_write_head(rvs_stream_writer **W, FILE *f, const rvs_stream *S, rvs_error *err);
rvs_status rvs_stream_write_block(rvs_stream_writer *W, const rvs_fmt_block *B);
rvs_status rvs_stream_write_tail(rvs_stream_writer *W, const rvs_stream *S);

/* Drop all format blocks (after the partition changed, say). */
void rvs_stream_drop_formats(rvs_stream *S);

/* Free everything S holds and zero it. */
void rvs_stream_free(rvs_stream *S);

/* Parts bound to processors (partition(1)'s items "gpuN" and "cpuN"; spmv-mpi(1) runs a part
 * bound to N on rank N), kept in the ancillary chunk 'plac' (placement.c). number[i] is N for
 * part i, -1 for a part bound to none. */
#define RVS_PLACE_MAX 65536
/* number[0..K) from S's chunk; all -1 without one, or when it was made for another partition
 * (other part or row counts). RVS_ERR_FORMAT for a malformed chunk, or for two of them. */
rvs_status rvs_placement_get(const rvs_stream *S, int32_t *number, rvs_error *err);
/* Record number[0..K) as S's chunk, replacing any older one; none is kept when number is NULL
 * or all -1. RVS_ERR_ARG for a number out of -1..RVS_PLACE_MAX-1. */
rvs_status rvs_placement_set(rvs_stream *S, const int32_t *number, rvs_error *err);
/* 1 when S carries a 'plac' chunk (the writer then marks the stream version 1.2). */
int rvs_placement_present(const rvs_stream *S);

/* CRC-32C (Castagnoli) of buf, continuing from crc (start with 0). Hardware-accelerated
 * where the CPU has SSE4.2. */
uint32_t rvs_crc32c(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

/* fuzz_checks.h - what the stream targets check on a stream the reader accepted (fuzz_checks.c) */
#ifndef RVS_FUZZ_CHECKS_H
#define RVS_FUZZ_CHECKS_H

#include "fuzz_common.h"

/* Read a stream from data into *S: 1 when the reader accepts it, else 0 (its error checked). */
int fuzz_read_valid(rvs_stream *S, const uint8_t *data, size_t size);

/* 1 when A and B are the same CSR, bit for bit (NaN values compare by bits too). */
int fuzz_same_csr(const rvs_csr *A, const rvs_csr *B);

/* S written, read back and written again gives the same bytes. */
void fuzz_check_rewrite(const rvs_stream *S);

/* S, read from data[0..size), writes back every chunk the writer does not compute again (all
 * but the prelude, pmfs and REND) byte for byte, critical and ancillary ones each in their order:
 * what the reader accepts it keeps or passes on unchanged (rvs.5). */
void fuzz_check_chunks_kept(const uint8_t *data, size_t size, const rvs_stream *S);

/* S's matrix, written as Matrix Market the way convert --to mtx writes it (field from its mmhd
 * chunk, symmetry when exact, fewest digits), reads back to the same matrix. */
void fuzz_check_mm_round_trip(const rvs_stream *S);

/* The same for a matrix A read from a file whose field was field (NULL: none). */
void fuzz_check_mm_csr(const rvs_csr *A, const char *field);

/* CPU SpMV over every format block of S against the block's own CSR, and over the hub and
 * every part in CSR, as spmv runs parts without a block. */
void fuzz_check_spmv(const rvs_stream *S);

/* 1 when x, y and their references for a rows x cols matrix (some 32 bytes a row and a column)
 * fit the memory limit of the reader's claims: vectors that size are the caller's to afford,
 * and a 20 x 4194304 matrix of empty parts, whose x is filled for each part, held
 * fuzz_stream_struct past its time-out. */
int fuzz_vectors_fit(int64_t rows, int64_t cols);

/* x for cols columns of type vt into x (complex: pairs), its values as (re, im) pairs into
 * xd (2 cols doubles). */
void fuzz_fill_x(void *x, double *xd, int64_t cols, rvs_vtype vt);

/* y (C->rows values of vt) against C times xd (fuzz_fill_x): rows whose scale sum |a x| is far
 * from overflow agree to a relative 1e-6 (f64) or 1e-3 (f32); NaN/Inf rows by class (rvs.5). */
void fuzz_check_y(const char *what, const rvs_csr *C, const double *xd, const void *y, rvs_vtype vt);

#endif

/* rvs_tool.h - the layer every program shares: errors, input sniffing, output, options */
#ifndef RVS_TOOL_H
#define RVS_TOOL_H

#include <stdio.h>
#include <stdnoreturn.h>
#include "rvs.h"

/* sysexits codes used by the programs */
#define RVS_EX_OK 0
#define RVS_EX_USAGE 64
#define RVS_EX_DATAERR 65
#define RVS_EX_NOINPUT 66
#define RVS_EX_UNAVAILABLE 69
#define RVS_EX_SOFTWARE 70
#define RVS_EX_IOERR 74

/* Remember the program name, ignore SIGPIPE (a closed pipe becomes a write error), and lower
 * the OpenMP thread count to what rvs_tool_thread_limit allows. */
void rvs_tool_init(const char *prog);
/* Threads whose stacks fit the address-space limit (ulimit -v), INT_MAX without one. */
int rvs_tool_thread_limit(void);
/* omp_set_num_threads(n) for option opt, or a usage error when n exceeds the limit above. */
void rvs_tool_set_threads(const char *opt, int n);
const char *rvs_tool_prog(void);

/* "prog: file: message" on stderr and exit(code). file may be NULL ("prog: message"). */
noreturn void rvs_tool_die(int code, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Die with a library error: message err->msg (or the status text), code from the status. */
noreturn void rvs_tool_die_err(const char *file, const rvs_error *err);
/* Usage error: "prog: message" and "Try 'prog --help'." on stderr, exit 64. */
noreturn void rvs_tool_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
 /* Usage error naming the option getopt_long just refused (call from its '?' case). */
noreturn void rvs_tool_bad_option(char **argv);
/* Print "prog (rvskit) VERSION" to stdout and exit 0. */
noreturn void rvs_tool_version(void);

/* Display name of an input path: "-" or NULL is "stdin". */
const char *rvs_tool_input_name(const char *path);

/* Read a program input: an RVS stream or a Matrix Market file (.mtx or gzip'd), told apart
 * by the first bytes, from path (NULL or "-": stdin). A Matrix Market input becomes a
 * stream with just the CSR hub (S->name set). *was_mtx (may be NULL) says which it was.
 * Shows progress on stderr when stderr is a terminal. */
rvs_status rvs_tool_read_input(const char *path, rvs_stream *S, int *was_mtx, rvs_error *err);

/* 1 when the stream should be written: -o was given, or stdout is not a terminal. */
int rvs_tool_want_stream(const char *outpath);

/* Write S to outpath (through rvs_tool_open_text and rvs_tool_close_text, so no partial file
 * is left) or, when outpath is NULL, to stdout. */
rvs_status rvs_tool_write_stream(const char *outpath, const rvs_stream *S, rvs_error *err);

/* Open outpath for a text table/matrix ("-" or NULL: stdout). A regular (or new) outpath is
 * written through a temporary file made by mkstemp in its directory (O_EXCL: a name planted
 * there, a symbolic link say, is never opened) with the mode a plain create would give (an
 * existing file's own, else 0666 less the umask); a device or FIFO is written in place. Use
 * rvs_tool_close_text to finish: it renames the temporary file over outpath (replacing a
 * symbolic link there, never writing through it), or removes it when ok == 0 or the writes
 * failed; a program that exits first leaves no temporary file. */
FILE *rvs_tool_open_text(const char *outpath, rvs_error *err);
rvs_status rvs_tool_close_text(FILE *f, const char *outpath, int ok, rvs_error *err);

/* Parse a computing-power list "75,75,1,1" (each item NUMBER, optionally suffixed ":gpu" or
 * ":cpu"). Without suffixes, parts whose CP equals the largest value are GPU parts when that
 * value is at least twice the smallest; otherwise all are CPU parts. Returns 0 on success;
 * *cp and *dev are malloc'd. */
int rvs_tool_parse_cp(const char *s, double **cp, rvs_device **dev, int *k, char *why, size_t whylen);

/* Parse a positive integer option value; dies with a usage error naming opt otherwise. */
long long rvs_tool_parse_int(const char *opt, const char *s, long long min, long long max);

/* Progress on stderr, only when stderr is a terminal: "prog: what 42%" rewritten in place. */
void rvs_tool_progress(void *ctx, uint64_t done, uint64_t total);
void rvs_tool_progress_done(void);

/* Median of v[0..n-1] (n >= 1); sorts v in place. */
double rvs_tool_median(double *v, int n);

/* Wall-clock seconds (monotonic). */
double rvs_tool_now(void);

#endif

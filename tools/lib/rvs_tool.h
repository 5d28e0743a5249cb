/* rvs_tool.h - the layer every program shares: errors, input sniffing, output, options */
#ifndef RVS_TOOL_H
#define RVS_TOOL_H

#include <getopt.h>
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

/* Remember the program name, apply the rule for closed standard streams (rvs_tool_check_stdio),
 * ignore SIGPIPE (a closed pipe becomes a write error), and lower the OpenMP thread count to
 * what rvs_tool_thread_limit allows. Installed programs run as
 * "rvs-NAME" (see rvskit(7)): that name, when it is how the program was invoked, is the one
 * messages and --version show. */
void rvs_tool_init(const char *prog);
/* The rule for closed standard streams (rvskit(7)), which rvs_tool_init applies: a program
 * started with stdout closed exits 74 at once ("prog: stdout: closed ..."); a closed stdin or
 * stderr is replaced by /dev/null, and reading a closed stdin is "prog: stdin: closed" (66). */
void rvs_tool_check_stdio(void);
int rvs_tool_stdin_closed(void);
/* Exit 66 "prog: stdin: closed" when path (NULL or "-") names a standard input that was closed. */
void rvs_tool_need_stdin(const char *path);
/* "prog: file: what" on stderr when the program exits, unless it dies first (rvs_tool_die and
 * rvs_tool_usage drop them): a failing program says one line. */
void rvs_tool_warn(const char *file, const char *what);
void rvs_tool_drop_warnings(void);
/* Threads whose stacks fit the address-space limit (ulimit -v), INT_MAX without one. */
int rvs_tool_thread_limit(void);
/* omp_set_num_threads(n) for option opt, or a usage error when n exceeds the limit above. */
void rvs_tool_fit_threads(const char *opt, int n);
const char *rvs_tool_prog(void);

/* "prog: file: message" on stderr and exit(code). file may be NULL ("prog: message"). A write
 * error (74) on standard output whose reader has gone is always reported the same way:
 * "prog: stdout: write error: broken pipe (the reading program ended)". */
noreturn void rvs_tool_die(int code, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Die with a library error: message err->msg (or the status text), code from the status. */
noreturn void rvs_tool_die_err(const char *file, const rvs_error *err);
/* Usage error: "prog: message" and "Try 'prog --help'." on stderr, exit 64. */
noreturn void rvs_tool_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error naming the option getopt_long just refused (call from its '?' case): "unknown
 * option '--x'", "option '--to' needs a value", "option '--help' takes no value". For a short
 * option at the end of the line getopt_long cannot tell the two apart: rvs_tool_getopt can. */
noreturn void rvs_tool_bad_option(char **argv);
/* getopt_long (no index) that dies with the message above on a refused option, telling an
 * unknown option from a missing value for short options too. Never returns ':' or '?'. */
int rvs_tool_getopt(int argc, char **argv, const char *optstring, const struct option *longopts);
/* --threads VALUE: OpenMP threads for the rest of the program (usage error unless 1..65536). */
void rvs_tool_set_threads(const char *value);
/* Print "prog (rvskit) VERSION" to stdout and exit 0. */
noreturn void rvs_tool_version(void);

/* Display name of an input path: "-" or NULL is "stdin". */
const char *rvs_tool_input_name(const char *path);

/* Read a program input: an RVS stream or a Matrix Market file (plain or compressed: gzip,
 * bzip2, xz, zstd; an edge list under --edges), told apart by the first bytes, from path (NULL or "-": stdin). A Matrix Market input becomes a
 * stream with the CSR hub (S->name set) and its banner in an mmhd chunk (rvs_source.h).
 * *was_mtx (may be NULL) says which it was. A regular file is read by its path (mapped); anything
 * else (a pipe, a FIFO, /dev/stdin, a terminal) in one forward pass, as stdin is. An input that
 * cannot be opened or read at all (missing, no permission, a directory, a closed stdin) is
 * RVS_ERR_NOFILE (exit 66). The reader's warnings go out through rvs_tool_warn.
 * Shows progress on stderr when stderr is a terminal. */
rvs_status rvs_tool_read_input(const char *path, rvs_stream *S, int *was_mtx, rvs_error *err);

/* The options of text input every program that reads a matrix shares: put
 * RVS_TOOL_INPUT_OPTIONS in its long option table, RVS_TOOL_INPUT_HELP in its --help, and hand
 * those cases to rvs_tool_input_option. --edges: text inputs are edge lists (rvs_edges.h);
 * --size N: their size (usage error without --edges). */
enum { RVS_OPT_EDGES = 0x2000, RVS_OPT_SIZE };
#define RVS_TOOL_INPUT_OPTIONS                     \
    {"edges", no_argument, 0, RVS_OPT_EDGES},      \
    {                                              \
        "size", required_argument, 0, RVS_OPT_SIZE \
    }
#define RVS_TOOL_INPUT_HELP                                                                   \
    "      --edges        a text input is an edge list: 'src dst [weight]' lines, 0-based,\n" \
    "                     '#' comments (see rvskit(7))\n"                                     \
    "      --size N       the edge list's size [its largest index + 1]\n"
void rvs_tool_input_option(int c, const char *value);
/* Read a text input: from f after the n bytes of head already read (stdin), or from path;
 * Matrix Market, or an edge list under --edges (info then worded as a pattern or real
 * coordinate general banner). */
rvs_status rvs_tool_read_text(rvs_csr *A, rvs_mm_info *info, const char *path, FILE *f, const void *head, size_t n,
                              rvs_progress_fn progress, rvs_error *err);

/* 1 when the stream should be written: -o was given, or stdout is not a terminal. */
int rvs_tool_want_stream(const char *outpath);

/* Write S to outpath (through rvs_tool_open_text and rvs_tool_close_text, so no partial file
 * is left) or, when outpath is NULL, to stdout. The output rule holds: a name ending in .mtx or
 * .mtx.gz gets the matrix alone as Matrix Market (rvs_tool_write_mtx). */
rvs_status rvs_tool_write_stream(const char *outpath, const rvs_stream *S, rvs_error *err);

/* Open outpath for a text table/matrix ("-" or NULL: stdout). A regular (or new) outpath is
 * written through a temporary file made by mkstemp in its directory (O_EXCL: a name planted
 * there, a symbolic link say, is never opened) with the mode a plain create would give (an
 * existing file's own, else 0666 less the umask); a device or FIFO is written in place. An
 * outpath that is a symbolic link is written through (rvskit(7)): the temporary file goes
 * beside the file the link names, at the end of any chain of links, dangling or not; a link of
 * another user in a sticky world-writable folder is not followed (fs.protected_symlinks' rule).
 * Use rvs_tool_close_text to finish: it renames the temporary file over that file, or removes it
 * when ok == 0 or the writes failed. A program that exits first, or dies of SIGINT, SIGTERM or
 * SIGHUP (those not ignored when it started), leaves no temporary file. */
FILE *rvs_tool_open_text(const char *outpath, rvs_error *err);
rvs_status rvs_tool_close_text(FILE *f, const char *outpath, int ok, rvs_error *err);

/* The output rule (rvskit(7)): what the name of an output asks for, by its suffix in any
 * case. NULL and "-" (standard output) are streams. */
typedef enum { RVS_OUT_STREAM = 0, RVS_OUT_MTX = 1, RVS_OUT_MTX_GZ = 2 } rvs_tool_out_kind;
rvs_tool_out_kind rvs_tool_output_kind(const char *outpath);
/* 1 when outpath asks for Matrix Market. want: 1 the options ask for Matrix Market, 0 for a
 * stream, -1 either; a conflict is a usage error naming `what` (e.g. "--to csr"). A device or
 * FIFO (no suffix to read) takes what the options ask for. */
int rvs_tool_output_mtx(const char *outpath, int want, const char *what);
/* Write A as Matrix Market to outpath (gzip-compressed for .gz; NULL or "-": stdout) through
 * a temporary file: field as recorded in from's mmhd chunk when the values allow (from may be
 * NULL), symmetric or skew-symmetric when A is exactly, digits as set below. */
rvs_status rvs_tool_write_mtx(const char *outpath, const rvs_csr *A, const rvs_stream *from, rvs_error *err);
/* Write an output through fn(f, ctx, err) onto outpath's temporary file (renamed into place
 * on success, removed on failure) or, for NULL or "-", onto stdout (flushed and checked). */
typedef rvs_status (*rvs_tool_writer)(FILE *f, const void *ctx, rvs_error *err);
rvs_status rvs_tool_write_file(const char *outpath, rvs_tool_writer fn, const void *ctx, rvs_error *err);
/* Significant digits of real values in Matrix Market output, 1..17 (--digits); 0, the
 * default: the fewest that read back to the same value. */
void rvs_tool_set_digits(int digits);
int rvs_tool_digits(void);

/* Parse a computing-power list "75,75,1,1" (each item NUMBER, optionally suffixed ":gpu" or
 * ":cpu", which may carry a processor number: ":gpu1"). Without suffixes, parts whose CP equals
 * the largest value are GPU parts when that value is at least twice the smallest; otherwise all
 * are CPU parts. Returns 0 on success; *cp, *dev and (number not NULL) *number, the processor
 * numbers (-1: none), are malloc'd. */
int rvs_tool_parse_cp(const char *s, double **cp, rvs_device **dev, int32_t **number, int *k, char *why,
                      size_t whylen);

/* Parse a positive integer option value; dies with a usage error naming opt otherwise. */
long long rvs_tool_parse_int(const char *opt, const char *s, long long min, long long max);
/* A precision option's value, "f32" or "f64" (--precision of convert and spgemm); dies with a
 * usage error naming opt otherwise. */
rvs_vtype rvs_tool_parse_precision(const char *opt, const char *s);
/* A format option's value (--format, --halo-format): the format's id, 0 for "auto"; exits 64 on
 * an unknown name. */
int rvs_tool_parse_format(const char *opt, const char *s);
/* Parse a size in bytes, "4096", "64M", "2G" (K, M, G: powers of 1024); dies with a usage error
 * naming opt otherwise. (--gpu-mem of spmv and spgemm) */
size_t rvs_tool_parse_bytes(const char *opt, const char *s);

/* Progress on stderr, only when stderr is a terminal: "prog: what 42%" rewritten in place. */
void rvs_tool_progress(void *ctx, uint64_t done, uint64_t total);
void rvs_tool_progress_done(void);
/* "prog: what" on stderr, only when it is a terminal, until rvs_tool_progress_done. */
void rvs_tool_status(const char *what);

/* Median of v[0..n-1] (n >= 1); sorts v in place. */
double rvs_tool_median(double *v, int n);

/* Wall-clock seconds (monotonic). */
double rvs_tool_now(void);

#endif

/* rvs_output.c - the output rule: a name ending in .mtx or .mtx.gz (any case) means Matrix
 * Market, gzip-compressed for .gz; any other name, or standard output, an RVS stream */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "rvs_tool.h"

static int mm_digits; /* 0: the fewest digits that read back exactly */

/* 1 when s ends in suffix, ignoring case. */
static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

/* What the name of an output asks for. */
rvs_tool_out_kind rvs_tool_output_kind(const char *outpath)
{
    if (!outpath || strcmp(outpath, "-") == 0)
        return RVS_OUT_STREAM;
    if (ends_with(outpath, ".mtx"))
        return RVS_OUT_MTX;
    return ends_with(outpath, ".mtx.gz") ? RVS_OUT_MTX_GZ : RVS_OUT_STREAM;
}

/* 1 when outpath asks for Matrix Market; a conflict with what the options asked is a usage
 * error. A device or FIFO has no type in its name: it takes what the options say. */
int rvs_tool_output_mtx(const char *outpath, int want, const char *what)
{
    int mtx = rvs_tool_output_kind(outpath) != RVS_OUT_STREAM;
    struct stat sb;
    if (!outpath || strcmp(outpath, "-") == 0)
        return want == 1;
    if (want == 0 && mtx)
        rvs_tool_usage("-o %s: a .mtx name means Matrix Market, but %s writes a stream", outpath, what);
    if (want == 1 && !mtx) {
        if (stat(outpath, &sb) == 0 && !S_ISREG(sb.st_mode))
            return 1;
        rvs_tool_usage("-o %s: %s writes Matrix Market, so the name must end in .mtx or .mtx.gz", outpath, what);
    }
    return mtx;
}

/* Significant digits of real values in Matrix Market output. */
void rvs_tool_set_digits(int digits)
{
    mm_digits = digits;
}

int rvs_tool_digits(void)
{
    return mm_digits;
}

/* What rvs_tool_write_mtx writes. */
typedef struct {
    const rvs_csr *A;
    rvs_mm_write_options o;
} mtx_job;

/* rvs_mm_write for rvs_tool_write_file. */
static rvs_status mtx_writer(FILE *f, const void *ctx, rvs_error *err)
{
    const mtx_job *job = ctx;
    return rvs_mm_write(f, job->A, &job->o, NULL, err);
}

/* Write A as Matrix Market to outpath (gzip for .gz) or stdout, keeping what `from` records
 * about its source (the field) and what A is (symmetry). */
rvs_status rvs_tool_write_mtx(const char *outpath, const rvs_csr *A, const rvs_stream *from, rvs_error *err)
{
    rvs_mm_info src;
    mtx_job job = {A, {NULL, 0, mm_digits, rvs_tool_output_kind(outpath) == RVS_OUT_MTX_GZ}};
    if (from && rvs_stream_mm_source(from, &src))
        job.o.field = src.field;
    return rvs_tool_write_file(outpath, mtx_writer, &job, err);
}

/* Open outpath (through its temporary file) or stdout, write, and close: the file appears only
 * when everything succeeded. */
rvs_status rvs_tool_write_file(const char *outpath, rvs_tool_writer write, const void *ctx, rvs_error *err)
{
    FILE *f = rvs_tool_open_text(outpath, err);
    if (!f)
        return err ? err->code : RVS_ERR_IO;
    rvs_status st = write(f, ctx, err);
    rvs_error e2;
    rvs_status st2 = rvs_tool_close_text(f, outpath, st == RVS_OK, &e2);
    if (st == RVS_OK && st2 != RVS_OK) {
        if (err)
            *err = e2;
        st = st2;
    }
    return st;
}

/* rvs_outfile.c - output files of the programs: a temporary file beside the target, made
 * safely and renamed over it, or written in place for devices and FIFOs */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_tool.h"

/* 1 when outpath names something other than a regular file (/dev/null, a FIFO, a terminal):
 * that is written in place, since renaming a temporary file over it would replace it. */
static int write_in_place(const char *outpath)
{
    struct stat sb;
    return stat(outpath, &sb) == 0 && !S_ISREG(sb.st_mode);
}

/* Output files being written through a temporary file: removed if the program exits first. */
#define MAX_OUTPUTS 8
static struct {
    FILE *f;
    char tmp[4096];
} outputs[MAX_OUTPUTS];

/* atexit: a program that dies leaves no temporary file behind. */
static void remove_temporaries(void)
{
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (outputs[i].f) {
            unlink(outputs[i].tmp);
            outputs[i].f = NULL;
        }
}

/* rvs_stream_write for rvs_tool_write_file. */
static rvs_status stream_writer(FILE *f, const void *S, rvs_error *err)
{
    return rvs_stream_write(f, S, err);
}

/* Write S to outpath (atomically) or stdout; a .mtx or .mtx.gz name gets Matrix Market. */
rvs_status rvs_tool_write_stream(const char *outpath, const rvs_stream *S, rvs_error *err)
{
    if (rvs_tool_output_kind(outpath) != RVS_OUT_STREAM)
        return rvs_tool_write_mtx(outpath, &S->A, S, err);
    if (!outpath) {
        rvs_status st = rvs_stream_write(stdout, S, err);
        if (st == RVS_OK && fflush(stdout) != 0)
            st = rvs_fail(err, RVS_ERR_IO, "write error on stdout: %s", strerror(errno));
        return st;
    }
    return rvs_tool_write_file(outpath, stream_writer, S, err);
}

/* The mode a plain create of outpath would leave: an existing regular file's own mode (a
 * truncating write keeps it), else 0666 less the umask. */
static mode_t create_mode(const char *outpath)
{
    struct stat sb;
    if (lstat(outpath, &sb) == 0 && S_ISREG(sb.st_mode))
        return sb.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Open a new temporary file beside outpath: mkstemp in outpath's directory (O_EXCL, so nothing
 * planted there, a symbolic link least of all, is opened), with the final file's mode. */
static FILE *open_temporary(const char *outpath, char *tmp, size_t n, rvs_error *err)
{
    const char *slash = strrchr(outpath, '/');
    int dirlen = slash ? (int)(slash - outpath + 1) : 0;
    if (snprintf(tmp, n, "%.*s.%s.XXXXXX", dirlen, outpath, slash ? slash + 1 : outpath) >= (int)n) {
        rvs_fail(err, RVS_ERR_IO, "cannot create %s: name too long", outpath);
        return NULL;
    }
    mode_t mode = create_mode(outpath);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        rvs_fail(err, RVS_ERR_IO, "cannot create %s: %s", outpath, strerror(errno));
        return NULL;
    }
    FILE *f = fchmod(fd, mode) == 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        rvs_fail(err, RVS_ERR_IO, "cannot create %s: %s", outpath, strerror(errno));
        close(fd);
        unlink(tmp);
    }
    return f;
}

/* Open outpath's temporary file, or stdout. */
FILE *rvs_tool_open_text(const char *outpath, rvs_error *err)
{
    static int registered;
    int slot = 0;
    if (!outpath || strcmp(outpath, "-") == 0)
        return stdout;
    if (write_in_place(outpath)) {
        FILE *f = fopen(outpath, "wb");
        if (!f)
            rvs_fail(err, RVS_ERR_IO, "cannot open %s: %s", outpath, strerror(errno));
        return f;
    }
    while (slot < MAX_OUTPUTS && outputs[slot].f)
        slot++;
    if (slot == MAX_OUTPUTS) {
        rvs_fail(err, RVS_ERR_INTERNAL, "more than %d output files at once", MAX_OUTPUTS);
        return NULL;
    }
    if (!registered)
        registered = atexit(remove_temporaries) == 0;
    outputs[slot].f = open_temporary(outpath, outputs[slot].tmp, sizeof outputs[slot].tmp, err);
    return outputs[slot].f;
}

/* Finish a file from rvs_tool_open_text: rename into place, or remove when !ok. */
rvs_status rvs_tool_close_text(FILE *f, const char *outpath, int ok, rvs_error *err)
{
    int slot = 0;
    if (f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return rvs_fail(err, RVS_ERR_IO, "write error on stdout: %s", strerror(errno));
        return RVS_OK;
    }
    while (slot < MAX_OUTPUTS && outputs[slot].f != f)
        slot++;
    int bad = ferror(f), saved = 0;
    if (fclose(f) != 0 || bad)
        bad = 1, saved = errno;
    if (slot == MAX_OUTPUTS) /* written in place */
        return bad ? rvs_fail(err, RVS_ERR_IO, "write error on %s: %s", outpath, strerror(saved)) : RVS_OK;
    outputs[slot].f = NULL;
    if (!ok || bad) {
        unlink(outputs[slot].tmp);
        return bad ? rvs_fail(err, RVS_ERR_IO, "write error on %s: %s", outpath, strerror(saved)) : RVS_OK;
    }
    if (rename(outputs[slot].tmp, outpath) != 0) {
        saved = errno;
        unlink(outputs[slot].tmp);
        return rvs_fail(err, RVS_ERR_IO, "cannot write %s: %s", outpath, strerror(saved));
    }
    return RVS_OK;
}

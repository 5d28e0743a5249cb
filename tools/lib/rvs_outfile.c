/* rvs_outfile.c - output files of the programs: a temporary file beside the target (through any
 * symbolic link, rvskit(7)), made safely and renamed over it, gone if the program dies of
 * SIGINT, SIGTERM or SIGHUP; or written in place for devices and FIFOs */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

/* Output files being written through a temporary file: removed if the program exits first, or
 * dies of one of the signals below. live says, to the signal handler, which tmp names are set. */
#define MAX_OUTPUTS 8
static struct {
    FILE *f;
    char tmp[4096];
} outputs[MAX_OUTPUTS];
static char targets[MAX_OUTPUTS][4096]; /* each one's outpath, through its symbolic links */
static volatile sig_atomic_t live[MAX_OUTPUTS];
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* atexit: a program that dies leaves no temporary file behind. */
static void remove_temporaries(void)
{
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (outputs[i].f) {
            live[i] = 0;
            unlink(outputs[i].tmp);
            outputs[i].f = NULL;
        }
}

/* SIGINT, SIGTERM, SIGHUP: the temporary files go, then the signal does what it would have. */
static void on_fatal_signal(int sig)
{
    for (int i = 0; i < MAX_OUTPUTS; i++)
        if (live[i])
            unlink(outputs[i].tmp);
    signal(sig, SIG_DFL);
    raise(sig); /* blocked in the handler: delivered, by default, when it returns */
}

/* Catch the signals once (those ignored when the program started, as under nohup, stay so). */
static void catch_fatal_signals(void)
{
    static int done;
    struct sigaction sa, old;
    if (done)
        return;
    done = 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal_signals[i], &sa, NULL);
}

/* Block the signals above in this thread; *saved: the mask to restore. */
static void block_fatal_signals(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        sigaddset(&set, fatal_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, saved);
}

/* 1 when a symbolic link at path (lstat's sb) may be followed: not another user's link in a
 * sticky world-writable folder (the kernel's fs.protected_symlinks rule, which a link resolved
 * by hand would otherwise get round). */
static int may_follow(const char *path, const struct stat *sb)
{
    char dir[4096];
    struct stat db;
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &db) != 0 || !(db.st_mode & S_ISVTX) || !(db.st_mode & S_IWOTH))
        return 1;
    return sb->st_uid == geteuid() || sb->st_uid == db.st_uid;
}

/* target = the file outpath names, through any chain of symbolic links (the last may dangle). */
static int resolve_links(const char *outpath, char *target, size_t n, rvs_error *err)
{
    char link[4096], next[4096];
    struct stat sb;
    if (snprintf(target, n, "%s", outpath) >= (int)n) {
        rvs_fail(err, RVS_ERR_IO, "cannot create %s: name too long", outpath);
        return 0;
    }
    for (int depth = 0; lstat(target, &sb) == 0 && S_ISLNK(sb.st_mode); depth++) {
        if (depth == 40) {
            rvs_fail(err, RVS_ERR_IO, "cannot create %s: %s", outpath, strerror(ELOOP));
            return 0;
        }
        if (!may_follow(target, &sb)) {
            rvs_fail(err, RVS_ERR_IO,
                     "cannot create %s: a symbolic link of another user in a sticky "
                     "world-writable folder is not followed",
                     outpath);
            return 0;
        }
        ssize_t m = readlink(target, link, sizeof link - 1);
        if (m < 0) {
            rvs_fail(err, RVS_ERR_IO, "cannot create %s: %s", outpath, strerror(errno));
            return 0;
        }
        link[m] = 0;
        const char *slash = strrchr(target, '/');
        int dirlen = link[0] == '/' || !slash ? 0
                                              : (int)(slash - target + 1); /* relative: from the link's folder */
        if (snprintf(next, sizeof next, "%.*s%s", dirlen, target, link) >= (int)sizeof next ||
            snprintf(target, n, "%s", next) >= (int)n) {
            rvs_fail(err, RVS_ERR_IO, "cannot create %s: name too long", outpath);
            return 0;
        }
    }
    return 1;
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

/* Open a new temporary file beside target (outpath through its links: outpath names it in
 * messages): mkstemp in target's directory (O_EXCL, so nothing planted there, a symbolic link
 * least of all, is opened), with the final file's mode. */
static FILE *open_temporary(const char *outpath, const char *target, char *tmp, size_t n, rvs_error *err)
{
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    if (snprintf(tmp, n, "%.*s.%s.XXXXXX", dirlen, target, slash ? slash + 1 : target) >= (int)n) {
        rvs_fail(err, RVS_ERR_IO, "cannot create %s: name too long", outpath);
        return NULL;
    }
    mode_t mode = create_mode(target);
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
    sigset_t saved;
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
    if (!resolve_links(outpath, targets[slot], sizeof targets[slot], err))
        return NULL;
    if (!registered)
        registered = atexit(remove_temporaries) == 0;
    catch_fatal_signals();
    block_fatal_signals(&saved); /* the file and its name in the table, or neither */
    outputs[slot].f = open_temporary(outpath, targets[slot], outputs[slot].tmp, sizeof outputs[slot].tmp, err);
    live[slot] = outputs[slot].f != NULL;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
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
    if (!ok || bad)
        unlink(outputs[slot].tmp);
    else if (rename(outputs[slot].tmp, targets[slot]) != 0)
        saved = errno, bad = 2, unlink(outputs[slot].tmp);
    live[slot] = 0; /* only now: a signal before the rename still removes the file */
    if (bad == 2)
        return rvs_fail(err, RVS_ERR_IO, "cannot write %s: %s", outpath, strerror(saved));
    return bad ? rvs_fail(err, RVS_ERR_IO, "write error on %s: %s", outpath, strerror(saved)) : RVS_OK;
}

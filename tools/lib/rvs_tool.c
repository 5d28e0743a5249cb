/* rvs_tool.c - the layer every program shares: errors, input sniffing, output, options */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <omp.h>
#include <pthread.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_engine.h"
#include "rvs_tool.h"

static const char *prog_name = "rvskit";
static int progress_shown;
/* The progress of one read, as shown: its phase (0 reading, 1 parsing what was read), the
 * highest percentage shown in it and the total it counts against. */
static int progress_phase, progress_pct = -1;
static uint64_t progress_total;

/* Remember the program name; a closed pipe becomes EPIPE, not a signal; threads that fit;
 * every block of 256 KiB or more mapped on its own, so that freeing it gives it back. (glibc
 * raises that threshold to the size of the largest block freed, up to 32 MiB: the format
 * advisor's trial builds of 10-30 MiB then stayed in the heap after they were freed, 130 MiB
 * above the hub on the 160^3 stencil.) */
static double trace_t0; /* when the program started: each step says how long after */
/* RVS_TRACE_MEM: the library's memory trace, a line on stderr each step. */
static void print_trace(const char *what, double resident, double peak)
{
    fprintf(stderr, "rvs: memory: %s: resident %.1f MiB, peak %.1f MiB, at %.1f ms\n", what, resident, peak,
            (rvs_engine_now() - trace_t0) * 1e3);
}

void rvs_tool_init(const char *prog)
{
    const char *run = program_invocation_short_name;
    prog_name = strncmp(run, "rvs-", 4) == 0 && strcmp(run + 4, prog) == 0 ? run : prog;
    rvs_tool_check_stdio();
    opterr = 0; /* getopt's own messages would make two lines; programs report '?' themselves */
    signal(SIGPIPE, SIG_IGN);
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
    if (getenv("RVS_TRACE_MEM")) {
        trace_t0 = rvs_engine_now();
        rvs_mem_trace_to(print_trace);
    }
    int fit = rvs_tool_thread_limit();
    if (omp_get_max_threads() > fit)
        omp_set_num_threads(fit);
}

/* Threads whose stacks fit in half of the address space the limit leaves (all when unlimited):
 * libgomp ends the process (status 1, its own message) when it cannot start one. */
int rvs_tool_thread_limit(void)
{
    struct rlimit rl;
    pthread_attr_t attr;
    size_t stack = 8 << 20;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return INT_MAX;
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &stack);
        pthread_attr_destroy(&attr);
    }
    uint64_t left = rvs_mem_limit(), n = left / 2 / (stack + 4096);
    return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

/* OpenMP threads for an option's value, or a usage error when their stacks cannot fit. */
void rvs_tool_fit_threads(const char *opt, int n)
{
    int fit = rvs_tool_thread_limit();
    if (n > fit)
        rvs_tool_usage("%s: %d threads do not fit the address-space limit (ulimit -v): at most %d", opt, n, fit);
    omp_set_num_threads(n);
}

const char *rvs_tool_prog(void)
{
    return prog_name;
}

/* 1 when standard output is a pipe whose reading end is closed. */
static int stdout_pipe_closed(void)
{
    struct pollfd p = {1, POLLOUT, 0};
    struct stat sb;
    return fstat(1, &sb) == 0 && S_ISFIFO(sb.st_mode) && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/* "prog: file: message" and exit. */
void rvs_tool_die(int code, const char *file, const char *fmt, ...)
{
    va_list ap;
    rvs_tool_progress_done();
    rvs_tool_drop_warnings();
    if (code == RVS_EX_IOERR && (!file || strcmp(file, "stdout") == 0) && stdout_pipe_closed()) {
        fprintf(stderr, "%s: stdout: write error: broken pipe (the reading program ended)\n", prog_name);
        exit(code);
    }
    fflush(stdout);
    if (file)
        fprintf(stderr, "%s: %s: ", prog_name, file);
    else
        fprintf(stderr, "%s: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

/* Die with a library error. */
void rvs_tool_die_err(const char *file, const rvs_error *err)
{
    rvs_tool_die(rvs_status_exit_code(err->code), file, "%s",
                 err->msg[0] ? err->msg : rvs_status_string(err->code));
}

/* Usage error, exit 64. */
void rvs_tool_usage(const char *fmt, ...)
{
    va_list ap;
    rvs_tool_progress_done();
    rvs_tool_drop_warnings();
    fprintf(stderr, "%s: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try '%s --help')\n", prog_name);
    exit(RVS_EX_USAGE);
}

/* Version line, exit 0. */
void rvs_tool_version(void)
{
    printf("%s (rvskit) %s\n", prog_name, RVSKIT_VERSION);
    exit(0);
}

/* "stdin" for "-" or NULL. */
const char *rvs_tool_input_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "stdin" : path;
}

/* Base name of a path, for the stream's matrix name. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The reader's warnings about what it accepted (diagonal entries of a skew-symmetric file, a
 * hermitian diagonal that is not real, integers beyond 2^53): "prog: file: warning: ...", each
 * when the program ends well. */
static void warn_input(const char *name, const rvs_mm_info *info)
{
    char line[256];
    for (int which = 0; which < RVS_MM_WARNINGS; which++)
        if (rvs_mm_warning(info, which, line, sizeof line))
            rvs_tool_warn(name, line);
}

/* Read a stream or a Matrix Market file, told apart by the first bytes. */
rvs_status rvs_tool_read_input(const char *path, rvs_stream *S, int *was_mtx, rvs_error *err)
{
    int use_stdin = !path || strcmp(path, "-") == 0;
    unsigned char head[RVS_MAGIC_LEN];
    rvs_status st;
    memset(S, 0, sizeof *S);
    rvs_mm_info info;
    struct stat sb;
    if (use_stdin && rvs_tool_stdin_closed())
        return rvs_fail(err, RVS_ERR_NOFILE, "closed");
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return rvs_fail(err, RVS_ERR_NOFILE, "%s", strerror(errno));
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!use_stdin)
            fclose(f);
        return rvs_fail(err, RVS_ERR_NOFILE, "%s", strerror(EISDIR));
    }
    /* a regular file is mapped by its path; anything else is read on from here, once */
    const int by_path = !use_stdin && S_ISREG(sb.st_mode);
    size_t n = fread(head, 1, sizeof head, f);
    if (ferror(f)) { /* nothing could be read at all: the input is unreadable, not cut short */
        st = rvs_fail(err, RVS_ERR_NOFILE, "%s", strerror(errno));
    } else if (n == sizeof head && rvs_stream_sniff(head, n)) {
        if (was_mtx)
            *was_mtx = 0;
        st = rvs_stream_read(S, f, head, n, err);
    } else if (n == 0) {
        st = rvs_fail(err, RVS_ERR_EMPTY, "empty input");
    } else {
        if (was_mtx)
            *was_mtx = 1;
        if (by_path) {
            fclose(f);
            f = NULL;
        }
        st = rvs_tool_read_text(&S->A, &info, path, f, head, n, isatty(2) ? rvs_tool_progress : NULL, err);
        if (st == RVS_OK)
            snprintf(S->name, sizeof S->name, "%s", use_stdin ? "stdin" : base_name(path));
        if (st == RVS_OK)
            st = rvs_stream_set_mm_source(S, &info, err);
        if (st == RVS_OK)
            warn_input(rvs_tool_input_name(path), &info);
    }
    rvs_tool_progress_done();
    if (f && !use_stdin)
        fclose(f);
    if (st != RVS_OK)
        rvs_stream_free(S);
    return st;
}

/* Write the stream when -o was given or stdout is not a terminal. */
int rvs_tool_want_stream(const char *outpath)
{
    return outpath != NULL || !isatty(1);
}

/* Parse "75,75,1:cpu,1:gpu0,..." into computing powers, devices and processor numbers. */
int rvs_tool_parse_cp(const char *s, double **cp, rvs_device **dev, int32_t **number, int *k, char *why,
                      size_t whylen)
{
    int n = 1, tagged = 0;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    double *c = calloc((size_t)n, sizeof *c);
    rvs_device *d = calloc((size_t)n, sizeof *d);
    int32_t *num = malloc((size_t)n * sizeof *num);
    int *has = calloc((size_t)n, sizeof *has);
    const char *p = s;
    int ok = c && d && num && has;
    for (int i = 0; ok && i < n; i++) {
        char *end;
        errno = 0;
        c[i] = strtod(p, &end);
        /* ERANGE with a positive result is a subnormal power, which readers accept too */
        if (end == p || (errno && errno != ERANGE) || !isfinite(c[i]) || c[i] <= 0) {
            snprintf(why, whylen, "computing power %d of '%s' is not a positive number", i + 1, s);
            ok = 0;
            break;
        }
        p = end;
        if (*p == ':') {
            p++;
            if (strncmp(p, "gpu", 3) == 0) {
                d[i] = RVS_DEV_GPU;
                p += 3;
            } else if (strncmp(p, "cpu", 3) == 0) {
                d[i] = RVS_DEV_CPU;
                p += 3;
            } else {
                snprintf(why, whylen, "computing power %d of '%s': device must be gpu or cpu", i + 1, s);
                ok = 0;
                break;
            }
            has[i] = 1;
            tagged = 1;
        }
        num[i] = -1;
        if (has[i] && *p >= '0' && *p <= '9') { /* gpuN, cpuN: bound to processor N */
            char *e;
            long v = strtol(p, &e, 10);
            if (v >= RVS_PLACE_MAX || e - p > 5) {
                snprintf(why, whylen, "computing power %d of '%s': processor number above %d", i + 1, s,
                         RVS_PLACE_MAX - 1);
                ok = 0;
                break;
            }
            num[i] = (int32_t)v;
            p = e;
        }
        if (*p == ',')
            p++;
        else if (*p || i != n - 1) {
            snprintf(why, whylen, "cannot parse computing powers '%s' (want e.g. 75,75,1,1)", s);
            ok = 0;
        }
    }
    if (ok && !tagged) {
        double mx = c[0], mn = c[0];
        for (int i = 1; i < n; i++) {
            mx = c[i] > mx ? c[i] : mx;
            mn = c[i] < mn ? c[i] : mn;
        }
        for (int i = 0; i < n; i++)
            d[i] = (mx >= 2 * mn && c[i] == mx) ? RVS_DEV_GPU : RVS_DEV_CPU;
    }
    free(has);
    if (!ok) {
        if (!c || !d || !num)
            snprintf(why, whylen, "out of memory");
        free(c);
        free(d);
        free(num);
        return -1;
    }
    *cp = c;
    *dev = d;
    if (number)
        *number = num;
    else
        free(num);
    *k = n;
    return 0;
}

/* Integer option value in [min, max], or a usage error. */
long long rvs_tool_parse_int(const char *opt, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max)
        rvs_tool_usage("%s: '%s' is not an integer in %lld..%lld", opt, s, min, max);
    return v;
}

rvs_vtype rvs_tool_parse_precision(const char *opt, const char *s)
{
    if (strcmp(s, "f64") != 0 && strcmp(s, "f32") != 0)
        rvs_tool_usage("%s: '%s' is not f32 or f64", opt, s);
    return strcmp(s, "f64") == 0 ? RVS_F64 : RVS_F32;
}

/* Progress line on a terminal stderr. The reader reports against more than one total (the
 * compressed bytes read in, then the text parsed): the percentage shown never goes back, and
 * a new total after 100% starts the "parsing" phase rather than falling to a lower figure. */
void rvs_tool_progress(void *ctx, uint64_t done, uint64_t total)
{
    static double t0;
    (void)ctx;
    if (!isatty(2))
        return;
    if (total && total != progress_total) {
        if (progress_pct >= 100 && progress_phase == 0) {
            progress_phase = 1;
            progress_pct = -1;
        }
        progress_total = total;
    }
    if (t0 == 0)
        t0 = rvs_tool_now();
    if (rvs_tool_now() - t0 < 0.5) /* quick reads show nothing */
        return;
    const char *what = progress_phase ? "parsing" : "reading";
    if (total) {
        int pct = done >= total ? 100 : (int)(100.0 * (double)done / (double)total);
        if (pct <= progress_pct)
            return;
        progress_pct = pct;
        fprintf(stderr, "\r%s: %s %3d%%", prog_name, what, pct);
    } else {
        fprintf(stderr, "\r%s: %s %.0f MB", prog_name, what, (double)done / 1e6);
    }
    progress_shown = 1;
}

/* Say on stderr what the program is doing, when stderr is a terminal (cleared by
 * rvs_tool_progress_done). */
void rvs_tool_status(const char *what)
{
    if (!isatty(2))
        return;
    fprintf(stderr, "\r\033[K%s: %s", prog_name, what);
    progress_shown = 1;
}

/* Clear the progress line; the next read starts afresh. */
void rvs_tool_progress_done(void)
{
    progress_phase = 0;
    progress_pct = -1;
    progress_total = 0;
    if (progress_shown) {
        fprintf(stderr, "\r\033[K");
        progress_shown = 0;
    }
}

/* Median of v, sorting it (the engine's, so that programs and engine agree). */
double rvs_tool_median(double *v, int n)
{
    return rvs_engine_median(v, n);
}

/* Monotonic seconds. */
double rvs_tool_now(void)
{
    return rvs_engine_now();
}

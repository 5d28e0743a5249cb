/* mem_limit.c - the memory this process may hold (machine, cgroup, rlimits), and claims against it */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "rvs_mem.h"

static uint64_t set_limit; /* rvs_mem_set_limit's; 0: none */

/* The number in a one-line file (cgroup limits), or 0 when absent, unlimited or unreadable. */
static uint64_t file_number(const char *path)
{
    unsigned long long v = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &v) != 1) /* "max" (cgroup v2, unlimited) reads as nothing */
        v = 0;
    fclose(f);
    return v;
}

/* Bytes of address space the process maps now (/proc/self/statm), 0 if unknown. */
static uint64_t mapped_bytes(void)
{
    unsigned long long pages = 0;
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &pages) != 1)
        pages = 0;
    fclose(f);
    return page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* a = the smaller of a and b, where 0 means "no limit". */
static void lower(uint64_t *a, uint64_t b)
{
    if (b && (!*a || b < *a))
        *a = b;
}

/* RVS_MEMORY_LIMIT in bytes, with an optional K, M or G suffix (powers of 1024); 0 if unset or
 * unreadable. */
static uint64_t env_limit(void)
{
    const char *s = getenv("RVS_MEMORY_LIMIT");
    char *end;
    if (!s || !*s)
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (end == s || (shift && end[1]) || (!shift && *end) || v > (UINT64_MAX >> shift))
        return 0;
    return (uint64_t)v << shift;
}

/* The machine's memory and its cgroup's limit, read once: every claim asks, and reading three
 * files a claim made small reads slow. */
static uint64_t host_limit;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void read_host_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        lower(&host_limit, (uint64_t)pages * (uint64_t)page);
    lower(&host_limit, file_number("/sys/fs/cgroup/memory.max"));
    /* cgroup v1 writes "no limit" as a huge page-rounded number: below 2^62 it is a limit */
    uint64_t v1 = file_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    lower(&host_limit, v1 < ((uint64_t)1 << 62) ? v1 : 0);
}

/* The least of every limit that applies. */
uint64_t rvs_mem_limit(void)
{
    uint64_t lim = set_limit;
    lower(&lim, env_limit());
    pthread_once(&host_once, read_host_limit);
    lower(&lim, host_limit);
    /* an rlimit counts what the process already maps (libraries, a mapped input file) */
    struct rlimit rl[2];
    int limited = 0;
    for (int i = 0; i < 2; i++)
        if (getrlimit(i ? RLIMIT_DATA : RLIMIT_AS, &rl[i]) == 0 && rl[i].rlim_cur != RLIM_INFINITY)
            limited |= 1 << i;
    uint64_t used = limited ? mapped_bytes() : 0;
    for (int i = 0; i < 2; i++)
        if (limited & (1 << i))
            lower(&lim, (uint64_t)rl[i].rlim_cur > used ? (uint64_t)rl[i].rlim_cur - used : 1);
    return lim;
}

void rvs_mem_set_limit(uint64_t bytes)
{
    set_limit = bytes;
}

/* "8.0 TB": decimal units. */
void rvs_mem_format(char *out, size_t n, double bytes)
{
    static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 7) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(out, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* Fail when bytes exceed the limit. */
rvs_status rvs_mem_claim(double bytes, const char *what, rvs_error *err)
{
    uint64_t lim = rvs_mem_limit();
    if (!lim || bytes <= (double)lim)
        return RVS_OK;
    char b[32], l[32];
    rvs_mem_format(b, sizeof b, bytes);
    rvs_mem_format(l, sizeof l, (double)lim);
    return rvs_fail(err, RVS_ERR_OVERFLOW, "%s need %s, more than the %s of memory available", what, b, l);
}

void rvs_mem_give_back(const void *p, size_t n)
{
    const long sz = sysconf(_SC_PAGESIZE);
    const uintptr_t page = sz > 0 ? (uintptr_t)sz : 4096;
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + n) & ~(page - 1);
    if (p && b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

static rvs_mem_trace_fn trace_sink; /* the library reports; a program that wants the trace prints it */

void rvs_mem_trace_to(rvs_mem_trace_fn sink)
{
    trace_sink = sink;
}

void rvs_mem_trace(const char *what)
{
    char line[256];
    double rss = -1, hwm = -1;
    FILE *f = trace_sink ? fopen("/proc/self/status", "r") : NULL;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmRSS: %lf", &rss) == 1 || sscanf(line, "VmHWM: %lf", &hwm) == 1)
            continue;
    }
    fclose(f);
    trace_sink(what, rss / 1024, hwm / 1024);
}

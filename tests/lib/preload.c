/* preload.c - LD_PRELOAD helper of the tests: counts what a program does that its output does not
 * show, and can stop it at a chosen moment. Settings (environment):
 *   RVS_PRELOAD_COUNT=FILE    at exit, write "regions N" (OpenMP parallel regions opened) and
 *                             "opens N" (fopen calls on paths ending in RVS_PRELOAD_OPENS) to FILE
 *   RVS_PRELOAD_OPENS=SUFFIX  the paths whose fopen calls are counted
 *   RVS_PRELOAD_STOP=rename   stop the process (SIGSTOP) before its first rename(2): an output
 *                             written through a temporary file is then complete but not in place */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long regions, opens;
static int stopped;

void GOMP_parallel(void (*fn)(void *), void *data, unsigned threads, unsigned flags)
{
    static void (*real)(void (*)(void *), void *, unsigned, unsigned);
    if (!real)
        real = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel");
    __atomic_add_fetch(&regions, 1, __ATOMIC_RELAXED);
    real(fn, data, threads, flags);
}

FILE *fopen(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    const char *suffix = getenv("RVS_PRELOAD_OPENS");
    if (!real)
        real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    size_t n = strlen(path), m = suffix ? strlen(suffix) : 0;
    if (suffix && n >= m && strcmp(path + n - m, suffix) == 0)
        __atomic_add_fetch(&opens, 1, __ATOMIC_RELAXED);
    return real(path, mode);
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    const char *stop = getenv("RVS_PRELOAD_STOP");
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    if (stop && strcmp(stop, "rename") == 0 && !stopped) {
        stopped = 1;
        raise(SIGSTOP);
    }
    return real(from, to);
}

/* The counts, when asked for. */
__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("RVS_PRELOAD_COUNT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "regions %ld\nopens %ld\n", regions, opens);
        fclose(f);
    }
}

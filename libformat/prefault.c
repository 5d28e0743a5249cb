/* prefault.c - commit fresh memory ahead of the code that fills it, on a helper thread */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define STEP ((size_t)2 << 20) /* bytes per madvise call: the request can move between steps */

struct rvs_prefault {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    uintptr_t start;     /* where the standing request began */
    uintptr_t next, end; /* page-aligned: still to commit [next, end) */
    int busy;            /* the helper is inside madvise on the standing request */
    int quit;
};

/* Bytes per page. */
static size_t page_size(void)
{
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? (size_t)v : 4096;
}

/* The helper: commit the standing request step by step, sleeping while there is none. */
static void *helper(void *arg)
{
    rvs_prefault *pf = arg;
    pthread_mutex_lock(&pf->lock);
    for (;;) {
        while (!pf->quit && pf->next >= pf->end)
            pthread_cond_wait(&pf->wake, &pf->lock);
        if (pf->quit)
            break;
        uintptr_t a = pf->next, b = pf->end - a > STEP ? a + STEP : pf->end;
        pf->next = b;
        pf->busy = 1;
        pthread_mutex_unlock(&pf->lock);
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
        pthread_mutex_lock(&pf->lock);
        pf->busy = 0;
        pthread_cond_broadcast(&pf->idle);
    }
    pthread_mutex_unlock(&pf->lock);
    return NULL;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int populates;

/* Try MADV_POPULATE_WRITE on a page of our own. */
static void probe(void)
{
    size_t ps = page_size();
    void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    populates = p != MAP_FAILED && madvise(p, ps, MADV_POPULATE_WRITE) == 0;
    if (p != MAP_FAILED)
        munmap(p, ps);
}

/* 1 when this kernel populates on request. */
static int kernel_populates(void)
{
    pthread_once(&probe_once, probe);
    return populates;
}

/* Start a helper thread (NULL: go without). */
rvs_prefault *rvs_prefault_start(void)
{
    if (!kernel_populates())
        return NULL;
    rvs_prefault *pf = calloc(1, sizeof *pf);
    if (!pf)
        return NULL;
    pthread_mutex_init(&pf->lock, NULL);
    pthread_cond_init(&pf->wake, NULL);
    pthread_cond_init(&pf->idle, NULL);
    if (pthread_create(&pf->thread, NULL, helper, pf) != 0) {
        pthread_mutex_destroy(&pf->lock);
        pthread_cond_destroy(&pf->wake);
        pthread_cond_destroy(&pf->idle);
        free(pf);
        return NULL;
    }
    return pf;
}

/* Commit what is missing of [base + from, base + to) now and ask for the rest up to ahead_to. */
void rvs_prefault_fill(rvs_prefault *pf, void *base, size_t from, size_t to, size_t ahead_to)
{
    if (!pf || to <= from)
        return;
    uintptr_t ps = page_size(), a = ((uintptr_t)base + from + ps - 1) & ~(ps - 1),
              b = ((uintptr_t)base + to) & ~(ps - 1), c = ((uintptr_t)base + ahead_to) & ~(ps - 1);
    uintptr_t now_a = a, now_b = a;
    pthread_mutex_lock(&pf->lock);
    if (a < pf->start || a > pf->end) /* outside the standing request: a new one */
        pf->start = pf->next = pf->end = a;
    if (pf->next < b) { /* the helper is behind: take [next, b) here */
        now_a = pf->next;
        now_b = b;
        pf->next = b;
    }
    if (c > pf->end)
        pf->end = c;
    pthread_cond_signal(&pf->wake);
    pthread_mutex_unlock(&pf->lock);
    if (now_b > now_a)
        (void)madvise((void *)now_a, now_b - now_a, MADV_POPULATE_WRITE);
}

/* Withdraw the request and wait for the helper to leave it. */
void rvs_prefault_stop_range(rvs_prefault *pf)
{
    if (!pf)
        return;
    pthread_mutex_lock(&pf->lock);
    pf->start = pf->next = pf->end = 0;
    while (pf->busy)
        pthread_cond_wait(&pf->idle, &pf->lock);
    pthread_mutex_unlock(&pf->lock);
}

/* Stop and free the helper. */
void rvs_prefault_stop(rvs_prefault *pf)
{
    if (!pf)
        return;
    pthread_mutex_lock(&pf->lock);
    pf->quit = 1;
    pthread_cond_signal(&pf->wake);
    pthread_mutex_unlock(&pf->lock);
    pthread_join(pf->thread, NULL);
    pthread_mutex_destroy(&pf->lock);
    pthread_cond_destroy(&pf->wake);
    pthread_cond_destroy(&pf->idle);
    free(pf);
}

/* Commit [p, p + n) on this thread. */
void rvs_prefault_now(void *p, size_t n)
{
    uintptr_t ps = page_size(), a = ((uintptr_t)p + ps - 1) & ~(ps - 1), b = ((uintptr_t)p + n) & ~(ps - 1);
    if (b > a && kernel_populates())
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
}

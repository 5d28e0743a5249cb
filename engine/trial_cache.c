/* trial_cache.c - the advisor's trial cache: one text line per decision, keyed by the device
 * and the shape of the part, in $XDG_CACHE_HOME/rvskit/trials (else ~/.cache/rvskit/trials):
 *   rvskit-trial 5 DEVICE SHAPE VTYPE SAMPLED FORMAT KNOBS MS BYTES [FORMAT KNOBS MS BYTES]
 * (DEVICE and SHAPE 16 hex digits; the chosen candidate, then the runner-up). Lines are
 * appended with one write each; the last matching line wins; a line that does not parse is
 * skipped, so a cache from another version costs a trial, never a wrong plan. The file is read
 * once a process into a table that later lookups use (a lookup that read the file again made a
 * run of 16384 one-row parts quadratic), and is cut back to the newest KEEP_LINES decisions
 * whenever it grows past MAX_LINES, by a copy renamed over it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine_internal.h"

#define MAX_LINES 4096  /* the file is cut back past this many lines ... */
#define KEEP_LINES 2048 /* ... to this many, the newest decisions */

/* One decision of the table: the newest line of its key. */
typedef struct {
    uint64_t device, shape, seq; /* seq: when it was set, newest highest */
    int vtype, sampled, ncand, used;
    rvs_candidate cand[2];
} entry;

/* The cache file as this process knows it. */
static struct {
    char path[4096]; /* the file the table was read from ("": not read yet) */
    entry *e;        /* open addressing, cap a power of two, at most half full */
    size_t cap, count;
    uint64_t seq;
    int64_t lines; /* lines the file holds */
} table;

uint64_t rvs_shape_key_rows(const rvs_row_list *R, rvs_vtype vt)
{
    return rvs_hash_i64(rvs_hash_row_list(RVS_HASH_SEED, R), (int64_t)vt);
}

uint64_t rvs_shape_key(const rvs_csr *S, rvs_vtype vt)
{
    rvs_row_list R;
    rvs_row_list_all(&R, S);
    return rvs_shape_key_rows(&R, vt);
}

/* The cache file's path into buf; mkdirs creates its folders. */
static rvs_status cache_path(char *buf, size_t n, int mkdirs, rvs_error *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int len;
    if (xdg && xdg[0])
        len = snprintf(buf, n, "%s", xdg);
    else if (home && home[0])
        len = snprintf(buf, n, "%s/.cache", home);
    else
        return rvs_fail(err, RVS_ERR_NOFILE, "trial cache: neither XDG_CACHE_HOME nor HOME is set");
    if (len < 0 || (size_t)len + sizeof "/rvskit/trials" > n)
        return rvs_fail(err, RVS_ERR_ARG, "trial cache: path too long");
    if (mkdirs && mkdir(buf, 0755) != 0 && errno != EEXIST)
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", buf, strerror(errno));
    strcat(buf, "/rvskit");
    if (mkdirs && mkdir(buf, 0755) != 0 && errno != EEXIST)
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", buf, strerror(errno));
    strcat(buf, "/trials");
    return RVS_OK;
}

static uint64_t device_key(const char *device)
{
    return rvs_hash(RVS_HASH_SEED, device, strlen(device));
}

/* One candidate from "FORMAT KNOBS MS BYTES" at *s (advanced); 0 when it does not parse. */
static int parse_candidate(rvs_candidate *c, char **s)
{
    char name[32], knobs[256];
    int used = 0;
    if (sscanf(*s, " %31s %255s %lf %lf%n", name, knobs, &c->ms, &c->model_bytes, &used) != 4)
        return 0;
    *s += used;
    const rvs_format_ops *ops = rvs_format_by_name(name);
    rvs_knobs_default(&c->knobs);
    if (!ops || !(c->ms >= 0) ||
        (strcmp(knobs, "default") != 0 && rvs_knobs_parse(&c->knobs, knobs, NULL) != RVS_OK))
        return 0;
    c->format = ops->id;
    c->status = RVS_CAND_RAN;
    return 1;
}

/* A decision from one line of the file; 0 when the line does not parse. */
static int parse_line(entry *e, char *line)
{
    unsigned long long dev_h, shape_h;
    int used = 0;
    memset(e, 0, sizeof *e);
    if (sscanf(line, "rvskit-trial 5 %llx %llx %d %d%n", &dev_h, &shape_h, &e->vtype, &e->sampled, &used) != 4)
        return 0;
    char *s = line + used;
    if (!parse_candidate(&e->cand[0], &s))
        return 0;
    e->ncand = 1 + parse_candidate(&e->cand[1], &s);
    e->device = dev_h;
    e->shape = shape_h;
    return 1;
}

/* Append " FORMAT KNOBS MS BYTES" of c to buf at *used. */
static void put_candidate(char *buf, size_t n, size_t *used, const rvs_candidate *c)
{
    char knobs[256];
    rvs_knobs_format(&c->knobs, knobs, sizeof knobs);
    int len = snprintf(buf + *used, n - *used, " %s %s %.6g %.6g", rvs_format_lookup(c->format)->name, knobs, c->ms,
                       c->model_bytes);
    if (len > 0 && *used + (size_t)len < n)
        *used += (size_t)len;
}

/* e as one line of the file, with its newline; its length (0: too long). */
static size_t format_line(const entry *e, char *line, size_t n)
{
    size_t used = (size_t)snprintf(line, n, "rvskit-trial 5 %016llx %016llx %d %d", (unsigned long long)e->device,
                                   (unsigned long long)e->shape, e->vtype, e->sampled);
    for (int k = 0; k < e->ncand; k++)
        put_candidate(line, n, &used, &e->cand[k]);
    if (used + 2 > n)
        return 0;
    line[used++] = '\n';
    line[used] = 0;
    return used;
}

/* The table's slot of (device, shape, vtype): its entry, or the free slot it would take. */
static entry *slot_of(uint64_t device, uint64_t shape, int vtype)
{
    size_t i = (size_t)rvs_hash_i64(rvs_hash_i64(device ^ shape, vtype), 1) & (table.cap - 1);
    while (table.e[i].used &&
           !(table.e[i].device == device && table.e[i].shape == shape && table.e[i].vtype == vtype))
        i = (i + 1) & (table.cap - 1);
    return &table.e[i];
}

/* Put e in the table as the newest decision of its key; 0 when out of memory. */
static int remember(const entry *e)
{
    if (2 * (table.count + 1) > table.cap) {
        const size_t cap = table.cap ? 2 * table.cap : 1024;
        entry *old = table.e, *grown = calloc(cap, sizeof *grown);
        const size_t oldcap = table.cap;
        if (!grown)
            return 0;
        table.e = grown;
        table.cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].used)
                *slot_of(old[i].device, old[i].shape, old[i].vtype) = old[i];
        free(old);
    }
    entry *s = slot_of(e->device, e->shape, e->vtype);
    table.count += !s->used;
    *s = *e;
    s->used = 1;
    s->seq = ++table.seq;
    return 1;
}

/* Newest first, for the cut. */
static int newer_first(const void *a, const void *b)
{
    const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
    return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* Rewrite the file with the newest KEEP_LINES decisions of the table, oldest first, through a
 * temporary file renamed over it; the table keeps only those too. A cut that fails costs only
 * the file's length. */
static void cut_back(void)
{
    char tmp[4096 + 16], line[1024];
    entry **by_age = malloc((table.count ? table.count : 1) * sizeof *by_age);
    if (!by_age || snprintf(tmp, sizeof tmp, "%s.XXXXXX", table.path) >= (int)sizeof tmp) {
        free(by_age);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < table.cap; i++)
        if (table.e[i].used)
            by_age[n++] = &table.e[i];
    qsort(by_age, n, sizeof *by_age, newer_first);
    const size_t keep = n < KEEP_LINES ? n : KEEP_LINES;
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int ok = f != NULL;
    for (size_t i = keep; ok && i-- > 0;) {
        size_t len = format_line(by_age[i], line, sizeof line);
        ok = len == 0 || fwrite(line, 1, len, f) == len;
    }
    for (size_t i = keep; i < n; i++) /* the table forgets what the file no longer holds */
        by_age[i]->seq = 0;
    free(by_age);
    if (f)
        ok &= fclose(f) == 0;
    else if (fd >= 0)
        close(fd);
    if (fd >= 0 && (!ok || chmod(tmp, 0644) != 0 || rename(tmp, table.path) != 0)) {
        unlink(tmp);
        return;
    }
    entry *old = table.e;
    const size_t oldcap = table.cap;
    table.e = calloc(oldcap, sizeof *table.e);
    if (!table.e) {
        table.e = old;
        return;
    }
    table.count = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used && old[i].seq) {
            *slot_of(old[i].device, old[i].shape, old[i].vtype) = old[i];
            table.count++;
        }
    free(old);
    table.lines = (int64_t)keep;
}

/* The table read from the file at path, once per path; a file past MAX_LINES is cut back. */
static rvs_status load(const char *path, rvs_error *err)
{
    char line[1024];
    entry e;
    if (strcmp(table.path, path) == 0)
        return RVS_OK;
    free(table.e);
    memset(&table, 0, sizeof table);
    snprintf(table.path, sizeof table.path, "%s", path);
    table.cap = 1024;
    if (!(table.e = calloc(table.cap, sizeof *table.e))) {
        table.path[0] = 0;
        return rvs_fail(err, RVS_ERR_NOMEM, "trial cache: out of memory");
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return RVS_OK; /* no file yet: an empty table */
    while (fgets(line, sizeof line, f)) {
        table.lines++;
        if (parse_line(&e, line) && !remember(&e))
            break;
    }
    fclose(f);
    if (table.lines > MAX_LINES)
        cut_back();
    return RVS_OK;
}

rvs_status rvs_trial_cache_lookup(rvs_decision *d, const char *device, uint64_t shape, rvs_error *err)
{
    char path[4096];
    rvs_status st = cache_path(path, sizeof path, 0, err);
    int found = 0;
    if (st != RVS_OK)
        return st;
#pragma omp critical(rvs_trial_cache)
    {
        st = load(path, err);
        const entry *e = st == RVS_OK ? slot_of(device_key(device), shape, (int)d->vtype) : NULL;
        if (e && e->used) {
            d->ncand = e->ncand;
            memcpy(d->cand, e->cand, (size_t)e->ncand * sizeof e->cand[0]);
            d->chosen = 0;
            d->sampled = e->sampled != 0;
            found = 1;
        }
    }
    d->from_cache = found;
    if (st != RVS_OK)
        return st;
    return found ? RVS_OK : rvs_fail(err, RVS_ERR_NOFILE, "not in the trial cache");
}

rvs_status rvs_trial_cache_store(const rvs_decision *d, const char *device, uint64_t shape, rvs_error *err)
{
    char path[4096], line[1024];
    entry e;
    if (d->chosen < 0)
        return rvs_fail(err, RVS_ERR_ARG, "trial cache: nothing chosen");
    rvs_status st = cache_path(path, sizeof path, 1, err);
    if (st != RVS_OK)
        return st;
    memset(&e, 0, sizeof e);
    e.device = device_key(device);
    e.shape = shape;
    e.vtype = (int)d->vtype;
    e.sampled = d->sampled;
    e.cand[0] = d->cand[d->chosen];
    e.ncand = 1;
    int r = rvs_decision_runner_up(d);
    if (r >= 0)
        e.cand[e.ncand++] = d->cand[r];
    size_t used = format_line(&e, line, sizeof line);
    if (used == 0)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "trial cache: line too long");
#pragma omp critical(rvs_trial_cache)
    {
        st = load(path, err);
        int fd = st == RVS_OK ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
        if (st == RVS_OK && fd < 0)
            st = rvs_fail(err, RVS_ERR_IO, "%s: %s", path, strerror(errno));
        if (fd >= 0) {
            ssize_t w = write(fd, line, used); /* one write: concurrent programs do not interleave lines */
            int bad = w != (ssize_t)used;
            bad |= close(fd) != 0;
            if (bad)
                st = rvs_fail(err, RVS_ERR_IO, "%s: write failed", path);
            table.lines++;
            remember(&e);
            if (table.lines > MAX_LINES)
                cut_back();
        }
    }
    return st;
}

/* trial_cache.c - the advisor's trial cache: one text line per decision, keyed by the device
 * and the shape of the part, in $XDG_CACHE_HOME/rvskit/trials (else ~/.cache/rvskit/trials):
 *   rvskit-trial 5 DEVICE SHAPE VTYPE SAMPLED FORMAT KNOBS MS BYTES [FORMAT KNOBS MS BYTES]
 * (DEVICE and SHAPE 16 hex digits; the chosen candidate, then the runner-up). Lines are
 * appended with one write each; the last matching line wins; a line that does not parse is
 * skipped, so a cache from another version costs a trial, never a wrong plan. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine_internal.h"

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

static uint64_t device_key(const char *device) { return rvs_hash(RVS_HASH_SEED, device, strlen(device)); }

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
    if (!ops || !(c->ms >= 0) || (strcmp(knobs, "default") != 0 && rvs_knobs_parse(&c->knobs, knobs, NULL) != RVS_OK))
        return 0;
    c->format = ops->id;
    c->status = RVS_CAND_RAN;
    return 1;
}

rvs_status rvs_trial_cache_lookup(rvs_decision *d, const char *device, uint64_t shape, rvs_error *err)
{
    char path[4096], line[1024];
    rvs_status st = cache_path(path, sizeof path, 0, err);
    if (st != RVS_OK)
        return st;
    FILE *f = fopen(path, "r");
    if (!f)
        return rvs_fail(err, RVS_ERR_NOFILE, "%s: %s", path, strerror(errno));
    int found = 0;
    const uint64_t dk = device_key(device);
    while (fgets(line, sizeof line, f)) {
        unsigned long long dev_h, shape_h;
        int vt, sampled, used = 0;
        rvs_candidate c[2];
        if (sscanf(line, "rvskit-trial 5 %llx %llx %d %d%n", &dev_h, &shape_h, &vt, &sampled, &used) != 4 ||
            dev_h != dk || shape_h != shape || vt != (int)d->vtype)
            continue;
        char *s = line + used;
        if (!parse_candidate(&c[0], &s))
            continue;
        int n = 1 + parse_candidate(&c[1], &s);
        d->ncand = n;
        memcpy(d->cand, c, (size_t)n * sizeof c[0]);
        d->chosen = 0;
        d->sampled = sampled != 0;
        found = 1;
    }
    fclose(f);
    d->from_cache = found;
    return found ? RVS_OK : rvs_fail(err, RVS_ERR_NOFILE, "not in the trial cache");
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

rvs_status rvs_trial_cache_store(const rvs_decision *d, const char *device, uint64_t shape, rvs_error *err)
{
    char path[4096], line[1024];
    size_t used;
    if (d->chosen < 0)
        return rvs_fail(err, RVS_ERR_ARG, "trial cache: nothing chosen");
    rvs_status st = cache_path(path, sizeof path, 1, err);
    if (st != RVS_OK)
        return st;
    used = (size_t)snprintf(line, sizeof line, "rvskit-trial 5 %016llx %016llx %d %d",
                            (unsigned long long)device_key(device), (unsigned long long)shape, (int)d->vtype,
                            d->sampled);
    put_candidate(line, sizeof line, &used, &d->cand[d->chosen]);
    int r = rvs_decision_runner_up(d);
    if (r >= 0)
        put_candidate(line, sizeof line, &used, &d->cand[r]);
    if (used + 2 > sizeof line)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "trial cache: line too long");
    line[used++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", path, strerror(errno));
    ssize_t w = write(fd, line, used); /* one write: concurrent programs do not interleave lines */
    int bad = w != (ssize_t)used;
    bad |= close(fd) != 0;
    return bad ? rvs_fail(err, RVS_ERR_IO, "%s: write failed", path) : RVS_OK;
}

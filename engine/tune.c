/* tune.c - GPU kernel tunables by name: "threads-per-row=4,block=256" and back */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"

/* Every tunable of rvs_gpu_tune, by the name users type. A kernel that gains a tunable adds
 * its field to rvs_gpu_tune (kernels/gpu/rvs_gpu.h) and one line here. */
static const struct {
    const char *name;
    size_t offset;
} keys[] = {
    {"block", offsetof(rvs_gpu_tune, block)},
    {"threads-per-row", offsetof(rvs_gpu_tune, threads_per_row)},
    {"hcc-wg", offsetof(rvs_gpu_tune, hcc_wg)},
    {"hcc-wi", offsetof(rvs_gpu_tune, hcc_wi)},
    {"rows-per-thread", offsetof(rvs_gpu_tune, rows_per_thread)},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

/* Field of t named key, or NULL. */
static int *field(rvs_gpu_tune *t, const char *key, size_t len)
{
    for (int i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == len && strncmp(keys[i].name, key, len) == 0)
            return (int *)((char *)t + keys[i].offset);
    return NULL;
}

const char *rvs_tune_keys(void)
{
    static char list[256];
    if (!list[0])
        for (int i = 0; i < NKEYS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i].name);
    return list;
}

rvs_status rvs_tune_parse(rvs_gpu_tune *t, const char *s, rvs_error *err)
{
    const char *p = s;
    while (*p) {
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
            return rvs_fail(err, RVS_ERR_ARG, "'%.*s' is not KEY=INT", (int)(end - p), p);
        int *f = field(t, p, (size_t)(eq - p));
        if (!f)
            return rvs_fail(err, RVS_ERR_ARG, "unknown tunable '%.*s' (%s)", (int)(eq - p), p, rvs_tune_keys());
        char *stop;
        long v = strtol(eq + 1, &stop, 10);
        if (stop == eq + 1 || stop != end || v < 0 || v > (1 << 20))
            return rvs_fail(err, RVS_ERR_ARG, "'%.*s' is not KEY=INT with INT in 0..%d", (int)(end - p), p, 1 << 20);
        *f = (int)v;
        p = *end ? end + 1 : end;
    }
    return RVS_OK;
}

void rvs_tune_format(const rvs_gpu_tune *t, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return;
    buf[0] = 0;
    for (int i = 0; i < NKEYS; i++) {
        int v = *(const int *)((const char *)t + keys[i].offset);
        if (v == 0 || used >= n)
            continue;
        int w = snprintf(buf + used, n - used, "%s%s=%d", used ? "," : "", keys[i].name, v);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used == 0)
        snprintf(buf, n, "default");
}

/* tune.c - the tunables by name: GPU kernel settings (rvs_gpu_tune) and format build options
 * (rvs_fmt_options), parsed from and printed as "threads-per-row=4,hyb-k=third", and the
 * variants of a format the advisor tries. One table: a kernel or builder that gains a tunable
 * adds its field and one line here, and the advisor tries it without other changes. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rvs_engine.h"

enum { GPU_INT, BUILD_I64 };
#define NTRIAL 4
#define TRIAL_END INT64_MIN

/* name, where the value lives, the formats whose kernels or builders read it (comma list),
 * the values the advisor tries besides the default (TRIAL_END-terminated), smallest value,
 * pow2: the largest power of two the value may be (0: any value), and the largest value (0:
 * 2^20). */
static const struct {
    const char *name;
    int kind;
    size_t offset;
    const char *formats;
    int64_t trial[NTRIAL];
    int64_t min;
    int pow2;
    int64_t max;
} keys[] = {
    {"block", GPU_INT, offsetof(rvs_gpu_tune, block), "", {TRIAL_END}, 0, 0, 0},
    /* csr: 1 scalar, 2..32 vector, 64 row-block, 128 nnz-split, 256 warp-rows; ellr: lanes per row (up to 32) */
    {"threads-per-row", GPU_INT, offsetof(rvs_gpu_tune, threads_per_row), "csr,ellr", {4, 64, 128, TRIAL_END}, 0,
     256, 0},
    {"hcc-wg", GPU_INT, offsetof(rvs_gpu_tune, hcc_wg), "hcc", {TRIAL_END}, 0, 0, 0},
    {"hcc-wi", GPU_INT, offsetof(rvs_gpu_tune, hcc_wi), "hcc", {256, TRIAL_END}, 0, 0, 0},
    {"hyb-k", BUILD_I64, offsetof(rvs_fmt_options, hyb_k), "hyb,hyb-dia", {RVS_HYB_K_THIRD, TRIAL_END},
     RVS_HYB_K_THIRD, 0, 0},
    {"hcc-np", BUILD_I64, offsetof(rvs_fmt_options, hcc_np), "hcc", {TRIAL_END}, 0, 0, 0},
    {"hcc-nb", BUILD_I64, offsetof(rvs_fmt_options, hcc_nb), "hcc", {TRIAL_END}, 0, 0, 0},
    /* dia, hyb-dia: rows per thread, f64 2 or 4, f32 4 or 8 (a pair of 16-byte loads per diagonal);
     * slots coded into a table: 1, 2 (the default), 4 or 8 */
    {"rows-per-thread", GPU_INT, offsetof(rvs_gpu_tune, rows_per_thread), "dia,hyb-dia", {4, TRIAL_END}, 0, 8, 0},
    {"hcc-g", BUILD_I64, offsetof(rvs_fmt_options, hcc_g), "hcc", {TRIAL_END}, 0, 0, 0},
    /* csr on the GPU: 0 row-block chunks in column order, 1 rows in order (every other kernel) */
    {"csr-order", BUILD_I64, offsetof(rvs_fmt_options, csr_order), "csr", {1, TRIAL_END}, 0, 1, 0},
    /* csr on the GPU: 0 values coded into a table of at most 256 where they fit (csr-order 0), 1 as they are */
    {"csr-values", BUILD_I64, offsetof(rvs_fmt_options, csr_values), "csr", {TRIAL_END}, 0, 1, 0},
    /* dia, hyb-dia on the GPU: 0 slots coded into a table of at most 256 values where they fit, 1 as they are */
    {"dia-values", BUILD_I64, offsetof(rvs_fmt_options, dia_values), "dia,hyb-dia", {1, TRIAL_END}, 0, 1, 0},
    /* csr on the GPU: column panels, 0 by rule (f32 chunks spanning 2^20 columns), 1 none, P that many */
    {"csr-panels", BUILD_I64, offsetof(rvs_fmt_options, csr_panels), "csr", {TRIAL_END}, 0, 0, RVS_CSR_MAX_PANELS},
    /* csr on the GPU: 0 16-bit column offsets where a block of regular rows spans fewer than 2^16, 1 32-bit */
    {"csr-index", BUILD_I64, offsetof(rvs_fmt_options, csr_index), "csr", {TRIAL_END}, 0, 1, 0},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

/* Words for the negative values of hyb-k. */
static const struct {
    const char *word;
    int64_t value;
} words[] = {{"auto", RVS_HYB_K_AUTO}, {"third", RVS_HYB_K_THIRD}};

/* Address of key i's value in k. */
static void *slot(rvs_knobs *k, int i)
{
    return keys[i].kind == GPU_INT ? (char *)&k->tune + keys[i].offset : (char *)&k->fo + keys[i].offset;
}

static int64_t get(const rvs_knobs *k, int i)
{
    const void *p = slot((rvs_knobs *)k, i);
    return keys[i].kind == GPU_INT ? *(const int *)p : *(const int64_t *)p;
}

static void set(rvs_knobs *k, int i, int64_t v)
{
    void *p = slot(k, i);
    if (keys[i].kind == GPU_INT)
        *(int *)p = (int)v;
    else
        *(int64_t *)p = v;
}

/* Index of the key named by the len bytes at name, or -1. */
static int find_key(const char *name, size_t len)
{
    for (int i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == len && strncmp(keys[i].name, name, len) == 0)
            return i;
    return -1;
}

void rvs_knobs_default(rvs_knobs *k)
{
    memset(k, 0, sizeof *k);
    rvs_fmt_options_default(&k->fo);
}

const char *rvs_tune_keys(void)
{
    static char list[256];
    if (!list[0])
        for (int i = 0; i < NKEYS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i].name);
    return list;
}

rvs_status rvs_knobs_parse(rvs_knobs *k, const char *s, rvs_error *err)
{
    const char *p = s;
    while (*p) {
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
            return rvs_fail(err, RVS_ERR_ARG, "'%.*s' is not KEY=INT", (int)(end - p), p);
        int i = find_key(p, (size_t)(eq - p));
        if (i < 0)
            return rvs_fail(err, RVS_ERR_ARG, "unknown tunable '%.*s' (%s)", (int)(eq - p), p, rvs_tune_keys());
        char *stop;
        long long v = strtoll(eq + 1, &stop, 10);
        for (size_t w = 0; keys[i].min < 0 && w < sizeof words / sizeof words[0]; w++)
            if ((size_t)(end - eq - 1) == strlen(words[w].word) && strncmp(eq + 1, words[w].word, strlen(words[w].word)) == 0)
                v = words[w].value, stop = (char *)end;
        const int64_t max = keys[i].max ? keys[i].max : 1 << 20;
        if (stop == eq + 1 || stop != end || v < keys[i].min || v > max)
            return rvs_fail(err, RVS_ERR_ARG, "'%.*s' is not KEY=INT with INT in %lld..%lld", (int)(end - p), p,
                            (long long)keys[i].min, (long long)max);
        if (keys[i].pow2 == 1 && v > 1) /* a switch */
            return rvs_fail(err, RVS_ERR_ARG, "%s %lld is not 0 or 1", keys[i].name, v);
        if (keys[i].pow2 && v && ((v & (v - 1)) || v > keys[i].pow2)) /* no kernel takes it */
            return rvs_fail(err, RVS_ERR_ARG, "%s %lld is not a power of two up to %d", keys[i].name, v, keys[i].pow2);
        set(k, i, v);
        p = *end ? end + 1 : end;
    }
    return RVS_OK;
}

/* The keys of k that differ from the defaults, "KEY=VALUE,...", "default" when none. */
void rvs_knobs_format(const rvs_knobs *k, char *buf, size_t n)
{
    rvs_knobs d;
    size_t used = 0;
    rvs_knobs_default(&d);
    if (n == 0)
        return;
    buf[0] = 0;
    for (int i = 0; i < NKEYS; i++) {
        int64_t v = get(k, i);
        if (v == get(&d, i) || used >= n)
            continue;
        const char *word = NULL;
        for (size_t w = 0; keys[i].min < 0 && w < sizeof words / sizeof words[0]; w++)
            if (words[w].value == v)
                word = words[w].word;
        int len = word ? snprintf(buf + used, n - used, "%s%s=%s", used ? "," : "", keys[i].name, word)
                       : snprintf(buf + used, n - used, "%s%s=%lld", used ? "," : "", keys[i].name, (long long)v);
        used += len > 0 ? (size_t)len : 0;
    }
    if (used == 0)
        snprintf(buf, n, "default");
}

void rvs_tune_format(const rvs_gpu_tune *t, char *buf, size_t n)
{
    rvs_knobs k;
    rvs_knobs_default(&k);
    k.tune = *t;
    rvs_knobs_format(&k, buf, n);
}

/* 1 when the comma list has the format's name. */
static int lists(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && strncasecmp(p, name, len) == 0)
            return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* The defaults, then one variant per trial value of every key that format id reads. */
int rvs_tune_variants(rvs_format_id id, rvs_knobs *out, int max)
{
    const rvs_format_ops *ops = rvs_format_lookup(id);
    int n = 0;
    if (!ops || max < 1)
        return 0;
    rvs_knobs_default(&out[n++]);
    for (int i = 0; i < NKEYS; i++) {
        if (!lists(keys[i].formats, ops->name))
            continue;
        for (int j = 0; j < NTRIAL && keys[i].trial[j] != TRIAL_END && n < max; j++) {
            rvs_knobs_default(&out[n]);
            /* CSR kernels other than the row-block one read rows in order */
            if (id == RVS_FMT_CSR && keys[i].offset == offsetof(rvs_gpu_tune, threads_per_row) &&
                keys[i].kind == GPU_INT && keys[i].trial[j] != 64)
                out[n].fo.csr_order = 1;
            set(&out[n++], i, keys[i].trial[j]);
        }
    }
    return n;
}

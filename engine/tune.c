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
    /* csr: the kernel by name (rvs_csr_kernel), 0 the rule's; tried: row-block, nnz-split, cusparse */
    {"csr-kernel",
     GPU_INT,
     offsetof(rvs_gpu_tune, csr_kernel),
     "csr",
     {RVS_CSR_ROW_BLOCK, RVS_CSR_NNZ_SPLIT, RVS_CSR_CUSPARSE, TRIAL_END},
     0,
     0,
     RVS_CSR_KERNELS - 1},
    /* csr: lanes a row of the vector kernel (alone they pick it, 1 the scalar one); ellr: lanes a row */
    {"threads-per-row", GPU_INT, offsetof(rvs_gpu_tune, threads_per_row), "csr,ellr", {4, TRIAL_END}, 0, 32, 0},
    {"hcc-wg", GPU_INT, offsetof(rvs_gpu_tune, hcc_wg), "hcc", {TRIAL_END}, 0, 0, 0},
    {"hcc-wi", GPU_INT, offsetof(rvs_gpu_tune, hcc_wi), "hcc", {256, TRIAL_END}, 0, 0, 0},
    {"hyb-k",
     BUILD_I64,
     offsetof(rvs_fmt_options, hyb_k),
     "hyb,hyb-dia",
     {RVS_HYB_K_THIRD, TRIAL_END},
     RVS_HYB_K_THIRD,
     0,
     0},
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

/* Words for values: hyb-k's negative ones, and the CSR kernels by name. */
static const struct {
    const char *key, *word;
    int64_t value;
} words[] = {{"hyb-k", "auto", RVS_HYB_K_AUTO},
             {"hyb-k", "third", RVS_HYB_K_THIRD},
             {"csr-kernel", "auto", RVS_CSR_AUTO},
             {"csr-kernel", "scalar", RVS_CSR_SCALAR},
             {"csr-kernel", "vector", RVS_CSR_VECTOR},
             {"csr-kernel", "row-block", RVS_CSR_ROW_BLOCK},
             {"csr-kernel", "nnz-split", RVS_CSR_NNZ_SPLIT},
             {"csr-kernel", "warp-rows", RVS_CSR_WARP_ROWS},
             {"csr-kernel", "cusparse", RVS_CSR_CUSPARSE}};
#define NWORDS ((int)(sizeof words / sizeof words[0]))

/* The CSR kernels that threads-per-row named before csr-kernel did (recorded decisions and trial
 * caches of rvskit 0.1 hold them). */
static const struct {
    int64_t lanes;
    rvs_csr_kernel kernel;
} legacy[] = {{64, RVS_CSR_ROW_BLOCK}, {128, RVS_CSR_NNZ_SPLIT}, {256, RVS_CSR_WARP_ROWS}};

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
        for (int w = 0; w < NWORDS; w++)
            if (strcmp(words[w].key, keys[i].name) == 0 && (size_t)(end - eq - 1) == strlen(words[w].word) &&
                strncmp(eq + 1, words[w].word, strlen(words[w].word)) == 0)
                v = words[w].value, stop = (char *)end;
        if (keys[i].offset == offsetof(rvs_gpu_tune, threads_per_row) && keys[i].kind == GPU_INT && stop == end)
            for (size_t l = 0; l < sizeof legacy / sizeof legacy[0]; l++)
                if (v == legacy[l].lanes) { /* threads-per-row=64 of 0.1: csr-kernel=row-block */
                    k->tune.csr_kernel = legacy[l].kernel;
                    v = 0;
                }
        const int64_t max = keys[i].max ? keys[i].max : 1 << 20;
        if (stop == eq + 1 || stop != end || v < keys[i].min || v > max)
            return rvs_fail(err, RVS_ERR_ARG, "'%.*s' is not KEY=VALUE with VALUE in %lld..%lld%s", (int)(end - p),
                            p, (long long)keys[i].min, (long long)max,
                            strcmp(keys[i].name, "csr-kernel") == 0
                                ? " or scalar, vector, row-block, nnz-split, warp-rows, cusparse"
                                : "");
        if (keys[i].pow2 == 1 && v > 1) /* a switch */
            return rvs_fail(err, RVS_ERR_ARG, "%s %lld is not 0 or 1", keys[i].name, v);
        if (keys[i].pow2 && v && ((v & (v - 1)) || v > keys[i].pow2)) /* no kernel takes it */
            return rvs_fail(err, RVS_ERR_ARG, "%s %lld is not a power of two up to %d", keys[i].name, v,
                            keys[i].pow2);
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
        for (int w = 0; w < NWORDS; w++)
            if (strcmp(words[w].key, keys[i].name) == 0 && words[w].value == v)
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
            /* the vector and nnz-split kernels on rows in order, as they are (the row kernels' own
             * layout is what the defaults try) */
            if (id == RVS_FMT_CSR && keys[i].kind == GPU_INT &&
                ((keys[i].offset == offsetof(rvs_gpu_tune, threads_per_row)) ||
                 (keys[i].offset == offsetof(rvs_gpu_tune, csr_kernel) && keys[i].trial[j] == RVS_CSR_NNZ_SPLIT)))
                out[n].fo.csr_order = 1;
            set(&out[n++], i, keys[i].trial[j]);
        }
    }
    return n;
}

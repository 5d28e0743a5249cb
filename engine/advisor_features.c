/* advisor_features.c - what the advisor's model knows of a part before anything is built: one
 * pass over its row lengths and a sample of its entries (groups of 32 consecutive rows evenly
 * spread), nothing that grows with the part but the row-length counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine_internal.h"
#include "rvs_omp.h"

#define GROUPS 256    /* sampled groups of 32 rows */
#define GROUP_CAP 512 /* entries read of a sampled group at most */
#define CTAB_BITS 10  /* a group's column table: 2 x GROUP_CAP slots */

static const char *const names[RVS_NFEAT] = {
    "log_nnz",        "log_rows",        "log_mean",     "cv",       "log_max_mean", "empty",    "log_ell_fill",
    "log_slice_fill", "log_sorted_fill", "log_dia_fill", "diag_top", "codable",      "narrow16", "x_reuse",
};

const char *rvs_feature_name(int i)
{
    return i >= 0 && i < RVS_NFEAT ? names[i] : "?";
}

/* Counts of int64 keys in an open-addressed table of a few thousand slots that grows fourfold
 * at half full: a sample's diagonals are a few dozen on stencils, a few thousand on finite
 * elements and up to the whole sample (131k) on scattered matrices. Sized to the sample from the
 * start (2 x 131k slots), it cost 14 ms of the features' 15 on a 4M-entry finite-element matrix
 * (4 with the small table, which stays in cache). */
typedef struct {
    uint64_t *key;
    int64_t *count; /* 0: a free slot */
    int64_t size, used;
} key_counts;

static int kc_make(key_counts *t, int64_t size)
{
    t->key = malloc((size_t)size * sizeof *t->key);
    t->count = calloc((size_t)size, sizeof *t->count);
    t->size = size;
    t->used = 0;
    if (t->key && t->count)
        return 1;
    free(t->key), free(t->count);
    t->key = NULL, t->count = NULL;
    return 0;
}

static void kc_put(key_counts *t, uint64_t key, int64_t n)
{
    const int shift = 64 - __builtin_ctzll((unsigned long long)t->size);
    int64_t h = (int64_t)((key * 0x9E3779B97F4A7C15ULL) >> shift);
    while (t->count[h] && t->key[h] != key)
        h = (h + 1) & (t->size - 1);
    t->used += t->count[h] == 0;
    t->key[h] = key;
    t->count[h] += n;
}

/* Count key once more; 0 when the table could not grow. */
static int kc_add(key_counts *t, uint64_t key)
{
    if (2 * (t->used + 1) > t->size) {
        key_counts g;
        if (!kc_make(&g, 4 * t->size))
            return 0;
        for (int64_t h = 0; h < t->size; h++)
            if (t->count[h])
                kc_put(&g, t->key[h], t->count[h]);
        free(t->key), free(t->count);
        *t = g;
    }
    kc_put(t, key, 1);
    return 1;
}

static double log2p(double v)
{
    return log2(v > 1e-300 ? v : 1e-300);
}

rvs_status rvs_features_rows(rvs_features *F, const rvs_row_list *R, rvs_error *err)
{
    const rvs_csr *A = R->A;
    const int64_t rows = R->nrows, nnz = R->nnz;
    const double mean = rows > 0 ? (double)nnz / (double)rows : 0;
    memset(F, 0, sizeof *F);
    F->rows = rows;
    F->cols = A->cols;
    F->nnz = nnz;
    /* row lengths: moments, the longest, empty rows, ELLR slices of 32 in order */
    double sq = 0, slices = 0;
    int64_t mx = 0, empty = 0;
    /* integer sums in doubles below 2^53: exact in any order */
#pragma omp parallel for reduction(+ : sq, slices, empty) reduction(max : mx) schedule(static) \
    if (rows > RVS_OMP_MIN_WORK)
    for (int64_t g = 0; g < rows; g += 32) {
        int64_t gm = 0;
        for (int64_t i = g; i < rows && i < g + 32; i++) {
            const int64_t l = rvs_row_list_len(R, i);
            sq += (double)l * (double)l;
            gm = l > gm ? l : gm;
            empty += l == 0;
        }
        slices += 32.0 * (double)gm;
        mx = gm > mx ? gm : mx;
    }
    F->max_len = mx;
    /* slices of 32 after sorting by length (PELLR, BiELL): a count per length */
    double sorted = 0;
    if (rows > 0) {
        int64_t *count = calloc((size_t)mx + 1, sizeof *count);
        if (!count)
            return rvs_fail(err, RVS_ERR_NOMEM, "advisor: out of memory for the row-length counts");
        for (int64_t i = 0; i < rows; i++)
            count[rvs_row_list_len(R, i)]++;
        int64_t seen = 0; /* rows counted from the longest down: a slice starts at each multiple of 32 */
        for (int64_t l = mx; l >= 0; l--) {
            const int64_t c = count[l], starts = (seen + c + 31) / 32 - (seen + 31) / 32;
            sorted += 32.0 * (double)l * (double)starts;
            seen += c;
        }
        free(count);
    }
    const double var = rows > 0 ? sq / (double)rows - mean * mean : 0;
    const double fnnz = nnz > 0 ? (double)nnz : 1;
    /* the sample: evenly spread groups of 32 rows, their diagonals (col - i), values, bands;
     * diagonals counted as they come, values until past a table's worth (the model asks
     * "codable?") */
    const int64_t ngroups = (rows + 31) / 32, take = ngroups < GROUPS ? ngroups : GROUPS;
    int64_t n = 0, narrow = 0, seen_groups = 0, reuse_num = 0, reuse_den = 0, nv = 0;
    int64_t *cols = malloc(GROUP_CAP * sizeof *cols);
    key_counts dc;
    if (!cols || !kc_make(&dc, 4096)) {
        free(cols);
        return rvs_fail(err, RVS_ERR_NOMEM, "advisor: out of memory for the sample");
    }
    _Static_assert(4 * RVS_DICT_MAX == 1 << 10, "the value table's hash takes 10 bits");
    uint64_t vtab[4 * RVS_DICT_MAX];
    unsigned char used[4 * RVS_DICT_MAX] = {0};
    const size_t vs = rvs_vtype_size(A->vtype);
    int64_t ctab[1 << CTAB_BITS], ctab_mark[1 << CTAB_BITS] = {0};
    int ok = 1;
    for (int64_t s = 0; s < take && ok; s++) {
        const int64_t g = s * ngroups / take, r0 = g * 32, r1 = r0 + 32 < rows ? r0 + 32 : rows;
        int64_t gn = 0, lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t i = r0; i < r1 && gn < GROUP_CAP && ok; i++) {
            const int64_t r = rvs_row_list_row(R, i), a = A->rowptr[r], e = A->rowptr[r + 1];
            for (int64_t p = a; p < e && gn < GROUP_CAP && ok; p++) {
                const int64_t c = rvs_csr_col(A, p);
                ok = kc_add(&dc, (uint64_t)(c - i));
                uint64_t b = 0;
                memcpy(&b, (const char *)A->values + (size_t)p * vs, vs < 8 ? vs : 8);
                if (nv <= RVS_DICT_MAX) {
                    int64_t h = (int64_t)((b * 0x9E3779B97F4A7C15ULL) >> 54); /* 10 bits: 4 x 256 slots */
                    while (used[h] && vtab[h] != b)
                        h = (h + 1) & (4 * RVS_DICT_MAX - 1);
                    if (!used[h]) {
                        used[h] = 1;
                        vtab[h] = b;
                        nv++;
                    }
                }
                n++;
                cols[gn++] = c;
                lo = c - (i & ~(int64_t)31) < lo ? c - (i & ~(int64_t)31) : lo;
                hi = c - (i & ~(int64_t)31) > hi ? c - (i & ~(int64_t)31) : hi;
            }
        }
        if (gn == 0)
            continue;
        seen_groups++;
        narrow += hi - lo < 65536;
        /* distinct columns of the group: a table of 2 x GROUP_CAP slots stamped with the group */
        int64_t d = 0;
        for (int64_t q = 0; q < gn; q++) {
            int64_t h = (int64_t)(((uint64_t)cols[q] * 0x9E3779B97F4A7C15ULL) >> (64 - CTAB_BITS));
            while (ctab_mark[h] == s + 1 && ctab[h] != cols[q])
                h = (h + 1) & ((1 << CTAB_BITS) - 1);
            if (ctab_mark[h] != s + 1) {
                ctab_mark[h] = s + 1;
                ctab[h] = cols[q];
                d++;
            }
        }
        reuse_num += gn;
        reuse_den += d;
    }
    free(cols);
    /* diagonals: how many the sample holds, and the share of its entries on the 32 fullest */
    int64_t nd = dc.used, top = 0, most = 0;
    for (int64_t h = 0; ok && h < dc.size; h++)
        most = dc.count[h] > most ? dc.count[h] : most;
    int64_t *hist = ok && n > 0 ? calloc((size_t)most + 1, sizeof *hist) : NULL; /* the 32 largest counts */
    if (hist) {
        for (int64_t h = 0; h < dc.size; h++)
            if (dc.count[h])
                hist[dc.count[h]]++;
        for (int64_t c = most, left = 32; c > 0 && left > 0; c--) {
            const int64_t t = hist[c] < left ? hist[c] : left;
            top += t * c;
            left -= t;
        }
        free(hist);
    }
    free(dc.key), free(dc.count);
    if (!ok || (n > 0 && !hist))
        return rvs_fail(err, RVS_ERR_NOMEM, "advisor: out of memory for the sample's counts");
    double *f = F->f;
    f[0] = log2p(fnnz);
    f[1] = log2p(rows > 0 ? (double)rows : 1);
    f[2] = log2p(mean > 0 ? mean : 1);
    f[3] = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
    f[4] = log2p(mean > 0 ? (double)mx / mean : 1);
    f[5] = rows > 0 ? (double)empty / (double)rows : 0;
    f[6] = log2p((double)rows * (double)mx / fnnz);
    f[7] = log2p(slices / fnnz);
    f[8] = log2p(sorted / fnnz);
    /* DIA stores every diagonal the sample holds over all rows: nd is a lower bound there */
    f[9] = log2p((double)nd * (double)rows / fnnz);
    f[10] = n > 0 ? (double)top / (double)n : 0;
    f[11] = n > 0 && nv <= RVS_DICT_MAX;
    f[12] = seen_groups > 0 ? (double)narrow / (double)seen_groups : 0;
    f[13] = reuse_den > 0 ? (double)reuse_num / (double)reuse_den : 1;
    for (int i = 0; i < RVS_NFEAT; i++)
        if (!isfinite(f[i]))
            f[i] = 0;
    return RVS_OK;
}

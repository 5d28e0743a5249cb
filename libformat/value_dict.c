/* value_dict.c - a block's values as one-byte codes into a table of at most 256 distinct values
 * (index and value compression, Kourtis, Goumas and Koziris, "Optimizing sparse matrix-vector
 * multiplication using index and value compression", CF 2008: their CSR-VI). Graphs read as
 * pattern matrices hold one value, R-MAT's summed duplicates a handful: a kernel that reads a
 * byte per entry instead of 4 or 8 moves a third to a half fewer bytes. Values are compared by
 * their bits, so that every value, -0.0 and each NaN included, comes back exactly. */
#include <stdlib.h>
#include <string.h>
#include "rvs_format.h"
#include "rvs_omp.h"

#define SLOTS 1024 /* open addressing, at most RVS_DICT_MAX of them used */

/* the look before the count (sample_over): runs of values spread over the block */
enum { SAMPLE_RUNS = 64, SAMPLE_RUN = 128 };

typedef struct {
    uint64_t key[SLOTS];
    uint8_t used[SLOTS];
    int n;
} table;

static inline uint64_t bits_at(const void *v, size_t vs, int64_t i)
{
    if (vs == 8) {
        uint64_t b;
        memcpy(&b, (const char *)v + (size_t)i * 8, 8);
        return b;
    }
    uint32_t b;
    memcpy(&b, (const char *)v + (size_t)i * 4, 4);
    return b;
}

static inline unsigned slot_of(uint64_t b)
{
    return (unsigned)((b * 0x9E3779B97F4A7C15ull) >> 54);
}

/* Add b to t; 0 when t would then hold more than RVS_DICT_MAX values. */
static inline int add(table *t, uint64_t b)
{
    unsigned s = slot_of(b);
    while (t->used[s]) {
        if (t->key[s] == b)
            return 1;
        s = (s + 1) & (SLOTS - 1);
    }
    if (t->n == RVS_DICT_MAX)
        return 0;
    t->used[s] = 1;
    t->key[s] = b;
    t->n++;
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 when runs of values spread over [0, n) hold more than RVS_DICT_MAX distinct values (t is left
 * dirty). Most real-valued blocks show it in their first few hundred values, so this settles them
 * on the calling thread without starting the team (a parallel region cost 7 ms at times). */
static int sample_over(const void *values, size_t vs, int64_t n, table *t)
{
    for (int r = 0; r < SAMPLE_RUNS; r++) {
        const int64_t at = (int64_t)((double)n * r / SAMPLE_RUNS), end = at + SAMPLE_RUN < n ? at + SAMPLE_RUN : n;
        for (int64_t i = at; i < end; i++)
            if (!add(t, bits_at(values, vs, i)))
                return 1;
    }
    return 0;
}

int rvs_value_dict(const void *values, size_t vs, int64_t n, void *dict)
{
    table *all = calloc(1, sizeof *all);
    int over = 0;
    if (!all || (vs != 4 && vs != 8) || n <= 0) {
        free(all);
        return -1;
    }
    if (n > SAMPLE_RUNS * SAMPLE_RUN) {
        if (sample_over(values, vs, n, all)) {
            free(all);
            return -1;
        }
        memset(all, 0, sizeof *all);
    }
#pragma omp parallel num_threads(rvs_omp_short_threads()) if (n > (1 << 20))
    {
        table *t = calloc(1, sizeof *t);
        int mine_over = !t;
#pragma omp for schedule(static)
        for (int64_t c = 0; c < (n + 65535) / 65536; c++) {
            int stop;
#pragma omp atomic read
            stop = over;
            if (stop || mine_over)
                continue;
            const int64_t e = (c + 1) * 65536 < n ? (c + 1) * 65536 : n;
            for (int64_t i = c * 65536; i < e && !mine_over; i++)
                mine_over = !add(t, bits_at(values, vs, i));
            if (mine_over) {
#pragma omp atomic write
                over = 1;
            }
        }
#pragma omp critical
        for (int s = 0; s < SLOTS && !mine_over; s++)
            if (t->used[s] && !add(all, t->key[s]))
                mine_over = 1;
        if (mine_over) {
#pragma omp atomic write
            over = 1;
        }
        free(t);
    }
    int nd = -1;
    if (!over) {
        uint64_t k[RVS_DICT_MAX];
        nd = 0;
        for (int s = 0; s < SLOTS; s++)
            if (all->used[s])
                k[nd++] = all->key[s];
        qsort(k, (size_t)nd, sizeof *k, cmp_u64); /* ascending bits: the same table from every run */
        for (int i = 0; i < nd; i++) {
            if (vs == 8) {
                memcpy((char *)dict + (size_t)i * 8, &k[i], 8);
            } else {
                const uint32_t b = (uint32_t)k[i];
                memcpy((char *)dict + (size_t)i * 4, &b, 4);
            }
        }
    }
    free(all);
    return nd;
}

int rvs_value_encode(const void *values, size_t vs, int64_t n, const void *dict, int nd, uint8_t *codes)
{
    table *t = calloc(1, sizeof *t);
    uint8_t *code = malloc(SLOTS);
    int missing = 0;
    if (!t || !code || nd < 1 || nd > RVS_DICT_MAX) {
        free(t);
        free(code);
        return -1;
    }
    for (int i = 0; i < nd; i++) {
        const uint64_t b = bits_at(dict, vs, i);
        unsigned s = slot_of(b);
        while (t->used[s])
            s = (s + 1) & (SLOTS - 1);
        t->used[s] = 1;
        t->key[s] = b;
        code[s] = (uint8_t)i;
    }
#pragma omp parallel for schedule(static) reduction(| : missing) if (n > (1 << 20))
    for (int64_t i = 0; i < n; i++) {
        const uint64_t b = bits_at(values, vs, i);
        unsigned s = slot_of(b);
        while (t->used[s] && t->key[s] != b)
            s = (s + 1) & (SLOTS - 1);
        missing |= !t->used[s];
        codes[i] = t->used[s] ? code[s] : 0;
    }
    free(t);
    free(code);
    return missing ? -1 : 0;
}

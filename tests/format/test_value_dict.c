/* test_value_dict.c - value dictionaries (rvs_value_dict, rvs_value_encode): every value comes
 * back bit for bit through its code (-0.0 apart from 0.0, NaNs with their payloads), in f64 and
 * f32; 1, 2, 255 and 256 distinct values take a table, 257 do not, wherever the 257th first
 * appears (first, last, in the middle of a long array that the threads split); the table is
 * ascending by bits and the same on every run; a value missing from the table is reported; an
 * array of distinct values is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_test.h"

/* values[i] for n entries drawn from nd distinct values of size vs (pool), the value at
 * position odd_at (if >= 0) replaced by one outside the pool. */
static void *fill(int64_t n, size_t vs, int nd, int64_t odd_at, unsigned seed)
{
    char *v = malloc((size_t)n * vs + 8);
    double pool[RVS_DICT_MAX + 2];
    for (int i = 0; i < nd; i++)
        pool[i] = i == 0 ? -0.0 : i == 1 ? 0.0 : i == 2 ? NAN : (double)(i * 7 % 263) - 100.25;
    srand(seed);
    for (int64_t i = 0; i < n; i++) {
        const double d = i == odd_at ? 12345.5 : pool[i < nd ? i : rand() % nd]; /* each value once at least */
        if (vs == 8) {
            memcpy(v + i * 8, &d, 8);
        } else {
            const float f = (float)d;
            memcpy(v + i * 4, &f, 4);
        }
    }
    return v;
}

static void check_case(int64_t n, size_t vs, int nd, int64_t odd_at)
{
    const int expect = nd + (odd_at >= 0 && nd > 0) > RVS_DICT_MAX ? -1 : nd + (odd_at >= 0);
    char dict[RVS_DICT_MAX * 8], dict2[RVS_DICT_MAX * 8];
    void *v = fill(n, vs, nd, odd_at, 7);
    uint8_t *codes = malloc((size_t)n + 1);
    const int got = rvs_value_dict(v, vs, n, dict);
    CHECKF(got == expect, "n %lld, %zu-byte values, %d distinct, odd at %lld: %d values, want %d", (long long)n, vs,
           nd, (long long)odd_at, got, expect);
    if (got > 0 && got == expect) {
        CHECKF(rvs_value_dict(v, vs, n, dict2) == got && memcmp(dict, dict2, (size_t)got * vs) == 0,
               "%d distinct: another run, another table", nd);
        int ascending = 1;
        for (int i = 1; i < got; i++) {
            uint64_t a = 0, b = 0;
            memcpy(&a, dict + (i - 1) * vs, vs);
            memcpy(&b, dict + i * vs, vs);
            ascending &= a < b;
        }
        CHECKF(ascending, "%d distinct: table not ascending by bits", nd);
        memset(codes, 0xEE, (size_t)n);
        CHECK(rvs_value_encode(v, vs, n, dict, got, codes) == 0);
        int64_t bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (codes[i] >= got || memcmp(dict + codes[i] * vs, (char *)v + i * vs, vs) != 0)
                bad = i;
        CHECKF(bad < 0, "%d distinct, %zu bytes: value %lld does not come back through its code", nd, vs,
               (long long)bad);
        if (got > 1) /* a table without one of the values */
            CHECKF(rvs_value_encode(v, vs, n, dict + vs, got - 1, codes) == -1, "%d distinct: missing value unseen",
                   nd);
    }
    free(v);
    free(codes);
}

int main(void)
{
    const size_t sizes[2] = {8, 4};
    for (int s = 0; s < 2; s++) {
        const size_t vs = sizes[s];
        check_case(1, vs, 1, -1);
        check_case(1000, vs, 1, -1);
        check_case(1000, vs, 2, -1);
        check_case(5000, vs, 3, -1); /* -0.0, 0.0 and a NaN: three codes */
        check_case(5000, vs, 255, -1);
        check_case(5000, vs, 256, -1);
        check_case(5000, vs, 255, 4999);       /* the 256th value last */
        check_case(5000, vs, 256, 0);          /* 257 values, the odd one first */
        check_case(5000, vs, 256, 4999);       /* ... and last */
        check_case(3000000, vs, 256, 2999999); /* threads see parts of it: the merge counts 257 */
        check_case(3000000, vs, 200, 1500000);
        check_case(3000000, vs, 17, -1);
    }
    /* every value distinct: the look at a sample refuses it, in both sizes */
    const int64_t n = 1 << 20;
    double *many = malloc((size_t)n * sizeof *many);
    for (int64_t i = 0; i < n; i++)
        many[i] = (double)i * 0.5;
    char big[RVS_DICT_MAX * 8];
    CHECK(rvs_value_dict(many, 8, n, big) == -1);
    CHECK(rvs_value_dict(many, 4, 2 * n, big) == -1);
    free(many);
    char d[8];
    CHECK(rvs_value_dict(d, 8, 0, d) == -1); /* no values, no table */
    CHECK(rvs_value_dict(d, 2, 1, d) == -1); /* no such value size */
    return rvs_test_done();
}

/* test_placement.c - parts bound to processors (libformat/placement.c): set and get through a
 * stream written and read back, the 1.2 prelude only with the chunk, a stale chunk ignored, a
 * malformed one refused, numbers out of range refused */
#include <stdlib.h>
#include <string.h>
#include "rvs_test.h"
#include "rvs.h"

/* S with a random matrix partitioned by nnz into k parts of powers cp. */
static void make(rvs_stream *S, int k, const double *cp)
{
    rvs_error e;
    memset(S, 0, sizeof *S);
    CHECK_OK(rvs_test_random_csr(&S->A, 300, 300, 0.02, 1, 7), &e);
    CHECK_OK(rvs_partition_compute(&S->partition, &S->A, RVS_ALG_NNZ, k, cp, NULL, 0, &e), &e);
    S->has_partition = 1;
}

/* Write S to memory and read it back into R; the prelude's minor version into *minor. */
static void round_trip(const rvs_stream *S, rvs_stream *R, int *minor)
{
    rvs_error e;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(rvs_stream_write(f, S, &e), &e);
    fclose(f);
    *minor = (unsigned char)buf[10] | (unsigned char)buf[11] << 8;
    f = fmemopen(buf, len, "rb");
    CHECK_OK(rvs_stream_read(R, f, NULL, 0, &e), &e);
    fclose(f);
    free(buf);
}

static void test_chunk(void)
{
    const double cp[3] = {1, 1, 2};
    const int32_t bound[3] = {1, -1, 0}, none[3] = {-1, -1, -1};
    int32_t got[3];
    rvs_stream S, R;
    rvs_error e;
    int minor;
    make(&S, 3, cp);
    round_trip(&S, &R, &minor);
    CHECK(minor == 1 && !rvs_placement_present(&R));
    CHECK_OK(rvs_placement_get(&R, got, &e), &e);
    CHECK(got[0] == -1 && got[1] == -1 && got[2] == -1);
    rvs_stream_free(&R);
    CHECK_OK(rvs_placement_set(&S, bound, &e), &e);
    round_trip(&S, &R, &minor);
    CHECK(minor == 2 && rvs_placement_present(&R));
    CHECK_OK(rvs_placement_get(&R, got, &e), &e);
    CHECK(got[0] == 1 && got[1] == -1 && got[2] == 0);
    /* stale: the same part count with other rows */
    int64_t t = R.partition.parts[0].nrows;
    R.partition.parts[0].nrows = t - 1;
    CHECK_OK(rvs_placement_get(&R, got, &e), &e);
    CHECK(got[0] == -1 && got[2] == -1);
    R.partition.parts[0].nrows = t;
    /* malformed: a record cut off; a number out of range */
    for (int i = 0; i < R.nextra; i++)
        if (memcmp(R.extra[i].type, "plac", 4) == 0) {
            R.extra[i].len -= 4;
            CHECK(rvs_placement_get(&R, got, &e) == RVS_ERR_FORMAT && strstr(e.msg, "plac"));
            R.extra[i].len += 4;
            memset(R.extra[i].data + 8 + 16 + 8, 0xfe, 4); /* part 2's number: -2 */
            CHECK(rvs_placement_get(&R, got, &e) == RVS_ERR_FORMAT && strstr(e.msg, "part 2"));
        }
    rvs_stream_free(&R);
    /* all free: no chunk, back to 1.1; out of range refused */
    CHECK_OK(rvs_placement_set(&S, none, &e), &e);
    CHECK(!rvs_placement_present(&S));
    const int32_t far[3] = {0, RVS_PLACE_MAX, 1};
    CHECK(rvs_placement_set(&S, far, &e) == RVS_ERR_ARG);
    rvs_stream_free(&S);
}

int main(void)
{
    test_chunk();
    return rvs_test_done();
}

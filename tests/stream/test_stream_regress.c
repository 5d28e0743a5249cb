/* test_stream_regress.c - regression tests for stream validator defects, one case per finding
 * (argv[1]); each also has its input in the fuzz corpus (tests/fuzz/corpus), replayed there */
#include <stdint.h>
#include <string.h>
#include "rvs_test.h"

/* partition_row_index_overflow: the message for an out-of-range row added 1 to the stored
 * index: signed overflow at INT64_MAX (UBSan, found by fuzz_stream). The index is shown as
 * stored now, with its range (issue 38's part_numbering: -1 had shown as "row 0"). */
static void partition_row_index_overflow(void)
{
    static const struct {
        int64_t row;
        const char *want;
    } cases[] = {
        {INT64_MAX, "partition: part 1: row index 9223372036854775807 out of range 0..2"},
        {INT64_MIN, "partition: part 1: row index -9223372036854775808 out of range 0..2"},
        {-1, "partition: part 1: row index -1 out of range 0..2"},
        {-5, "partition: part 1: row index -5 out of range 0..2"},
        {3, "partition: part 1: row index 3 out of range 0..2"},
    };
    rvs_csr A;
    rvs_error err;
    int64_t lengths[3] = {1, 2, 1};
    CHECK_OK(rvs_test_csr_from_lengths(&A, lengths, 3, 3), &err);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t rows[3] = {0, cases[i].row, 2};
        rvs_part part = {.device = RVS_DEV_CPU, .cp = 1, .entries = RVS_ENTRIES_ALL, .nrows = 3, .rows = rows};
        rvs_partition P = {.alg = RVS_ALG_ROWS, .k = 1, .parts = &part};
        rvs_status st = rvs_partition_validate(&P, &A, &err);
        CHECKF(st == RVS_ERR_RANGE && strcmp(err.msg, cases[i].want) == 0, "row %lld: %d '%s'",
               (long long)cases[i].row, (int)st, err.msg);
    }
    rvs_csr_free(&A);
}

/* jad_jdptr_difference_overflow: the JAD validator subtracted neighbouring jdptr values before
 * checking them: hostile values (INT64_MIN after a valid first diagonal) overflowed (UBSan),
 * and the message showed the wrapped count. */
static void jad_jdptr_difference_overflow(void)
{
    static const int64_t lengths[4] = {1, 2, 3, 2}; /* jdptr 0 4 7 8 */
    static const struct {
        int at;
        int64_t value;
        const char *want;
    } cases[] = {
        {2, INT64_MIN, "jad: jdptr[2] = -9223372036854775808 is outside 4..8"},
        {2, INT64_MAX, "jad: jdptr[2] = 9223372036854775807 is outside 4..8"},
        {1, INT64_MIN, "jad: jdptr[1] = -9223372036854775808 is outside 0..8"},
        {2, 3, "jad: jdptr[2] = 3 is outside 4..8"},
        {2, 4, "jad: diagonal 1 holds 0 entries"},
        {1, 2, "jad: diagonal 1 holds 5 entries"}, /* more than diagonal 0 */
    };
    rvs_csr A;
    rvs_fmt F;
    rvs_error err;
    CHECK_OK(rvs_test_csr_from_lengths(&A, lengths, 4, 4), &err);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_JAD, &A, NULL, &err), &err);
    int64_t *jdptr = (int64_t *)rvs_fmt_array(&F, "jdptr")->data;
    CHECK(F.param[0] == 3 && jdptr[0] == 0 && jdptr[1] == 4 && jdptr[2] == 7 && jdptr[3] == 8);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t keep = jdptr[cases[i].at];
        jdptr[cases[i].at] = cases[i].value;
        rvs_status st = rvs_format_lookup(RVS_FMT_JAD)->validate(&F, &err);
        CHECKF(st == RVS_ERR_FORMAT && strcmp(err.msg, cases[i].want) == 0, "jdptr[%d] = %lld: %d '%s'",
               cases[i].at, (long long)cases[i].value, (int)st, err.msg);
        jdptr[cases[i].at] = keep;
    }
    CHECK_OK(rvs_format_lookup(RVS_FMT_JAD)->validate(&F, &err), &err);
    rvs_fmt_free(&F);
    rvs_csr_free(&A);
}

/* biell_gptr_difference_overflow: the BiELL validator took the difference of neighbouring gptr
 * values before checking them (the same defect as JAD's): INT64_MIN after a valid first group
 * overflowed (UBSan). Found by reading the validators after the JAD finding. */
static void biell_gptr_difference_overflow(void)
{
    int64_t lengths[64];
    rvs_csr A;
    rvs_fmt F;
    rvs_error err;
    for (int i = 0; i < 64; i++)
        lengths[i] = 1 + i % 5;
    CHECK_OK(rvs_test_csr_from_lengths(&A, lengths, 64, 64), &err);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_BIELL, &A, NULL, &err), &err);
    int64_t *gptr = (int64_t *)rvs_fmt_array(&F, "gptr")->data, ng = F.param[2];
    CHECK(ng >= 2 && gptr[1] > 0);
    for (int v = 0; v < 2 && ng >= 2; v++) {
        int64_t keep = gptr[2];
        gptr[2] = v ? INT64_MAX : INT64_MIN;
        rvs_status st = rvs_format_lookup(RVS_FMT_BIELL)->validate(&F, &err);
        CHECKF(st == RVS_ERR_FORMAT && strstr(err.msg, "biell: gptr[2] = ") && strstr(err.msg, "out of range"),
               "gptr[2] = %s: %d '%s'", v ? "INT64_MAX" : "INT64_MIN", (int)st, err.msg);
        gptr[2] = keep;
    }
    CHECK_OK(rvs_format_lookup(RVS_FMT_BIELL)->validate(&F, &err), &err);
    rvs_fmt_free(&F);
    rvs_csr_free(&A);
}

int main(int argc, char **argv)
{
    static const rvs_test_case cases[] = {
        {"partition_row_index_overflow", partition_row_index_overflow},
        {"jad_jdptr_difference_overflow", jad_jdptr_difference_overflow},
        {"biell_gptr_difference_overflow", biell_gptr_difference_overflow},
    };
    return rvs_test_run_cases(argc, argv, cases, sizeof cases / sizeof *cases);
}

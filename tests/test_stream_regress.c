/* test_stream_regress.c - regression tests for stream validator defects, one case per finding
 * (argv[1]); each also has its input in the fuzz corpus (tests/fuzz/corpus), replayed there */
#include <stdint.h>
#include <string.h>
#include "rvs_test.h"

/* partition_row_index_overflow: the message for an out-of-range row added 1 to the stored
 * index: signed overflow at INT64_MAX (UBSan, found by fuzz_stream). */
static void partition_row_index_overflow(void)
{
    static const struct {
        int64_t row;
        const char *want;
    } cases[] = {
        {INT64_MAX, "partition: part 1 lists row 9223372036854775808 of a 3-row matrix"},
        {INT64_MIN, "partition: part 1 lists row -9223372036854775807 of a 3-row matrix"},
        {-1, "partition: part 1 lists row 0 of a 3-row matrix"},
        {-5, "partition: part 1 lists row -4 of a 3-row matrix"},
        {3, "partition: part 1 lists row 4 of a 3-row matrix"},
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

int main(int argc, char **argv)
{
    static const rvs_test_case cases[] = {
        {"partition_row_index_overflow", partition_row_index_overflow},
    };
    return rvs_test_run_cases(argc, argv, cases, sizeof cases / sizeof *cases);
}

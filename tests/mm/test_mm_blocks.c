/* test_mm_blocks.c - Matrix Market text parsed block by block as it arrives (pipes, gzip): the
 * same matrix as a whole-file parse, and the same errors with the same line numbers, when the
 * text spans several 64 MB blocks. */
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "rvs_test.h"

#define LINES 2600000LL /* about 85 MB of text: two blocks and a part */

/* Write a coordinate file: rows out of order, duplicates, comments and CRLF now and then;
 * bad_line > 0 puts a non-number on that line, extra adds lines beyond the declared count. */
static void write_text(const char *path, const char *symmetry, long long bad_line, int extra, int gz)
{
    FILE *f = gz ? NULL : fopen(path, "wb");
    gzFile g = gz ? gzopen(path, "wb1") : NULL;
    char line[128];
    const long long n = 200000;
    long long lineno = 2, written = 0;
    uint64_t s = 12345;
#define OUT(...)                                            \
    do {                                                    \
        int len = snprintf(line, sizeof line, __VA_ARGS__); \
        if (gz)                                             \
            gzwrite(g, line, (unsigned)len);                \
        else                                                \
            fwrite(line, 1, (size_t)len, f);                \
    } while (0)
    OUT("%%%%MatrixMarket matrix coordinate real %s\n", symmetry);
    OUT("%lld %lld %lld\n", n, n, LINES);
    while (written < LINES + extra) {
        lineno++;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((s >> 60) == 0) {
            OUT("%% a comment on line %lld\n", lineno);
            continue;
        }
        long long r = (long long)((s >> 20) % n) + 1, c = (long long)((s >> 40) % n) + 1;
        if (strcmp(symmetry, "symmetric") == 0 && c > r) {
            long long t = r;
            r = c;
            c = t;
        }
        if (lineno == bad_line)
            OUT("%lld %lld x%.3f\n", r, c, 1.0);
        else
            OUT("%lld %lld %.15g%s\n", r, c, (double)(int64_t)(s >> 44) / 1024.0 - 0.5, (s & 7) == 3 ? "\r" : "");
        written++;
    }
    if (gz)
        gzclose(g);
    else
        fclose(f);
}

/* Read path through every input route; each must give the same status, message and matrix. */
static void read_all_ways(const char *plain, const char *gz, rvs_status want, const char *needle)
{
    rvs_csr ref = {0}, A;
    rvs_error err;
    const char *route[4] = {"mapped", "stream", "mapped gzip", "stream gzip"};
    for (int k = 0; k < 4; k++) {
        const char *path = k < 2 ? plain : gz;
        rvs_status st;
        if (k % 2 == 0) {
            st = rvs_mm_read_file(&A, NULL, path, NULL, NULL, &err);
        } else {
            FILE *f = fopen(path, "rb");
            st = rvs_mm_read_stream(&A, NULL, f, NULL, 0, NULL, NULL, &err);
            fclose(f);
        }
        CHECKF(st == want, "%s: status %d, want %d (%s)", route[k], (int)st, (int)want, st ? err.msg : "");
        if (st != RVS_OK) {
            CHECKF(needle && strstr(err.msg, needle), "%s: message '%s' lacks '%s'", route[k], err.msg,
                   needle ? needle : "");
            continue;
        }
        if (k == 0) {
            ref = A;
            CHECK_OK(rvs_csr_validate(&ref, &err), &err);
            continue;
        }
        CHECKF(A.nnz == ref.nnz && memcmp(A.rowptr, ref.rowptr, (size_t)(A.rows + 1) * 8) == 0 &&
                   memcmp(A.colind, ref.colind, (size_t)A.nnz * 4) == 0 &&
                   memcmp(A.values, ref.values, (size_t)A.nnz * 8) == 0,
               "%s: the matrix differs from the mapped parse", route[k]);
        rvs_csr_free(&A);
    }
    rvs_csr_free(&ref);
}

int main(void)
{
    char plain[4096], gz[4096];
    const char *tmp = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    snprintf(plain, sizeof plain, "%s/blocks.%d.mtx", tmp, (int)getpid());
    snprintf(gz, sizeof gz, "%s/blocks.%d.mtx.gz", tmp, (int)getpid());

    write_text(plain, "general", 0, 0, 0);
    write_text(gz, "general", 0, 0, 1);
    read_all_ways(plain, gz, RVS_OK, NULL);

    write_text(plain, "symmetric", 0, 0, 0);
    write_text(gz, "symmetric", 0, 0, 1);
    read_all_ways(plain, gz, RVS_OK, NULL);

    /* an error in the third block names its line, whichever way the text came */
    write_text(plain, "general", 2400000, 0, 0);
    write_text(gz, "general", 2400000, 0, 1);
    read_all_ways(plain, gz, RVS_ERR_FORMAT, "line 2400000: value 'x1.000' is not a number");

    /* more lines than declared, found blocks after the declared count ran out */
    write_text(plain, "general", 0, 3, 0);
    write_text(gz, "general", 0, 3, 1);
    read_all_ways(plain, gz, RVS_ERR_FORMAT, "declares 2600000 entries, file has 2600003");

    unlink(plain);
    unlink(gz);
    return rvs_test_done();
}

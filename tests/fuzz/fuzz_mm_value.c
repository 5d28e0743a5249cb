/* fuzz_mm_value.c - libFuzzer target: every value token the Matrix Market reader accepts equals
 * strtod's reading bit for bit, by its fast path and its careful path, and it accepts exactly the
 * tokens strtod reads whole */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char head[] = "%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 ";
    if (size == 0 || size > 4000)
        return 0;
    for (size_t i = 0; i < size; i++)
        if (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' || data[i] == '\f' ||
            data[i] == '\v' || data[i] == '\0')
            return 0; /* one token: blanks would make it several, NUL is covered by fuzz_mm */
    /* line 3 takes the fast path when it can, line 4 (leading blank) the careful one */
    size_t cap = sizeof head + 2 * size + 16, n = 0;
    char *text = malloc(cap), *tok = malloc(size + 1), *end;
    memcpy(text, head, sizeof head - 1);
    n = sizeof head - 1;
    memcpy(text + n, data, size);
    n += size;
    memcpy(text + n, "\n 2 1 ", 6);
    n += 6;
    memcpy(text + n, data, size);
    n += size;
    memcpy(tok, data, size);
    tok[size] = '\0';
    double want = strtod(tok, &end);
    int whole = end == tok + size;
    rvs_csr A;
    rvs_error err;
    rvs_status st = rvs_mm_parse(&A, NULL, text, n, &err);
    fuzz_check_error(st, &err);
    if (whole && st != RVS_OK)
        FUZZ_FINDING("'%s' is a number to strtod (%.17g), refused: %s", tok, want, err.msg);
    if (!whole && st == RVS_OK)
        FUZZ_FINDING("'%s' is not a number to strtod, read as %.17g", tok, rvs_csr_value(&A, 0));
    if (st == RVS_OK)
        for (int k = 0; k < 2; k++) {
            double got = rvs_csr_value(&A, k);
            if (memcmp(&got, &want, sizeof got) != 0)
                FUZZ_FINDING("'%s' read as %.17g (line %d), strtod gives %.17g", tok, got, 3 + k, want);
        }
    rvs_csr_free(&A);
    free(text);
    free(tok);
    return 0;
}

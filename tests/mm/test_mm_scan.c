/* test_mm_scan.c - the Matrix Market reader's number scanner (libformat/mm_scan.h) against
 * strtod and strtoull: the 5^q table recomputed, digit runs of every length before every kind
 * of byte, and millions of decimals bit for bit, halfway cases included. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mm_scan.h"
#include "rvs_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Every table entry from its definition, by a long division of 2^(z+127) by 5^n in two
 * 64-bit steps (5^n < 2^63 for n <= 27). */
static void test_table(void)
{
    int bad = 0;
    for (int q = -27; q <= 27; q++) {
        unsigned __int128 want;
        if (q >= 0) {
            uint64_t p = 1;
            for (int i = 0; i < q; i++)
                p *= 5;
            want = (unsigned __int128)(p << __builtin_clzll(p)) << 64;
        } else {
            uint64_t d = 1;
            for (int i = 0; i < -q; i++)
                d *= 5;
            int z = 64 - __builtin_clzll(d - 1);                    /* 2^(z-1) < d <= 2^z */
            unsigned __int128 a = (unsigned __int128)1 << (z + 63); /* 2^(z+127) = a * 2^64 */
            unsigned __int128 q1 = a / d, r1 = a % d;
            unsigned __int128 q0 = (r1 << 64) / d;
            want = (q1 << 64) + q0 + 1;
        }
        const uint64_t *t = mm_pow5_128[q + 27];
        if (t[0] != (uint64_t)(want >> 64) || t[1] != (uint64_t)want) {
            fprintf(stderr, "5^%d: table %016llx %016llx, computed %016llx %016llx\n", q, (unsigned long long)t[0],
                    (unsigned long long)t[1], (unsigned long long)(want >> 64), (unsigned long long)want);
            bad++;
        }
    }
    CHECKF(bad == 0, "%d table entries wrong", bad);
}

/* Runs of 0..24 digits followed by each byte that can end one (and at the buffer's end): the
 * value modulo 2^64 and where the run ends, as a byte loop gives them. */
static void test_digits(void)
{
    static const char after[] = " \n.eE+-x/:\0\t\r%";
    char buf[64];
    int bad = 0;
    for (int len = 0; len <= 24; len++)
        for (size_t a = 0; a <= sizeof after - 1; a++) { /* a == sizeof after - 1: the end */
            for (int i = 0; i < len; i++)
                buf[i] = (char)('0' + next() % 10);
            int at_end = a == sizeof after - 1;
            if (!at_end)
                buf[len] = after[a];
            memset(buf + len + !at_end, '7', sizeof buf - (size_t)len - 1); /* digits past the end */
            const char *e = buf + len + !at_end;
            uint64_t want = 0, got = 0;
            for (int i = 0; i < len; i++)
                want = want * 10 + (uint64_t)(buf[i] - '0');
            const char *p = mm_scan_digits(buf, e, &got);
            if (p != buf + len || got != want) {
                if (bad++ < 5)
                    fprintf(stderr, "%d digits then byte %d: ended at %d, value %llu, want %llu\n", len,
                            at_end ? -1 : after[a], (int)(p - buf), (unsigned long long)got,
                            (unsigned long long)want);
            }
        }
    CHECKF(bad == 0, "%d digit runs scanned wrong", bad);
}

/* Index tokens: in range, out of range, too long, badly ended. */
static void test_index(void)
{
    static const struct {
        const char *text;
        int64_t limit;
        int ok;
        int64_t value;
        int consumed;
    } cases[] = {
        {"1 ", 10, 1, 0, 2},
        {"10\n", 10, 1, 9, 2},
        {"11 ", 10, 0, 0, 0},
        {"0 ", 10, 0, 0, 0},
        {"12345678 ", 12345678, 1, 12345677, 9},
        {"123456789 \t 5", 200000000, 1, 123456788, 12},
        {"9223372036854775807 ", INT64_MAX, 0, 0, 0}, /* 19 digits: the careful path's */
        {"922337203685477580 ", INT64_MAX, 1, 922337203685477579LL, 19},
        {"00000000000000000012 ", 100, 0, 0, 0},
        {"12x", 100, 0, 0, 0},
        {"12.0 ", 100, 0, 0, 0},
        {"", 100, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = cases[i].text, *e = p + strlen(p);
        int64_t v = -1;
        int ok = mm_scan_index(&p, e, cases[i].limit, &v);
        CHECKF(ok == cases[i].ok, "'%s': %d", cases[i].text, ok);
        if (ok && cases[i].ok) {
            CHECKF(v == cases[i].value, "'%s': %lld", cases[i].text, (long long)v);
            CHECKF(p - cases[i].text == cases[i].consumed, "'%s': consumed %d", cases[i].text,
                   (int)(p - cases[i].text));
        }
    }
}

/* One decimal against strtod; 1 when it differs. A scan that gives up is no difference
 * (strtod reads that one) but is counted in *gave_up. */
static int check_decimal(const char *s, int64_t *gave_up)
{
    const char *p = s, *e = s + strlen(s);
    double got, want = strtod(s, NULL);
    if (!mm_scan_double(&p, e, &got)) {
        ++*gave_up;
        return 0;
    }
    if (p != e || memcmp(&got, &want, sizeof got) != 0) {
        fprintf(stderr, "'%s': scanned %.17g (to byte %d), strtod %.17g\n", s, got, (int)(p - s), want);
        return 1;
    }
    return 0;
}

/* Decimals bit for bit: random doubles printed at 15 to 19 digits, random 16 to 19 digit
 * mantissas at every exponent the fast paths take, and exact halfway points between doubles
 * that fit in 19 digits (odd multiples of half an ulp, scaled by 2^k for k in -4..9), each
 * also one below and one above. */
static void test_decimals(void)
{
    char s[64];
    int64_t bad = 0, gave_up = 0, n = 0, wide = 0;
    for (int i = 0; i < 600000; i++) { /* most exponents here are beyond the fast paths */
        uint64_t r = next();
        double d;
        memcpy(&d, &r, sizeof d);
        if (!isfinite(d))
            d = (double)r;
        snprintf(s, sizeof s, "%.*g", 15 + (int)(r % 5), d);
        bad += check_decimal(s, &wide);
    }
    for (int i = 0; i < 600000; i++, n++) {
        uint64_t r = next(), m = next() % 10000000000000000000ULL;
        int q = (int)(r % 57) - 28;
        snprintf(s, sizeof s, "%s%llue%d", r & 64 ? "-" : "", (unsigned long long)m, q);
        bad += check_decimal(s, &gave_up);
        /* the same value with a point inside the digits */
        char digits[24], t[64];
        int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)m);
        if (len > 1) {
            int at = 1 + (int)((r >> 32) % (uint64_t)(len - 1));
            snprintf(t, sizeof t, "%s%.*s.%se%d", r & 64 ? "-" : "", at, digits, digits + at, q + len - at);
            bad += check_decimal(t, &gave_up);
            n++;
        }
    }
    for (int i = 0; i < 200000; i++) {
        uint64_t half = (((uint64_t)1 << 53) | (next() >> 11)) | 1; /* odd, 2^53..2^54: halfway */
        int k = (int)(next() % 14) - 4;
        for (int delta = -1; delta <= 1; delta++) {
            uint64_t h = half + (uint64_t)delta;
            if (k >= 0) {
                snprintf(s, sizeof s, "%llu", (unsigned long long)(h << k));
            } else { /* h / 2^-k = h * 5^-k / 10^-k, still exact in decimal */
                uint64_t f = h;
                for (int j = 0; j < -k; j++)
                    f *= 5;
                snprintf(s, sizeof s, "%llue%d", (unsigned long long)f, k);
            }
            bad += check_decimal(s, &gave_up);
            n++;
        }
    }
    static const char *const spelled[] = {"0",
                                          "-0",
                                          "0.0",
                                          "000.000e5",
                                          ".5",
                                          "5.",
                                          "+1.25",
                                          "1e0",
                                          "1E+2",
                                          "1e-2",
                                          "9007199254740993",
                                          "9007199254740995",
                                          "4503599627370496.5",
                                          "4503599627370497.5",
                                          "2.2250738585072014e-308",
                                          "1.7976931348623157e308",
                                          "123456789012345678e-27",
                                          "0.000001234"};
    for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++, n++)
        bad += check_decimal(spelled[i], &gave_up);
    CHECKF(bad == 0, "%lld of %lld decimals differ from strtod", (long long)bad, (long long)n + 600000);
    /* the fast paths must be what runs: all but the exponents beyond them (1 in 28) and ties */
    CHECKF(gave_up < n / 10, "the scanner gave %lld of %lld decimals to strtod", (long long)gave_up, (long long)n);
}

/* What is not a decimal, or not one the scanner takes whole. */
static void test_not_decimal(void)
{
    static const char *const no[] = {"", "-", "+", ".", "e5", "1e", "1e+", "nan", "inf", "-.e1", "1e123456"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        const char *p = no[i];
        double v;
        CHECKF(!mm_scan_double(&p, p + strlen(p), &v), "'%s' scanned", no[i]);
    }
    const char *p = "1.5x";
    double v = 0;
    CHECK(mm_scan_double(&p, p + 4, &v) && v == 1.5 && *p == 'x');
}

int main(void)
{
    test_table();
    test_digits();
    test_index();
    test_decimals();
    test_not_decimal();
    return rvs_test_done();
}

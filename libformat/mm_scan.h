/* mm_scan.h - the number scanner of the Matrix Market reader's hot path: decimal digits eight
 * at a time (SWAR), a decimal read in one pass and converted to the correctly rounded double
 * without strtod where that is provable, an index read with its range check. Each scanner
 * stops at the first byte that cannot continue its number and leaves what follows to the
 * caller; a 0 return leaves the text to the careful path (strtod, the error messages). */
#ifndef MM_SCAN_H
#define MM_SCAN_H

#include <stdint.h>
#include <string.h>
#include "mm_private.h"

/* Exact powers of ten representable in a double. */
static const double mm_pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t mm_pow10_u64[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* 5^q for q in -27..27 as 128 bits with the top bit set: exact for q >= 0 (shifted left); for
 * q < 0, floor(2^(z + 127) / 5^-q) + 1 with 2^(z - 1) < 5^-q <= 2^z, the reciprocal rounded up.
 * Entry q + 27, high word first. tests/mm/test_mm_unit.c recomputes every entry. */
static const uint64_t mm_pow5_128[55][2] = {
    {0x9e74d1b791e07e48ULL, 0x775ea264cf55347eULL}, {0xc612062576589ddaULL, 0x95364afe032a819eULL},
    {0xf79687aed3eec551ULL, 0x3a83ddbd83f52205ULL}, {0x9abe14cd44753b52ULL, 0xc4926a9672793543ULL},
    {0xc16d9a0095928a27ULL, 0x75b7053c0f178294ULL}, {0xf1c90080baf72cb1ULL, 0x5324c68b12dd6339ULL},
    {0x971da05074da7beeULL, 0xd3f6fc16ebca5e04ULL}, {0xbce5086492111aeaULL, 0x88f4bb1ca6bcf585ULL},
    {0xec1e4a7db69561a5ULL, 0x2b31e9e3d06c32e6ULL}, {0x9392ee8e921d5d07ULL, 0x3aff322e62439fd0ULL},
    {0xb877aa3236a4b449ULL, 0x09befeb9fad487c3ULL}, {0xe69594bec44de15bULL, 0x4c2ebe687989a9b4ULL},
    {0x901d7cf73ab0acd9ULL, 0x0f9d37014bf60a11ULL}, {0xb424dc35095cd80fULL, 0x538484c19ef38c95ULL},
    {0xe12e13424bb40e13ULL, 0x2865a5f206b06fbaULL}, {0x8cbccc096f5088cbULL, 0xf93f87b7442e45d4ULL},
    {0xafebff0bcb24aafeULL, 0xf78f69a51539d749ULL}, {0xdbe6fecebdedd5beULL, 0xb573440e5a884d1cULL},
    {0x89705f4136b4a597ULL, 0x31680a88f8953031ULL}, {0xabcc77118461cefcULL, 0xfdc20d2b36ba7c3eULL},
    {0xd6bf94d5e57a42bcULL, 0x3d32907604691b4dULL}, {0x8637bd05af6c69b5ULL, 0xa63f9a49c2c1b110ULL},
    {0xa7c5ac471b478423ULL, 0x0fcf80dc33721d54ULL}, {0xd1b71758e219652bULL, 0xd3c36113404ea4a9ULL},
    {0x83126e978d4fdf3bULL, 0x645a1cac083126eaULL}, {0xa3d70a3d70a3d70aULL, 0x3d70a3d70a3d70a4ULL},
    {0xccccccccccccccccULL, 0xcccccccccccccccdULL}, {0x8000000000000000ULL, 0x0000000000000000ULL},
    {0xa000000000000000ULL, 0x0000000000000000ULL}, {0xc800000000000000ULL, 0x0000000000000000ULL},
    {0xfa00000000000000ULL, 0x0000000000000000ULL}, {0x9c40000000000000ULL, 0x0000000000000000ULL},
    {0xc350000000000000ULL, 0x0000000000000000ULL}, {0xf424000000000000ULL, 0x0000000000000000ULL},
    {0x9896800000000000ULL, 0x0000000000000000ULL}, {0xbebc200000000000ULL, 0x0000000000000000ULL},
    {0xee6b280000000000ULL, 0x0000000000000000ULL}, {0x9502f90000000000ULL, 0x0000000000000000ULL},
    {0xba43b74000000000ULL, 0x0000000000000000ULL}, {0xe8d4a51000000000ULL, 0x0000000000000000ULL},
    {0x9184e72a00000000ULL, 0x0000000000000000ULL}, {0xb5e620f480000000ULL, 0x0000000000000000ULL},
    {0xe35fa931a0000000ULL, 0x0000000000000000ULL}, {0x8e1bc9bf04000000ULL, 0x0000000000000000ULL},
    {0xb1a2bc2ec5000000ULL, 0x0000000000000000ULL}, {0xde0b6b3a76400000ULL, 0x0000000000000000ULL},
    {0x8ac7230489e80000ULL, 0x0000000000000000ULL}, {0xad78ebc5ac620000ULL, 0x0000000000000000ULL},
    {0xd8d726b7177a8000ULL, 0x0000000000000000ULL}, {0x878678326eac9000ULL, 0x0000000000000000ULL},
    {0xa968163f0a57b400ULL, 0x0000000000000000ULL}, {0xd3c21bcecceda100ULL, 0x0000000000000000ULL},
    {0x84595161401484a0ULL, 0x0000000000000000ULL}, {0xa56fa5b99019a5c8ULL, 0x0000000000000000ULL},
    {0xcecb8f27f4200f3aULL, 0x0000000000000000ULL},
};

/* w * 10^q, w != 0, |q| <= 27, as the correctly rounded double: the Eisel-Lemire algorithm
 * (D. Lemire, "Number parsing at a gigabyte per second", Software: Practice and Experience
 * 51(8), 2021). w is normalized so its top bit is set and multiplied by 5^q's 128 bits, the
 * low 64 only when the product's 9 bits below the 54 kept are all ones; within |q| <= 27 that
 * product decides the rounding (the paper's bound; a low word of all ones gives up here
 * anyway). The binary exponent of 10^q is floor(q log2 10); exact ties, possible only for
 * q in -4..23, round to even. 0 for |q| > 27, and for a subnormal or infinite result (which
 * cannot come from this range; checked all the same): the caller falls back to strtod. */
static inline int mm_eisel_lemire(uint64_t w, int64_t q, double *out)
{
    if (q < -27 || q > 27 || w == 0)
        return 0;
    const uint64_t *t = mm_pow5_128[q + 27];
    int lz = __builtin_clzll(w);
    w <<= lz;
    unsigned __int128 p = (unsigned __int128)w * t[0];
    uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
    if ((hi & 0x1ff) == 0x1ff) {
        uint64_t h2 = (uint64_t)(((unsigned __int128)w * t[1]) >> 64);
        lo += h2;
        hi += lo < h2;
        if (lo == UINT64_MAX)
            return 0;
    }
    int upper = (int)(hi >> 63), shift = upper + 9;
    uint64_t mant = hi >> shift;
    /* floor(q * log2(10)) + 63 by 217706 / 2^16 ~ log2(10), then the bias; the shift of a
     * negative product floors (arithmetic shift, as GCC and Clang do) */
    int64_t power2 = ((217706 * q) >> 16) + 63 + upper - lz + 1023;
    if (power2 <= 0)
        return 0;
    if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1 && (mant << shift) == hi)
        mant &= ~(uint64_t)1; /* exactly halfway: do not round up an even mantissa */
    mant += mant & 1;
    mant >>= 1;
    if (mant >= ((uint64_t)2 << 52)) {
        mant = (uint64_t)1 << 52;
        power2++;
    }
    mant &= ~((uint64_t)1 << 52);
    if (power2 >= 0x7ff)
        return 0;
    uint64_t bits = mant | (uint64_t)power2 << 52;
    memcpy(out, &bits, sizeof bits);
    return 1;
}

/* Eight digit values, one a byte with the most significant in the lowest byte, as a number:
 * pairs, then quads, then the halves, one multiply each. */
static inline uint64_t mm_combine8(uint64_t x)
{
    x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffULL;
    x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffULL;
    return (x * 10000 + (x >> 32)) & 0xffffffffULL;
}

/* The digits at p (up to e) appended to *m (m * 10^n + digits, modulo 2^64: the caller
 * counts the digits and gives up past 19); returns the first byte that is not a digit.
 * Eight bytes are looked at together while eight remain before e: a byte's value XOR '0' is
 * below 10 exactly for a digit, and adding 0x76 to its low 7 bits sets the top bit exactly when
 * they reach 10, without a carry into the next byte. */
static inline const char *mm_scan_digits(const char *p, const char *e, uint64_t *m)
{
    uint64_t acc = *m;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (e - p >= 8) {
        uint64_t v, x, stop;
        memcpy(&v, p, sizeof v);
        x = v ^ 0x3030303030303030ULL;
        stop = (((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
        if (!stop) {
            acc = acc * 100000000 + mm_combine8(x);
            p += 8;
            continue;
        }
        unsigned n = (unsigned)__builtin_ctzll(stop) >> 3;
        if (n) /* the n digits moved to the top bytes: zeros (leading zero digits) below them */
            acc = acc * mm_pow10_u64[n] + mm_combine8(x << (8 * (8 - n)));
        *m = acc;
        return p + n;
    }
#endif
    for (; p < e && (unsigned)(*p - '0') <= 9; p++)
        acc = acc * 10 + (uint64_t)(*p - '0');
    *m = acc;
    return p;
}

/* A decimal at *pp (sign, digits, point, digits, exponent; at least one digit) as the
 * correctly rounded double: at most 19 significant digits, counted from the first non-zero
 * one (counting non-zero partial mantissas missed a 20-digit mantissa that wraps to exactly 0
 * modulo 2^64), then Clinger's path (digits fit in 2^53, |exponent| <= 22: one exact multiply
 * or divide), else Eisel-Lemire above. 1 with *pp past the number; 0 when it
 * does not apply (no digits, more digits, a far exponent, a near-halfway case: strtod's). */
static inline int mm_scan_double(const char **pp, const char *e, double *out)
{
    const char *p = *pp, *start;
    int neg = 0;
    uint64_t m = 0;
    int64_t ex = 0, sig;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    start = p;
    while (p < e && *p == '0')
        p++;
    const char *ib = p;
    p = mm_scan_digits(p, e, &m);
    sig = p - ib;
    int any = p > start;
    if (p < e && *p == '.') {
        const char *fb = ++p;
        if (sig == 0) /* no integer digits but zeros: the fraction's leading zeros go too */
            while (p < e && *p == '0')
                p++;
        const char *fs = p;
        p = mm_scan_digits(p, e, &m);
        sig += p - fs;
        ex = -(int64_t)(p - fb);
        any |= p > fb;
    }
    if (!any)
        return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, edigits = 0;
        int64_t x = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < e && (unsigned)(*p - '0') <= 9 && edigits < 6; p++, edigits++)
            x = x * 10 + (*p - '0');
        if (edigits == 0 || edigits == 6)
            return 0;
        ex += eneg ? -x : x;
    }
    if (sig > 19)
        return 0;
    double v;
    if (m == 0)
        v = 0.0;
    else if (m <= ((uint64_t)1 << 53) && ex >= -22 && ex <= 22)
        v = ex < 0 ? (double)m / mm_pow10_exact[-ex] : (double)m * mm_pow10_exact[ex];
    else if (!mm_eisel_lemire(m, ex, &v))
        return 0;
    *out = neg ? -v : v;
    *pp = p;
    return 1;
}

/* Digits at *pp as a 1-based index within 1..limit, ending at a blank, the line end or e;
 * skips the blanks after it and stores the 0-based index. 0 when the text is anything else. */
static inline int mm_scan_index(const char **pp, const char *e, int64_t limit, int64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    const char *q = mm_scan_digits(p, e, &v);
    if (q == p || q - p >= 19 || (q < e && *q != ' ' && *q != '\n' && !is_blank(*q)) || v < 1 ||
        v > (uint64_t)limit)
        return 0;
    while (q < e && is_blank(*q))
        q++;
    *pp = q;
    *out = (int64_t)v - 1;
    return 1;
}

#endif

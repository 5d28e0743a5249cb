/* crc32c.c - CRC-32C (Castagnoli): SSE4.2 crc32 instruction on three interleaved lanes, table fallback */
#include <stdint.h>
#include <string.h>
#include <threads.h>
#include "rvs_stream.h"

#define CRC32C_POLY 0x82F63B78u /* reflected Castagnoli polynomial */
#define CRC_LANE 4096           /* bytes per lane of one interleaved round */

static uint32_t crc_table[256];      /* one byte at a time, for the fallback and the edges */
static uint32_t shift_lane[4][256];  /* multiply a register by x^(8*CRC_LANE) mod P */
static uint32_t shift_2lane[4][256]; /* ... by x^(8*2*CRC_LANE) */
static int crc_have_sse42;
static once_flag crc_once = ONCE_FLAG_INIT;

/* a*b mod P for reflected polynomials (bit 31 is the coefficient of x^0). */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (int i = 31; i >= 0; i--) {
        if ((a >> i) & 1)
            product ^= b;
        b = (b >> 1) ^ ((b & 1) ? CRC32C_POLY : 0); /* b *= x */
    }
    return product;
}

/* x^(8*nbytes) mod P: what feeding nbytes zero bytes multiplies a raw register by. */
static uint32_t x_pow_bytes(uint64_t nbytes)
{
    uint32_t result = 0x80000000u, square = 0x00800000u; /* 1 and x^8 */
    for (; nbytes; nbytes >>= 1) {
        if (nbytes & 1)
            result = gf2_mulmod(result, square);
        square = gf2_mulmod(square, square);
    }
    return result;
}

/* Tables that multiply a register by the constant c, one per register byte. */
static void build_shift_table(uint32_t t[4][256], uint32_t c)
{
    for (int j = 0; j < 4; j++)
        for (uint32_t b = 0; b < 256; b++)
            t[j][b] = gf2_mulmod(b << (8 * j), c);
}

/* Register times the constant behind table t. */
static uint32_t shift_register(uint32_t t[4][256], uint32_t r)
{
    return t[0][r & 0xff] ^ t[1][(r >> 8) & 0xff] ^ t[2][(r >> 16) & 0xff] ^ t[3][r >> 24];
}

/* Fill the tables once and pick the implementation. */
static void crc_init(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t r = b;
        for (int i = 0; i < 8; i++)
            r = (r >> 1) ^ ((r & 1) ? CRC32C_POLY : 0);
        crc_table[b] = r;
    }
    build_shift_table(shift_lane, x_pow_bytes(CRC_LANE));
    build_shift_table(shift_2lane, x_pow_bytes(2 * CRC_LANE));
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    crc_have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

/* Raw register update, one byte at a time. */
static uint32_t crc_bytes_table(uint32_t r, const unsigned char *p, size_t n)
{
    while (n--)
        r = crc_table[(r ^ *p++) & 0xff] ^ (r >> 8);
    return r;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Raw register update with the crc32 instruction: three lanes of CRC_LANE bytes run at once
 * (the instruction's latency is three cycles, its throughput one), then are joined by
 * shifting the earlier lanes' registers past the later lanes' bytes. */
__attribute__((target("sse4.2"))) static uint32_t crc_bytes_sse42(uint32_t r, const unsigned char *p, size_t n)
{
    uint64_t c0 = r;
    while (n >= 3 * CRC_LANE) {
        uint64_t c1 = 0, c2 = 0, w0, w1, w2;
        for (size_t i = 0; i < CRC_LANE; i += 8) {
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + CRC_LANE + i, 8);
            memcpy(&w2, p + 2 * CRC_LANE + i, 8);
            c0 = __builtin_ia32_crc32di(c0, w0);
            c1 = __builtin_ia32_crc32di(c1, w1);
            c2 = __builtin_ia32_crc32di(c2, w2);
        }
        c0 = shift_register(shift_2lane, (uint32_t)c0) ^ shift_register(shift_lane, (uint32_t)c1) ^ (uint32_t)c2;
        p += 3 * CRC_LANE;
        n -= 3 * CRC_LANE;
    }
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c0 = __builtin_ia32_crc32di(c0, w);
    }
    uint32_t c = (uint32_t)c0;
    for (; n; n--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}
#endif

/* CRC-32C of buf continuing from crc (0 to start), pre- and post-inverted as usual. */
uint32_t rvs_crc32c(uint32_t crc, const void *buf, size_t len)
{
    call_once(&crc_once, crc_init);
    uint32_t r = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (crc_have_sse42)
        return ~crc_bytes_sse42(r, buf, len);
#endif
    return ~crc_bytes_table(r, buf, len);
}

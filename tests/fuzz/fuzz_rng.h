/* fuzz_rng.h - the custom mutators' random numbers (splitmix64, from libFuzzer's seed), in
 * unsigned arithmetic so that no mutation is undefined behaviour */
#ifndef RVS_FUZZ_RNG_H
#define RVS_FUZZ_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s;
} fuzz_rng;

static inline uint64_t fuzz_next(fuzz_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (0 when n is 0). */
static inline size_t fuzz_below(fuzz_rng *r, size_t n)
{
    return n ? (size_t)(fuzz_next(r) % n) : 0;
}

#endif

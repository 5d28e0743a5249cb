/* rvs_draw.h - the x that programs and the advisor draw from a seed. Component k (k = j for a
 * real x, 2j and 2j + 1 for the real and imaginary parts of complex entry j) is splitmix64's
 * output for the state seed + (k + 1) * RVS_DRAW_STEP, scaled to [-1, 1), rounded to float for
 * single precision: a function of k alone, so a loop on the host, a check that reads no array
 * of x and a GPU kernel all draw the same vector. */
#ifndef RVS_DRAW_H
#define RVS_DRAW_H

#include <stdint.h>

#ifdef __CUDACC__
#define RVS_DRAW_FN static inline __host__ __device__
#else
#define RVS_DRAW_FN static inline
#endif

#define RVS_DRAW_STEP 0x9e3779b97f4a7c15ULL

/* Component k of the x drawn from seed; single: rounded to float. */
RVS_DRAW_FN double rvs_draw(uint64_t seed, int64_t k, int single)
{
    uint64_t z = seed + ((uint64_t)k + 1) * RVS_DRAW_STEP;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double v = (double)(z >> 11) / (double)(1ULL << 52) - 1.0;
    return single ? (double)(float)v : v;
}

#endif

/* cpu_values.h - the value types of the CPU kernels (f32, f64 and the complex c64, c128 as
 * C99 complex types, laid out as rvs.5 stores them: real part, then imaginary) and the
 * atomic addition each needs (OpenMP has no atomic for complex: two real atomics). Private to
 * kernels/cpu. */
#ifndef RVS_CPU_VALUES_H
#define RVS_CPU_VALUES_H

#include <complex.h>

typedef float complex rvs_cf;
typedef double complex rvs_cd;

static inline void rvs_atomic_add_f64(double *p, double v)
{
#pragma omp atomic
    *p += v;
}

static inline void rvs_atomic_add_f32(float *p, float v)
{
#pragma omp atomic
    *p += v;
}

/* Each part added atomically on its own: another thread's addition may fall between the two,
 * which only reorders additions, as the real atomics do. */
static inline void rvs_atomic_add_c128(rvs_cd *p, rvs_cd v)
{
    double *q = (double *)p;
#pragma omp atomic
    q[0] += creal(v);
#pragma omp atomic
    q[1] += cimag(v);
}

static inline void rvs_atomic_add_c64(rvs_cf *p, rvs_cf v)
{
    float *q = (float *)p;
#pragma omp atomic
    q[0] += crealf(v);
#pragma omp atomic
    q[1] += cimagf(v);
}

/* Call NAME_f64, NAME_f32, NAME_c128 or NAME_c64 by F's value type with the arguments. */
#define RVS_CPU_BY_VTYPE(vt, NAME, ...)                 \
    do {                                                \
        switch (vt) {                                   \
        case RVS_F64: NAME##_f64(__VA_ARGS__); break;   \
        case RVS_F32: NAME##_f32(__VA_ARGS__); break;   \
        case RVS_C128: NAME##_c128(__VA_ARGS__); break; \
        case RVS_C64: NAME##_c64(__VA_ARGS__); break;   \
        }                                               \
    } while (0)

#endif

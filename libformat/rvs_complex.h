/* rvs_complex.h - C99 complex numbers, and C11's CMPLX (parts set as given, Inf and NaN kept),
 * which glibc's <complex.h> defines for GCC alone */
#ifndef RVS_COMPLEX_H
#define RVS_COMPLEX_H

#include <complex.h>

#ifndef CMPLX /* clang: the builtin glibc's CMPLX stands for */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

#endif

/* rvskit.h - the public API of librvskit in one include: libformat (container, Matrix Market,
 * CSR hub, PMF, partitions, formats), the CPU and GPU kernels, and the execution layer.
 * Installed with the other public headers under include/rvskit/: #include <rvskit/rvskit.h>,
 * link with rvskit::rvskit (CMake) or `pkg-config --libs rvskit`. */
#ifndef RVSKIT_H
#define RVSKIT_H

#include "rvskit_config.h"
#include "rvs.h"
#include "rvs_cpu.h"
#include "rvs_spgemm.h"
#include "rvs_gpu.h"
#include "rvs_engine.h"

#endif

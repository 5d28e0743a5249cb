/* rvskit.h - the public API of librvskit in one include: the RVS stream, Matrix Market and edge
 * lists, the CSR hub, PMF, partitions, the storage formats, the SpMV operator with the format
 * advisor, and SpGEMM. The other headers of the source tree are internal and not installed.
 * Installed under include/rvskit/: #include <rvskit/rvskit.h>, link with rvskit::rvskit (CMake)
 * or `pkg-config --cflags --libs rvskit`. rvskit(3) is the overview. */
#ifndef RVSKIT_H
#define RVSKIT_H

#include "rvskit_config.h"
#include "rvs_status.h"
#include "rvs_csr.h"
#include "rvs_mm.h"
#include "rvs_edges.h"
#include "rvs_pmf.h"
#include "rvs_partition.h"
#include "rvs_format.h"
#include "rvs_stream.h"
#include "rvs_spmv_op.h"
#include "rvs_spgemm_run.h"

#endif

/* partition_metis.h - the METIS row partition behind rvs_partition_compute's RVS_ALG_METIS
 * (partition_metis.c; a stub that reports "built without METIS" when METIS was not found) */
#ifndef RVS_PARTITION_METIS_H
#define RVS_PARTITION_METIS_H

#include "rvs_partition.h"

/* parts[0..k)'s rows (each part's ascending) from METIS k-way on the graph of square A + A^T
 * without self loops, each row weighted by its entries, part i aiming at cp[i] / sum(cp) of
 * them, with a fixed seed. RVS_ERR_DIM for a matrix that is not square, RVS_ERR_OVERFLOW past
 * METIS's idx_t, RVS_ERR_UNSUPPORTED when built without METIS. */
rvs_status rvs_metis_fill_parts(rvs_part *parts, int k, const double *cp, const rvs_csr *A, rvs_error *err);

#endif

/* rvs_calibrate.h - computing powers measured by benchmark (pmf-partitioning Section 5.3) */
#ifndef RVS_CALIBRATE_H
#define RVS_CALIBRATE_H

#include "rvs.h"

/* Measure SpMV throughput (GFLOP/s) of the GPU and of one CPU core on a generated matrix.
 * *cp_gpu is 0 when there is no GPU. */
rvs_status rvs_calibrate(double *cp_gpu, double *cp_core, rvs_error *err);

/* Record the measured powers to $RVS_CALIBRATION, else ${XDG_CONFIG_HOME:-~/.config}/rvskit/calibration. */
rvs_status rvs_calibration_save(double cp_gpu, double cp_core, rvs_error *err);

/* Load recorded powers; RVS_ERR_NOFILE when none were recorded. */
rvs_status rvs_calibration_load(double *cp_gpu, double *cp_core, rvs_error *err);

#endif

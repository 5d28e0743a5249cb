/* rvs_gpu_tune.h - the GPU kernels' tunables, part of the public rvs_knobs (rvs_spmv_op.h) */
#ifndef RVS_GPU_TUNE_H
#define RVS_GPU_TUNE_H

/* Kernel tunables; zero means "the format's default". */
typedef struct {
    int block;           /* threads per block */
    int threads_per_row; /* ELLR-T, CSR vector (lanes a row; with csr_kernel 0 they pick it) */
    int hcc_wg;          /* HCC segments per warp step (1, 2, 4) */
    int hcc_wi;          /* HCC threads per block (64..256, multiple of 32) */
    int rows_per_thread; /* DIA rows per thread (f64 2 or 4, f32 4 or 8) */
    int csr_kernel;      /* CSR: rvs_csr_kernel (RVS_CSR_AUTO: the rule's choice) */
} rvs_gpu_tune;

#endif

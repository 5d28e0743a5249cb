# kernels/ - the GPU kernels against the CPU's on generated and shared matrices: every format and
# layout, column panels, row maps, complex values. Exit 77 (skipped) without a usable GPU.
rvs_c_test(gpu_spmv test_gpu_spmv LABELS gpu TIMEOUT 900)
rvs_c_test(gpu_panels test_gpu_panels LABELS gpu TIMEOUT 600)
rvs_c_test(gpu_ymap test_gpu_ymap LABELS gpu TIMEOUT 600)
rvs_c_test(gpu_complex test_gpu_complex LABELS gpu TIMEOUT 300)

# spgemm/ - SpGEMM C = A*B: worked examples, the CPU kernels and the GPU's against CSparse (the
# program: programs/spgemm.sh)
rvs_c_test(spgemm_golden test_spgemm_golden)
rvs_c_test(spgemm_cpu test_spgemm_cpu TIMEOUT 900)
rvs_c_test(spgemm_gpu test_spgemm_gpu LABELS gpu TIMEOUT 900)
rvs_c_test(spgemm_gpu_short test_spgemm_gpu_short LABELS gpu TIMEOUT 900)

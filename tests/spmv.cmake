# spmv.cmake - the spmv program and the GPU kernels
rvs_sh_test(spmv_cpu spmv_cpu.sh TIMEOUT 600)
rvs_c_test(calibrate test_calibrate TIMEOUT 120)
# GPU: exit 77 (skipped) without a usable GPU
rvs_c_test(gpu_spmv test_gpu_spmv LABELS gpu TIMEOUT 900)
rvs_c_test(gpu_panels test_gpu_panels LABELS gpu TIMEOUT 600)
rvs_sh_test(spmv_gpu spmv_gpu.sh LABELS gpu TIMEOUT 600)
# byte accounting of GPU SpMV (what each kernel reads), against counts derived per format
rvs_c_test(spmv_bytes test_spmv_bytes)
rvs_c_test(value_dict test_value_dict)
rvs_sh_test(regress_spmv_wide_columns regress_input.sh ARGS spmv_wide_columns)
rvs_sh_test(regress_spmv_x_claim regress_input.sh ARGS spmv_x_claim)
# mixed precision (f32 values, f64 x and y): CPU here, GPU with the label
rvs_sh_test(spmv_mixed spmv_mixed.sh ARGS cpu)
rvs_sh_test(spmv_mixed_gpu spmv_mixed.sh ARGS gpu LABELS gpu)
rvs_sh_test(regress_spmv_xy_claim_bytes regress_input.sh ARGS spmv_xy_claim_bytes)
rvs_sh_test(regress_check_row_magnitude_overflow regress_process.sh ARGS check_row_magnitude_overflow)
rvs_sh_test(regress_spmv_f32_out_of_range regress_process.sh ARGS spmv_f32_out_of_range TIMEOUT 300)

# regress/ - one test per defect found, named after it, its story in a comment where the case is
# (regress_input.sh: what is read; regress_output.sh: what is written; regress_process.sh: the
# work between; regress_stream.sh: streams a buggy or hostile writer made, and the wording of
# messages). The library's own regressions are beside their subject (mm/, stream/, fuzz/).
# Matrix Market and other input
rvs_sh_test(regress_mm_endless_stdin regress_input.sh ARGS mm_endless_stdin)
rvs_sh_test(regress_mm_gz_trailer_lies regress_input.sh ARGS mm_gz_trailer_lies)
rvs_sh_test(regress_nan_inf_convert_round_trip regress_input.sh ARGS nan_inf_convert_round_trip)
rvs_sh_test(regress_mm_huge_rows_oom_killed regress_input.sh ARGS mm_huge_rows_oom_killed)
rvs_sh_test(regress_mm_hermitian_complex_diagonal regress_input.sh ARGS mm_hermitian_complex_diagonal)
rvs_sh_test(regress_input_not_regular regress_input.sh ARGS input_not_regular TIMEOUT 600)
rvs_sh_test(regress_input_buf_mmap_fails regress_input.sh ARGS input_buf_mmap_fails)
rvs_sh_test(regress_spmv_wide_columns regress_input.sh ARGS spmv_wide_columns)
rvs_sh_test(regress_spmv_x_claim regress_input.sh ARGS spmv_x_claim)
rvs_sh_test(regress_spmv_xy_claim_bytes regress_input.sh ARGS spmv_xy_claim_bytes)
# output
rvs_sh_test(regress_tool_output_symlink_planted regress_output.sh ARGS tool_output_symlink_planted)
rvs_sh_test(regress_spgemm_report_before_write_failure regress_output.sh ARGS spgemm_report_before_write_failure)
rvs_sh_test(regress_output_temporary_on_signal regress_output.sh ARGS output_temporary_on_signal TIMEOUT 600)
rvs_sh_test(regress_output_through_symlink regress_output.sh ARGS output_through_symlink TIMEOUT 600)
rvs_sh_test(regress_stdout_closed regress_output.sh ARGS stdout_closed TIMEOUT 600)
# the work between
rvs_sh_test(regress_tool_threads_beyond_address_space regress_process.sh ARGS tool_threads_beyond_address_space)
rvs_sh_test(regress_spmv_dense_x_claim regress_process.sh ARGS spmv_dense_x_claim)
rvs_sh_test(regress_trial_cache_rescan regress_process.sh ARGS trial_cache_rescan TIMEOUT 600)
rvs_sh_test(regress_partition_metrics_region_per_part regress_process.sh ARGS partition_metrics_region_per_part TIMEOUT 600)
rvs_sh_test(regress_check_row_magnitude_overflow regress_process.sh ARGS check_row_magnitude_overflow)
rvs_sh_test(regress_spmv_f32_out_of_range regress_process.sh ARGS spmv_f32_out_of_range TIMEOUT 300)
# streams and messages
rvs_sh_test(regress_hcc_np_usage regress_stream.sh ARGS hcc_np_usage)
rvs_sh_test(regress_python_part_after_whole_block regress_stream.sh ARGS python_part_after_whole_block)
rvs_sh_test(regress_python_complex_stream regress_stream.sh ARGS python_complex_stream)
rvs_sh_test(regress_warning_before_error regress_stream.sh ARGS warning_before_error)
rvs_sh_test(regress_cp_share_overflow regress_stream.sh ARGS cp_share_overflow)
rvs_sh_test(regress_cp_subnormal regress_stream.sh ARGS cp_subnormal)
foreach(c auto_part_missing plac_malformed_valid name_control_characters ell_padding_nonzero part_numbering)
  rvs_sh_test(regress_${c} regress_stream.sh ARGS ${c})
endforeach()

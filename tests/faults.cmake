# faults.cmake - fault tests: output files, allocation failure (RVS_FAULT_INJECT), the table of
# faults (tests/faults.sh)
rvs_sh_test(regress_tool_output_symlink_planted regress_output.sh ARGS tool_output_symlink_planted)
rvs_sh_test(regress_spgemm_report_before_write_failure regress_output.sh ARGS spgemm_report_before_write_failure)

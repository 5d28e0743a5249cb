# eco.cmake - rvskit in its ecosystem: Matrix Market output, the output rule, reports, the
# inspector, Python access, the installed tree (issue 13)
rvs_c_test(mm_write test_mm_write)
rvs_sh_test(output output.sh TIMEOUT 120)
rvs_sh_test(report report.sh TIMEOUT 120)
rvs_sh_test(python python.sh TIMEOUT 300)
rvs_sh_test(install install.sh TIMEOUT 600)
rvs_sh_test(cli_seams cli_seams.sh TIMEOUT 300)
rvs_c_test(progress test_progress)
# complex values (issue 13, item 5a): formats, CPU kernels, stream, Matrix Market, engine; GPU
rvs_c_test(complex test_complex TIMEOUT 300)
rvs_c_test(gpu_complex test_gpu_complex LABELS gpu TIMEOUT 300)
rvs_sh_test(regress_python_part_after_whole_block regress_stream.sh ARGS python_part_after_whole_block)
rvs_sh_test(regress_python_complex_stream regress_stream.sh ARGS python_complex_stream)

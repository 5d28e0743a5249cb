# eco.cmake - rvskit in its ecosystem: Matrix Market output, the output rule, reports, the
# inspector, Python access, the installed tree (issue 13)
rvs_c_test(mm_write test_mm_write)
rvs_sh_test(output output.sh TIMEOUT 120)
rvs_sh_test(report report.sh TIMEOUT 120)
rvs_sh_test(python python.sh TIMEOUT 300)
rvs_sh_test(install install.sh TIMEOUT 600)

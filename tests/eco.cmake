# eco.cmake - rvskit in its ecosystem: Matrix Market output, the output rule, reports, the
# inspector, Python access, the installed tree (issue 13)
rvs_c_test(mm_write test_mm_write)

# mm.cmake - Matrix Market reader and writer tests
rvs_c_test(mm_unit test_mm_unit)
rvs_c_test(mm_real test_mm_real TIMEOUT 120)
rvs_sh_test(mm_bad mm_bad.sh)
# regressions, one test per finding (tests/test_mm_regress.c)
rvs_c_test(regress_mm_chunk_end_beyond_buffer test_mm_regress ARGS chunk_end_beyond_buffer TIMEOUT 120)
rvs_c_test(regress_mm_decimal_wraps_to_zero test_mm_regress ARGS decimal_wraps_to_zero)
rvs_sh_test(regress_mm_endless_stdin regress_input.sh ARGS mm_endless_stdin)
rvs_sh_test(regress_mm_gz_trailer_lies regress_input.sh ARGS mm_gz_trailer_lies)

# mm.cmake - Matrix Market reader and writer tests
rvs_c_test(mm_unit test_mm_unit)
rvs_c_test(mm_real test_mm_real TIMEOUT 120)
rvs_sh_test(mm_bad mm_bad.sh)

# memory.cmake - host memory bounded by the data: check, CSR building and views, peak RSS
rvs_c_test(memory test_memory TIMEOUT 300)
rvs_c_test(index64 test_index64 TIMEOUT 600)
rvs_c_test(mm_blocks test_mm_blocks TIMEOUT 300)

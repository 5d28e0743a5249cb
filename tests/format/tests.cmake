# format/ - libformat's formats: builders, validators and CPU kernels of the ELL family (ELL,
# ELLR, PELLR, BiELL, JAD), HYB, HYB-DIA, DIA and HCC; the papers' worked examples; blocks built
# from gathered rows; complex values; value tables; GPU byte accounting; host memory bounded by
# the data, and index arithmetic past 2^31. Many small parallel regions: passive OpenMP waiting
# keeps them fast on a busy machine.
rvs_c_test(pellr_golden test_pellr_golden)
rvs_c_test(fmt_ell test_fmt_ell TIMEOUT 300)
rvs_c_test(fmt_ell_real test_fmt_ell ARGS real TIMEOUT 300)
set_property(TEST fmt_ell fmt_ell_real APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)
rvs_c_test(hyb_golden test_hyb_golden)
rvs_c_test(fmt_hyb test_fmt_hyb TIMEOUT 300)
# blocks built from picked rows gathered in windows (rvs_fmt_from_rows) against the same blocks
# built from a copy of the rows, bit for bit: generated and shared matrices
rvs_c_test(fmt_gather test_fmt_gather TIMEOUT 600)
rvs_c_test(fmt_gather_real test_fmt_gather ARGS real TIMEOUT 900)
set_property(TEST fmt_gather fmt_gather_real APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)
# complex values: formats, CPU kernels, stream, Matrix Market, engine
rvs_c_test(complex test_complex TIMEOUT 300)
rvs_c_test(value_dict test_value_dict)
# byte accounting of GPU SpMV (what each kernel reads), against counts derived per format
rvs_c_test(spmv_bytes test_spmv_bytes)
rvs_c_test(memory test_memory TIMEOUT 300)
# complex and memory's triplet cases with a team smaller than each region asks for (as OMP_DYNAMIC
# or a thread limit makes it): every per-thread stretch counted and placed, every carry summed
rvs_c_test(complex_thread_limit test_complex TIMEOUT 300)
rvs_c_test(memory_thread_limit test_memory ARGS --triplets TIMEOUT 300)
set_property(TEST complex_thread_limit memory_thread_limit APPEND PROPERTY ENVIRONMENT OMP_NUM_THREADS=4
             OMP_THREAD_LIMIT=2)
rvs_c_test(index64 test_index64 TIMEOUT 600)

# fmt_ell.cmake - ELL family (ELL, ELLR, PELLR, BiELL, JAD): builders, validators, CPU kernels.
# Many small parallel regions: passive OpenMP waiting keeps them fast on a busy machine.
rvs_c_test(pellr_golden test_pellr_golden)
rvs_c_test(fmt_ell test_fmt_ell TIMEOUT 300)
rvs_c_test(fmt_ell_real test_fmt_ell ARGS real TIMEOUT 300)
set_property(TEST fmt_ell fmt_ell_real APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)

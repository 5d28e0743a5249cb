# gather.cmake - blocks built from picked rows gathered in windows (rvs_fmt_from_rows) against
# the same blocks built from a copy of the rows, bit for bit: generated and shared matrices.
rvs_c_test(fmt_gather test_fmt_gather TIMEOUT 600)
rvs_c_test(fmt_gather_real test_fmt_gather ARGS real TIMEOUT 900)
set_property(TEST fmt_gather fmt_gather_real APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)

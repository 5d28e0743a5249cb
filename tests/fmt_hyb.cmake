# fmt_hyb.cmake - HYB (ELL + COO), HYB-DIA (DIA + COO), DIA and HCC: builders, validators, CPU kernels
rvs_c_test(hyb_golden test_hyb_golden)
rvs_c_test(fmt_hyb test_fmt_hyb TIMEOUT 300)

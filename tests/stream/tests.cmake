# stream/ - the RVS container: units, the pipe through pmf and partition, the binding of parts
# to processors ('plac'); regressions, one test per finding (test_stream_regress.c; their inputs
# are in the fuzz corpus)
rvs_c_test(stream_unit test_stream TIMEOUT 300)
rvs_sh_test(stream_pipe stream_pipe.sh)
rvs_c_test(placement_chunk test_placement)
rvs_c_test(regress_stream_partition_row_index_overflow test_stream_regress ARGS partition_row_index_overflow)
rvs_c_test(regress_stream_jad_jdptr_difference_overflow test_stream_regress ARGS jad_jdptr_difference_overflow)
rvs_c_test(regress_stream_biell_gptr_difference_overflow test_stream_regress ARGS biell_gptr_difference_overflow)

# stream.cmake - the RVS container: unit tests and the pipe test through pmf and partition
rvs_c_test(stream_unit test_stream TIMEOUT 300)
rvs_sh_test(stream_pipe stream_pipe.sh)
# regressions, one test per finding (tests/test_stream_regress.c); their inputs are in the fuzz corpus
rvs_c_test(regress_stream_partition_row_index_overflow test_stream_regress ARGS partition_row_index_overflow)
rvs_c_test(regress_stream_jad_jdptr_difference_overflow test_stream_regress ARGS jad_jdptr_difference_overflow)
rvs_c_test(regress_stream_biell_gptr_difference_overflow test_stream_regress ARGS biell_gptr_difference_overflow)
# streams a buggy or hostile writer made, and the wording of messages (tests/regress_stream.sh)
foreach(c auto_part_missing plac_malformed_valid name_control_characters ell_padding_nonzero part_numbering)
  rvs_sh_test(regress_${c} regress_stream.sh ARGS ${c})
endforeach()

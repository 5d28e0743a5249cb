# stream.cmake - the RVS container: unit tests and the pipe test through pmf and partition
rvs_c_test(stream_unit test_stream TIMEOUT 300)
rvs_sh_test(stream_pipe stream_pipe.sh)

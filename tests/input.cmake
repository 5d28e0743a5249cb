# input.cmake - compressed text input (bzip2, xz, zstd), edge lists and the peer-style reading
# cases (issue 13, item 5)
rvs_c_test(mm_codec test_mm_codec TIMEOUT 300)
target_compile_definitions(test_mm_codec PRIVATE ${RVS_CODEC_DEFINES})
# the same checks as a build without the libraries: "unsupported compression" for each
add_executable(test_mm_codec_none ${PROJECT_SOURCE_DIR}/tests/test_mm_codec.c ${PROJECT_SOURCE_DIR}/tests/mm_codec_none.c)
target_link_libraries(test_mm_codec_none PRIVATE rvstest)
if(RVS_HAVE_CUDA)
  set_target_properties(test_mm_codec_none PROPERTIES LINKER_LANGUAGE CUDA)
endif()
rvs_c_test(mm_codec_none test_mm_codec_none ARGS none)
rvs_sh_test(compressed compressed.sh ARGS ${RVS_CODEC_FOUND} TIMEOUT 300)
rvs_sh_test(edges edges.sh TIMEOUT 300)
rvs_sh_test(peer_cases peer_cases.sh ARGS ${RVS_CODEC_FOUND} TIMEOUT 300)

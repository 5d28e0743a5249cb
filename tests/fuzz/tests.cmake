# fuzz/ - the libFuzzer targets. Every build replays their corpora (tests
# fuzz_replay_*: seeds, and each input that once found a defect, named after it); a build
# configured with -DRVS_FUZZ=ON (clang) also builds fuzz_<target> and runs each for
# RVS_FUZZ_SECONDS under `ctest -L fuzz`, new inputs going to the build's fuzz-corpus/.
# stream_struct and mm_tokens mutate structure (a custom mutator linked into the fuzzing binary
# only); their replay is that of any target. tests/fuzz/long-run.sh runs them all for longer.
set(RVS_FUZZ_SECONDS 60 CACHE STRING "seconds each fuzz target runs under ctest -L fuzz")
set(RVS_FUZZ_DIR ${PROJECT_SOURCE_DIR}/tests/fuzz)
set(fuzz_src_stream fuzz_stream.c fuzz_checks.c fuzz_chunks.c)
set(fuzz_src_spmv fuzz_spmv.c fuzz_checks.c fuzz_chunks.c)
set(fuzz_src_mm fuzz_mm.c fuzz_checks.c fuzz_chunks.c)
set(fuzz_src_mm_value fuzz_mm_value.c)
set(fuzz_src_stream_struct fuzz_stream_struct.c fuzz_checks.c fuzz_chunks.c)
set(fuzz_src_mm_tokens fuzz_mm.c fuzz_checks.c fuzz_chunks.c)
set(fuzz_mutator_stream_struct stream_mutator.c stream_fields.c stream_records.c)
set(fuzz_mutator_mm_tokens mm_mutator.c)
set(fuzz_targets stream spmv mm mm_value stream_struct mm_tokens)
foreach(t ${fuzz_targets})
  # the dictionary: the target's own, else that of its input (long-run.sh takes the same rule)
  if(EXISTS ${RVS_FUZZ_DIR}/${t}.dict)
    set(dict ${RVS_FUZZ_DIR}/${t}.dict)
  elseif(t MATCHES "^mm")
    set(dict ${RVS_FUZZ_DIR}/mm.dict)
  else()
    set(dict ${RVS_FUZZ_DIR}/rvs.dict)
  endif()
  list(TRANSFORM fuzz_src_${t} PREPEND ${RVS_FUZZ_DIR}/ OUTPUT_VARIABLE src)
  add_executable(replay_${t} ${src} ${RVS_FUZZ_DIR}/replay.c)
  target_link_libraries(replay_${t} PRIVATE rvsengine)
  add_test(NAME fuzz_replay_${t} COMMAND replay_${t} ${RVS_FUZZ_DIR}/corpus/${t})
  set_tests_properties(fuzz_replay_${t} PROPERTIES ENVIRONMENT "${RVS_TEST_ENV}" TIMEOUT 300)
  if(RVS_FUZZ)
    list(TRANSFORM fuzz_mutator_${t} PREPEND ${RVS_FUZZ_DIR}/ OUTPUT_VARIABLE mutator)
    add_executable(fuzz_${t} ${src} ${mutator})
    target_link_libraries(fuzz_${t} PRIVATE rvsengine)
    # only the shared libraries it calls, so that long-run.sh stage carries few
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer -Wl,--as-needed)
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz-corpus/${t})
    # no allocation for an input of at most 32 KB needs 128 MB (the library's claims are held to
    # 16 MB, FUZZ_MEM_LIMIT): a larger one took a size from the input before checking it
    add_test(NAME fuzz_${t} COMMAND fuzz_${t} -max_total_time=${RVS_FUZZ_SECONDS} -timeout=10
             -rss_limit_mb=2048 -malloc_limit_mb=128 -max_len=32768 -dict=${dict} -print_final_stats=1
             ${PROJECT_BINARY_DIR}/fuzz-corpus/${t} ${RVS_FUZZ_DIR}/corpus/${t})
    math(EXPR fuzz_timeout "${RVS_FUZZ_SECONDS} + 300") # libFuzzer's own limit ends it first
    set_tests_properties(fuzz_${t} PROPERTIES LABELS fuzz TIMEOUT ${fuzz_timeout}
                         ENVIRONMENT "OMP_NUM_THREADS=1;ASAN_OPTIONS=detect_leaks=1")
  endif()
endforeach()
if(RVS_FUZZ)
  list(TRANSFORM fuzz_targets PREPEND fuzz_ OUTPUT_VARIABLE fuzz_binaries)
  add_custom_target(fuzz DEPENDS ${fuzz_binaries})
endif()
# regress_complex_clang: glibc defines CMPLX for GCC alone, so the complex checks did not link in
# a clang build (the fuzzing build's compiler; found by fuzz_stream_struct, which calls them
# through the engine): they compile under clang without an implicit declaration
find_program(RVS_CLANG clang)
if(RVS_CLANG)
  add_test(NAME regress_complex_clang COMMAND ${RVS_CLANG} -std=c11 -fsyntax-only -Werror=implicit-function-declaration
           -I${PROJECT_SOURCE_DIR}/libformat -I${PROJECT_SOURCE_DIR}/kernels/cpu -I${CXSPARSE_INCLUDE_DIR}
           ${PROJECT_SOURCE_DIR}/libformat/check_complex.c ${PROJECT_SOURCE_DIR}/kernels/cpu/spgemm_check.c)
else()
  add_test(NAME regress_complex_clang COMMAND sh -c "echo 'no clang here: skipped'; exit 77")
endif()
set_tests_properties(regress_complex_clang PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
# regressions the structure-aware targets found, one test per finding (test_fuzz_regress.c);
# their inputs are in the fuzz corpus
rvs_c_test(regress_auto_records_claim test_fuzz_regress ARGS auto_records_claim)

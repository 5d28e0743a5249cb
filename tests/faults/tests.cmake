# faults/ - faults injected: the table of faults (faults.sh: files, pipes, signals, spoiled
# streams) and allocation failure (RVS_FAULT_INJECT): the library's allocations go through
# wrappers (GNU ld --wrap), and each one of a run fails in turn
if(RVS_FAULT_INJECT)
  add_executable(fault_alloc ${CMAKE_CURRENT_LIST_DIR}/fault_alloc.c)
  target_link_libraries(fault_alloc PRIVATE rvstest)
  target_link_options(fault_alloc PRIVATE
    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc,--wrap=free)
  if(RVS_HAVE_CUDA)
    set_target_properties(fault_alloc PROPERTIES LINKER_LANGUAGE CUDA)
  endif()
  foreach(s read_mtx read_sym_mtx read_mtx_stdin read_stream pmf partition convert_multiply spgemm write_stream)
    rvs_add_test(fault_alloc_${s} $<TARGET_FILE:fault_alloc> ${s})
    set_tests_properties(fault_alloc_${s} PROPERTIES ENVIRONMENT "${RVS_TEST_ENV}" TIMEOUT 600 LABELS fault)
  endforeach()
  # finding of the sweep: the stream reader reported running out of memory in a validator as bad data
  rvs_add_test(regress_stream_nomem_reported_as_bad_data $<TARGET_FILE:fault_alloc> read_stream)
  set_tests_properties(regress_stream_nomem_reported_as_bad_data PROPERTIES ENVIRONMENT "${RVS_TEST_ENV}")
  # finding of the sweep: a failed row-sort buffer left rows unsorted and duplicates unsummed
  # in rvs_csr_from_coo while the read succeeded (the sweep compares each recovered result)
  rvs_add_test(regress_csr_sort_buffer_failure_unsorted $<TARGET_FILE:fault_alloc> read_mtx)
  set_tests_properties(regress_csr_sort_buffer_failure_unsorted PROPERTIES ENVIRONMENT "${RVS_TEST_ENV}")
endif()
rvs_sh_test(faults faults.sh TIMEOUT 600)

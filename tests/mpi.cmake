# mpi.cmake - spmv-mpi on 1, 2, 3 and 4 ranks over loopback, checked against the serial result;
# a rank without rows, more parts than ranks, bound parts, errors and a rank that dies; the check
# on every rank (test_mpi_check) alone and on 2 and 3 ranks. Without
# MPI the tests are reported skipped. The binding of parts ('plac') is tested with or without MPI.
rvs_sh_test(placement placement.sh)
rvs_c_test(placement_chunk test_placement)
if(RVS_HAVE_MPI)
  rvs_c_test(mpi_assign test_mpi_assign)
  target_link_libraries(test_mpi_assign PRIVATE rvsmpi)
  rvs_c_test(mpi_check_1 test_mpi_check) # one rank (MPI's singleton); the group check runs it on 2 and 3
  target_link_libraries(test_mpi_check PRIVATE rvsmpi)
endif()
# Open MPI's own allocations live until exit: under the sanitizers every test that starts MPI
# suppresses those (tests/lsan-mpi.supp), so leaks of ours are still found
set(RVS_MPI_SANITIZE_ENV "ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-mpi.supp:print_suppressions=0")
if(RVS_HAVE_MPI AND RVS_SANITIZE)
  set_property(TEST mpi_check_1 APPEND PROPERTY ENVIRONMENT ${RVS_MPI_SANITIZE_ENV})
endif()
foreach(group ranks shapes errors kill check)
  if(RVS_HAVE_MPI)
    rvs_sh_test(mpi_${group} mpi.sh ARGS ${group} TIMEOUT 120)
    set_property(TEST mpi_${group} APPEND PROPERTY ENVIRONMENT "RVS_MPIEXEC=${MPIEXEC_EXECUTABLE}")
    if(RVS_SANITIZE)
      set_property(TEST mpi_${group} APPEND PROPERTY ENVIRONMENT ${RVS_MPI_SANITIZE_ENV})
    endif()
  else()
    add_test(NAME mpi_${group} COMMAND sh -c "echo 'MPI not found: spmv-mpi not built'; exit 77")
    set_tests_properties(mpi_${group} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endforeach()
if(RVS_HAVE_MPI)
  rvs_sh_test(mpi_gpu mpi.sh LABELS gpu ARGS ranks gpu TIMEOUT 300)
  set_property(TEST mpi_gpu APPEND PROPERTY ENVIRONMENT "RVS_MPIEXEC=${MPIEXEC_EXECUTABLE}")
endif()

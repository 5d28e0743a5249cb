# programs/ - the programs as users run them, a file named after each: pmf, partition, convert,
# spmv (CPU, GPU, mixed precision), spgemm, spmv-mpi, rvsinfo, rvsgen; and what they share: the
# pipeline, the seams between them (options, --json, calibration), output files, reports,
# --help and the man pages. GPU: exit 77 (skipped) without a usable GPU.
rvs_sh_test(pmf pmf.sh)
rvs_sh_test(partition_cli partition.sh)
# partition --compare, and --alg metis through the programs (skipped without METIS)
rvs_sh_test(partition_compare partition_compare.sh)
rvs_sh_test(convert convert.sh TIMEOUT 300)
rvs_sh_test(convert_warp convert_warp.sh)
rvs_sh_test(spmv_cpu spmv.sh TIMEOUT 600)
rvs_sh_test(spmv_gpu spmv_gpu.sh LABELS gpu TIMEOUT 600)
# mixed precision (f32 values, f64 x and y): CPU here, GPU with the label
rvs_sh_test(spmv_mixed spmv_mixed.sh ARGS cpu)
rvs_sh_test(spmv_mixed_gpu spmv_mixed.sh ARGS gpu LABELS gpu)
rvs_sh_test(spgemm_bad spgemm_bad.sh)
rvs_sh_test(spgemm_cli spgemm.sh)
rvs_sh_test(spgemm_gpu_cli spgemm_gpu.sh LABELS gpu TIMEOUT 300)
rvs_sh_test(rvsinfo rvsinfo.sh)
rvs_sh_test(gen rvsgen.sh TIMEOUT 120)
rvs_sh_test(pipeline pipeline.sh)
rvs_sh_test(cli_seams cli_seams.sh TIMEOUT 300)
rvs_sh_test(output output.sh TIMEOUT 120)
rvs_sh_test(report report.sh TIMEOUT 120)
rvs_sh_test(usage usage.sh)
# man pages: every option of --help under OPTIONS and back, pages render without warnings
rvs_sh_test(man_options man_options.sh)
# spmv-mpi on 1, 2, 3 and 4 ranks over loopback, checked against the serial result; a rank
# without rows, more parts than ranks, bound parts, errors, --exchange and a rank that dies; the check on
# every rank (engine/test_mpi_check) on 2 and 3 ranks; the 2-D layout (--grid, engine/test_mpi_grid)
# on 1, 2, 4 and 6 ranks. Without MPI the tests are reported
# skipped. The binding of parts ('plac') is tested with or without MPI.
rvs_sh_test(placement placement.sh)
foreach(group ranks shapes errors kill check exchange grid)
  if(RVS_HAVE_MPI)
    rvs_sh_test(mpi_${group} spmv-mpi.sh ARGS ${group} TIMEOUT 120)
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
  rvs_sh_test(mpi_gpu spmv-mpi.sh LABELS gpu ARGS ranks gpu TIMEOUT 300)
  set_property(TEST mpi_gpu APPEND PROPERTY ENVIRONMENT "RVS_MPIEXEC=${MPIEXEC_EXECUTABLE}")
  # the GPU-to-GPU exchange (--exchange peer) between ranks sharing the machine's first GPU
  rvs_sh_test(mpi_peer_gpu spmv-mpi.sh LABELS gpu ARGS peer gpu TIMEOUT 300)
  set_property(TEST mpi_peer_gpu APPEND PROPERTY ENVIRONMENT "RVS_MPIEXEC=${MPIEXEC_EXECUTABLE}")
  # the 2-D layout on GPUs: --grid 1x2 and 2x1 on 2 ranks, checked
  rvs_sh_test(mpi_grid_gpu spmv-mpi.sh LABELS gpu ARGS grid gpu TIMEOUT 300)
  set_property(TEST mpi_grid_gpu APPEND PROPERTY ENVIRONMENT "RVS_MPIEXEC=${MPIEXEC_EXECUTABLE}")
endif()

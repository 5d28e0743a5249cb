# engine/ - the execution layer: plans, the format advisor and its model, partitioned runs, peak
# memory of plans, the SpMV operator, calibration, MPI rank assignment, checks and the GPU-to-GPU
# exchange, examples/cg.c.
# GPU: exit 77 (skipped) without a usable GPU
rvs_c_test(engine test_engine TIMEOUT 600)
set_property(TEST engine APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)
rvs_c_test(gpu_engine test_gpu_engine LABELS gpu TIMEOUT 900)
rvs_sh_test(engine_cli engine_cli.sh TIMEOUT 300)
rvs_c_test(plan_memory test_plan_memory TIMEOUT 600)
rvs_c_test(gpu_stream test_gpu_stream LABELS gpu TIMEOUT 600)
rvs_c_test(spmv_op test_spmv_op ARGS cpu TIMEOUT 300)
rvs_c_test(gpu_spmv_op test_spmv_op LABELS gpu ARGS gpu TIMEOUT 600)
rvs_c_test(calibrate test_calibrate TIMEOUT 120)
# the cut of a partition over ranks (engine/mpi_cut.c needs no MPI), past 64 ranks too
rvs_c_test(mpi_cut test_mpi_cut)
# examples/cg.c (installed as an example): CG with the SpMV operator, and cuSPARSE beside on a GPU
add_executable(example_cg ${PROJECT_SOURCE_DIR}/examples/cg.c)
target_include_directories(example_cg PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include/rvskit)
target_link_libraries(example_cg PRIVATE rvstool m)
if(RVS_HAVE_CUDA)
  target_link_libraries(example_cg PRIVATE CUDA::cudart CUDA::cusparse)
  set_target_properties(example_cg PROPERTIES LINKER_LANGUAGE CUDA)
endif()
rvs_sh_test(example_cg example_cg.sh)
if(RVS_HAVE_MPI)
  rvs_c_test(mpi_assign test_mpi_assign)
  target_link_libraries(test_mpi_assign PRIVATE rvsmpi)
  rvs_c_test(mpi_check_1 test_mpi_check) # one rank (MPI's singleton); programs/spmv-mpi.sh runs it on 2 and 3
  target_link_libraries(test_mpi_check PRIVATE rvsmpi)
  rvs_c_test(mpi_peer_1 test_mpi_peer) # one rank; programs/spmv-mpi.sh runs it on 2 and 3, CPUs and GPUs
  target_link_libraries(test_mpi_peer PRIVATE rvsmpi)
  rvs_c_test(mpi_grid_1 test_mpi_grid) # the 2-D layout on one rank; programs/spmv-mpi.sh runs it on 2, 4 and 6
  target_link_libraries(test_mpi_grid PRIVATE rvsmpi)
endif()
if(RVS_HAVE_MPI AND RVS_SANITIZE)
  set_property(TEST mpi_check_1 APPEND PROPERTY ENVIRONMENT ${RVS_MPI_SANITIZE_ENV})
  set_property(TEST mpi_peer_1 APPEND PROPERTY ENVIRONMENT ${RVS_MPI_SANITIZE_ENV})
  set_property(TEST mpi_grid_1 APPEND PROPERTY ENVIRONMENT ${RVS_MPI_SANITIZE_ENV})
endif()

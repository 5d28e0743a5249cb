#!/usr/bin/env bash
# h200x2.sh - issue 12 on the 2-GPU machine (nvidia-h200-x2), in phases that fit one call:
#   bench/h200x2.sh PHASE OUT    (from the project root)
# PHASE: build (into build-dev) | tests (the MPI tests on the GPUs: tests/mpi.sh ranks gpu) |
#        mpi (bench/mpi_spmv.sh: stencil 320^3, R-MAT 24, wiki-Vote replicas, 1 and 2 GPUs) |
#        all (mpi, with the tests run while the inputs generate).
# BIN=DIR runs programs built elsewhere (default build-dev); RVS_MATRICES: where wiki-Vote.mtx.gz
# is. MPI must be on the PATH: that machine has no package registry, so OpenMPI's Debian packages
# travel unpacked with dpkg -x (see bench/results/README.md); as root, OMPI_ALLOW_RUN_AS_ROOT=1
# and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1. NVLink multicast stays off (KINDS.md): nothing here uses
# NCCL, the variables are kept set for whatever else starts.
set -uo pipefail
phase=${1:?phase}; O=${2:?output dir}
B=${BIN:-$PWD/build-dev}
M=${RVS_MATRICES:-$PWD/.carry/matrices}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$O"
tests="RVS_BIN=$B RVS_SRC=$PWD RVS_DATA=$PWD/data RVS_TMP=/tmp/rvstest RVS_MPIEXEC=mpirun bash tests/mpi.sh ranks gpu"
case "$phase" in
  build)
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRVS_MATRICES="$M" > "$O/cmake.log" 2>&1 &&
      cmake --build "$B" -j"$(nproc)" > "$O/build.log" 2>&1 || { grep -E 'error' "$O/build.log" | head; exit 1; } ;;
  tests)
    mkdir -p /tmp/rvstest && bash -c "$tests" 2>&1 | tee "$O/mpi_tests.log" | tail -5 ;;
  mpi)
    bench/mpi_spmv.sh "$B" "$O" "$M" ;;
  all)
    mkdir -p /tmp/rvstest
    nvidia-smi topo -m > "$O/topo.txt" 2>&1
    AFTER_GEN="$tests > $O/mpi_tests.log 2>&1; tail -3 $O/mpi_tests.log" bench/mpi_spmv.sh "$B" "$O" "$M" ;;
esac

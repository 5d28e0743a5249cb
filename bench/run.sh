#!/usr/bin/env bash
# run.sh - build rvskit for benchmarking and run one benchmark into OUT, from the project root,
# in phases short enough for one session on a lent GPU machine.
#   bench/run.sh PHASE OUT
# PHASE:
#   build            configure and build RVS_BUILD (Release; BUILD_TARGETS: those alone); run it
#                    first on a fresh machine
#   tests            ctest -L gpu in RVS_BUILD (the GPU tests, with the shared matrices)
#   mpi_tests        the MPI tests on the GPUs (tests/programs/spmv-mpi.sh ranks gpu, peer gpu, grid gpu)
#   cpu_spmv         CPU SpMV per format against GraphBLAS          (THREADS [all], ITERS [20])
#   gpu_spmv         every GPU format against cuSPARSE
#   hybrid           hybrid SpMV, Test 2 of Yang et al.
#   gpu_kernels      the GPU kernels against cuSPARSE ALG1/ALG2 with ncu (ONLY=csr: CSR alone)
#   gpu_dia          DIA and HYB-DIA with coded slots
#   gpu_panels       CSR in column panels                           (NCU=1 adds Nsight Compute)
#   gpu_mixed        mixed precision against cuSPARSE in f64
#   engine_spmv      the pipeline through the engine against cuSPARSE  (ENGINE_SIZE [full])
#   auto_spmv        auto on the user's stopwatch: first y, N calls, per call, against --format
#                    csr, the best fixed format and cuSPARSE     (NNZ_REP, PRECISIONS, DEADLINE)
#   upload           host-to-device copies: the driver's, pinned, the pinned ring   (MAX_MIB)
#   omp_wake         a short OpenMP region after the team idled, by team size (default and
#                    passive OMP_WAIT_POLICY; in a GPU process where a GPU answers)
#   advisor_train    the table the advisor's model is fitted to (bench/advisor_fit.py)
#   mpi_spmv         spmv-mpi on 1 and P GPUs (RANKS, LARGE; needs MPI on the PATH)
#   spgemm           SpGEMM against cuSPARSE (SPGEMM_SECTIONS [real suite rep2m big rep20m], DEADLINE)
#   mmread           Matrix Market read against scipy.io.mmread       (ENTRIES [100000000])
#   python_spmv      rvskit from Python: op @ x against scipy and CuPy's cuSPARSE, the overhead of
#                    a call, rvskit.mmread against scipy.io.mmread   (SUITE, PRECISIONS, DEADLINE)
#   stream           the RVS stream through pipes against cat
#   compressed_read  compressed Matrix Market against the decompressor piped into pmf
#   peak_memory      peak RSS of every program on a large stencil (CPU)
#   peak_memory_gpu  peak host RSS of spmv --gpu
#   big_matrix       past 2^31 entries through the pipeline            (BIG [pipe])
# Environment: RVS_BUILD, the build directory [build-bench]; RVS_MATRICES, the shared real
# matrices (plain or gzip'd .mtx) [../shared/matrices]; each script's own variables (DEADLINE,
# ITERS, ONLY, ...) pass through. A machine without a package registry needs the Debian packages
# staged first (../shared/device/stage-deps.sh here, then `source .deps/env.sh` there); see
# bench/README.md.
set -uo pipefail
phase=${1:?usage: bench/run.sh PHASE OUT}; O=${2:?usage: bench/run.sh PHASE OUT}
[ -f bench/run.sh ] || { echo "run.sh: run it from the project root" >&2; exit 64; }
M=${RVS_MATRICES:-$PWD/../shared/matrices}
B=${RVS_BUILD:-$PWD/build-bench}
mkdir -p "$O"
O=$(cd "$O" && pwd)
export PATH=$B:$PATH RVS_MATRICES=$M
case "$phase" in
  build)
    # stage-deps.sh stages zlib as a static library only, which is not position-independent and
    # cannot link into librvskit.so: use the machine's own libz.so where it has one
    z=/opt/rvsdeps/usr/lib/x86_64-linux-gnu
    if [ -e $z/libz.a ] && ls /usr/lib/x86_64-linux-gnu/libz.so* > /dev/null 2>&1; then
      rm -f $z/libz.* "$B/CMakeCache.txt"
    fi
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRVS_MATRICES="$M" > "$O/cmake.log" 2>&1 &&
      cmake --build "$B" -j"$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} > "$O/build.log" 2>&1 ||
      { grep -E 'error' "$O/build.log" | head; exit 1; } ;;
  tests)
    (cd "$B" && ctest -L gpu --output-on-failure --timeout 400) 2>&1 | tee "$O/gpu_tests.log" | tail -15 ;;
  mpi_tests)
    mkdir -p /tmp/rvstest
    for g in ranks peer grid; do
      RVS_BIN=$B RVS_SRC=$PWD RVS_DATA=$PWD/data RVS_TMP=/tmp/rvstest RVS_MPIEXEC=${MPIEXEC:-mpirun} \
        bash tests/programs/spmv-mpi.sh $g gpu 2>&1 | tee -a "$O/mpi_tests.log" | tail -5
    done ;;
  cpu_spmv)
    bench/cpu_spmv.sh "$B" "$M" "$O" "${THREADS:-$(nproc)}" "${ITERS:-20}" ;;
  gpu_spmv)
    bench/gpu_spmv.sh "$B" "$M" "$O" spmv > "$O/gpu_spmv.log" 2>&1; tail -40 "$O/gpu_spmv.log" ;;
  hybrid)
    bench/gpu_spmv.sh "$B" "$M" "$O" hybrid > "$O/hybrid.log" 2>&1; cat "$O/hybrid.txt" ;;
  gpu_kernels)
    bench/gpu_kernels.sh "$B" "$M" "$O" > "$O/gpu_kernels.log" 2>&1; tail -60 "$O/gpu_kernels.log" ;;
  gpu_dia)
    bench/gpu_dia.sh "$B" "$O" > "$O/gpu_dia.log" 2>&1; cat "$O/gpu_dia.txt" ;;
  gpu_panels)
    bench/gpu_panels.sh "$B" "$M" "$O" > "$O/gpu_panels.log" 2>&1; cat "$O/gpu_panels.txt" ;;
  gpu_mixed)
    bench/gpu_mixed.sh "$B" "$M" "$O" ;;
  auto_spmv)
    bench/auto_spmv.sh "$B" "$M" "$O" ;;
  upload)
    "$B/bench_upload" --max-mib "${MAX_MIB:-256}" | tee "$O/upload.txt" ;;
  omp_wake)
    g=; "$B/bench_omp_wake" --gpu --reps 1 > /dev/null 2>&1 && g=--gpu
    { "$B/bench_omp_wake" $g; OMP_WAIT_POLICY=passive "$B/bench_omp_wake" $g; } | tee "$O/omp_wake.txt" ;;
  advisor_train)
    bench/advisor_train.sh "$B" "$M" "$O" gpu ;;
  engine_spmv)
    bench/engine_spmv.sh "$B" "$M" "$O" "${ENGINE_SIZE:-full}" > "$O/engine.out" 2>&1; tail -30 "$O/engine.out" ;;
  mpi_spmv)
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 # no NVLink multicast
    nvidia-smi topo -m > "$O/topo.txt" 2>&1
    bench/mpi_spmv.sh "$B" "$O" "$M" ;;
  spgemm)
    RVS_WORK=${RVS_WORK:-/tmp/spgemm-work} bench/spgemm.sh "$B" "$M" "$O" ${SPGEMM_SECTIONS:+"$SPGEMM_SECTIONS"} \
      > "$O/spgemm.log" 2>&1
    cat "$O/spgemm.txt" ;;
  mmread)
    # scipy reads plain text only: the three real matrices the table compares are unpacked
    mkdir -p /tmp/rvs-mmread
    for m in memplus bcsstk16 bcsstk29; do zcat -f "$M/$m.mtx" > /tmp/rvs-mmread/$m.mtx; done
    RVS_MATRICES=/tmp/rvs-mmread PYTHON=$(command -v python3) bench/mmread.sh "${ENTRIES:-100000000}" "$B" \
      > "$O/mmread.txt" 2>&1
    tail -12 "$O/mmread.txt" ;;
  python_spmv)
    bench/python_spmv.sh "$B" "$M" "$O" > /dev/null 2> "$O/python_spmv.err"; tail -40 "$O/python_spmv.txt" ;;
  stream)
    RVS_BIN=$B bench/stream.sh "${NNZ:-50000000}" f64 3 | tee "$O/stream.txt" ;;
  compressed_read)
    bench/compressed_read.sh "${SCALE:-20}" "$B" 3 | tee "$O/compressed_read.txt" ;;
  peak_memory)
    bench/peak_memory.sh "${N:-200}" "$B" | tee "$O/peak_memory.txt" ;;
  peak_memory_gpu)
    bench/peak_memory_gpu.sh "$O" "$B" ;;
  big_matrix)
    bench/big_matrix.sh "${BIG:-pipe}" "$B" > "$O/big_matrix-${BIG:-pipe}.txt" 2>&1
    grep -v '^all:\|^[0-9,]*:[0-9]' "$O/big_matrix-${BIG:-pipe}.txt" | head -60 ;;
  *)
    echo "run.sh: unknown phase '$phase' (see the head of bench/run.sh)" >&2; exit 64 ;;
esac

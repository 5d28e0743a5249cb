#!/usr/bin/env bash
# h100.sh - everything measured on the GPU machine, in phases that each fit one call there.
#   bench/h100.sh PHASE OUT     (run from the project root, after `source .deps/env.sh`)
# PHASE: build (BUILD_TARGETS: some targets only) | tests (ctest -L gpu) | spmv (format table) |
#        hybrid (Test 2) | spgemm (bench/spgemm.sh; SPGEMM_SECTIONS, DEADLINE) |
#        mmread (100M-entry Matrix Market read vs scipy) | csr (CSR/COO on four inputs, f64) |
#        big (issue 11: BIG=pipe|stream|small, bench/big.sh: past 2^31 entries through the
#        pipeline, streamed under --gpu-mem, peak host and device memory) |
#        engine (issue 8: partitioned SpMV, auto, the card's pipeline, hybrid; ENGINE_SIZE=
#        full|full1|full2|scalefree|small|tiny, default full: bench/engine_spmv.sh, one call, at most ~9 min)
#        mixed (spmv --precision mixed on the four scale-free replicas of 20M entries: kernels
#        beside cuSPARSE f64 through bench_gpu_spmv, and spmv's whole run with --baseline --check) |
#        kernels (issue 9: bench/gpu_kernels.sh, the suite with R-MAT 23/24, ALG1+ALG2, ncu;
#        BIN=DIR runs binaries built elsewhere, DEADLINE=S seconds before later sections are cut) |
#        dia (issue 9 item 5: bench/gpu_dia.sh, DIA with coded slots on the stencils, ncu) |
#        panels (issue 9 item 2: bench/gpu_panels.sh, CSR in column panels on R-MAT 22-24 and two
#        replicas; NCU=1 adds Nsight Compute on R-MAT 24)
# Matrices: RVS_MATRICES (default .carry/matrices, the shared ones gzip'd: rvskit reads gzip).
set -uo pipefail
phase=${1:?phase}; O=${2:?output dir}
M=${RVS_MATRICES:-$PWD/.carry/matrices}
B=$PWD/build-dev
mkdir -p "$O"
export PATH=$B:$PATH
case "$phase" in
  build)
    # ../shared/device/stage-deps.sh stages zlib's headers and static library only, which is not
    # position-independent and cannot link into librvskit.so: link the machine's own libz.so
    z=/opt/rvsdeps/usr/lib/x86_64-linux-gnu
    [ -e $z/libz.a ] && ls /usr/lib/x86_64-linux-gnu/libz.so* > /dev/null 2>&1 && rm -f $z/libz.* && rm -f $B/CMakeCache.txt
    cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DRVS_MATRICES="$M" > "$O/cmake.log" 2>&1 &&
      cmake --build $B -j"$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} > "$O/build.log" 2>&1 ||
      { grep -E 'error' "$O/build.log" | head; exit 1; } ;;
  tests)
    (cd $B && ctest -L gpu --output-on-failure --timeout 400) 2>&1 | tee "$O/gpu_tests.log" | tail -15 ;;
  spmv|hybrid)
    mkdir -p /tmp/m
    for m in memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat bcsstk29; do
      [ -s /tmp/m/$m.mtx ] || zcat -f "$M/$m.mtx" > /tmp/m/$m.mtx
    done
    bench/gpu_spmv.sh $B /tmp/m "$O" "$phase" > "$O/$phase.log" 2>&1
    tail -40 "$O/$phase.log" ;;
  csr)
    mkdir -p bench/work
    for i in stencil7_160 rmat20 email-Enron_rep wiki-Vote_rep; do
      [ -s bench/work/$i.rvs ] && bench_gpu_spmv --iters 30 --precision f64 --formats csr,coo,hyb --label $i bench/work/$i.rvs
    done | tee "$O/csr.txt" ;;
  kernels)
    bench/gpu_kernels.sh "${BIN:-$B}" "$M" "$O" > "$O/kernels.log" 2>&1
    tail -60 "$O/kernels.log" ;;
  panels)
    bench/gpu_panels.sh $B "$M" "$O" > "$O/panels.log" 2>&1
    cat "$O/gpu_panels.txt" ;;
  dia)
    bench/gpu_dia.sh $B "$O" > "$O/dia.log" 2>&1
    cat "$O/gpu_dia.txt" ;;
  engine)
    bench/engine_spmv.sh $B "$M" "$O" "${ENGINE_SIZE:-full}" > "$O/engine.out" 2>&1
    tail -30 "$O/engine.out" ;;
  spgemm)   # SPGEMM_SECTIONS: of bench/spgemm.sh (real suite rep2m big rep20m); DEADLINE
    RVS_WORK=/tmp/spgemm-work bench/spgemm.sh $B "$M" "$O" ${SPGEMM_SECTIONS:+"$SPGEMM_SECTIONS"} > "$O/spgemm.log" 2>&1
    cat "$O/spgemm.txt" ;;
  big)
    bench/big.sh "${BIG:-pipe}" $B > "$O/big-${BIG:-pipe}.txt" 2>&1
    grep -v '^all:\|^[0-9,]*:[0-9]' "$O/big-${BIG:-pipe}.txt" | head -60 ;;
  mixed)
    mkdir -p /tmp/mx
    for m in memplus email-Enron wiki-Vote p2p-Gnutella04; do
      [ -s /tmp/mx/$m.rvs ] || rvsgen replica "$M/$m.mtx" 20000000 -o /tmp/mx/$m.rvs
      bench_gpu_spmv --iters 20 --precision mixed --formats csr,hcc --label ${m}_rep /tmp/mx/$m.rvs
      spmv --gpu --precision mixed --baseline --check -n 20 /tmp/mx/$m.rvs | sed "s/^/# ${m}_rep spmv: /"
    done 2>&1 | tee "$O/mixed.txt" ;;
  mmread)
    mkdir -p /tmp/mm
    for m in memplus bcsstk16 bcsstk29; do zcat -f "$M/$m.mtx" > /tmp/mm/$m.mtx; done
    RVS_MATRICES=/tmp/mm PYTHON=$(command -v python3) bench/mmread.sh "${ENTRIES:-100000000}" $B > "$O/mmread.txt" 2>&1
    tail -12 "$O/mmread.txt" ;;
esac

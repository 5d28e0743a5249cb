#!/usr/bin/env bash
# gpu_mixed.sh - mixed precision (f32 values, f64 x, y and sums) on the GPU against cuSPARSE in
# f64: CSR and HCC kernels on block replicas of four scale-free matrices (20M entries) through
# bench_gpu_spmv, then spmv's whole --precision mixed run on each with --baseline --check.
#   bench/gpu_mixed.sh BIN_DIR MATRICES_DIR OUT_DIR   (writes OUT_DIR/gpu_mixed.txt)
# RVS_BENCH_WORK: where the replicas go [/tmp/rvs-mixed]; ITERS: timed runs [20].
set -uo pipefail
B=${1:?bin dir}; M=${2:?matrices dir}; O=${3:?output dir}
W=${RVS_BENCH_WORK:-/tmp/rvs-mixed}; N=${ITERS:-20}
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# rvskit mixed precision  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}"
  echo "# command: bench/gpu_mixed.sh $*  (ITERS=$N)"
  for m in memplus email-Enron wiki-Vote p2p-Gnutella04; do
    [ -s "$W/$m.rvs" ] || rvsgen replica "$M/$m.mtx" 20000000 -o "$W/$m.rvs"
    bench_gpu_spmv --iters "$N" --precision mixed --formats csr,hcc --label "${m}_rep" "$W/$m.rvs"
    spmv --gpu --precision mixed --baseline --check -n "$N" "$W/$m.rvs" | sed "s/^/# ${m}_rep spmv: /"
  done 2>&1
} | tee "$O/gpu_mixed.txt"

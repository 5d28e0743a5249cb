#!/usr/bin/env bash
# gpu_dia.sh - DIA and HYB-DIA on the GPU with their slots coded into a table (the default where
# they hold at most 256 distinct values) against the slots as they are (dia-values=1), CSR and
# cuSPARSE CSR ALG1/ALG2 in the same process: the 7-point stencil 160^3 and 100^3 and the
# 27-point stencil 100^3, f64 and f32, 1, 2 (the default) and 4 rows a thread; the 7-point
# stencil with its values replaced by 16 and 64 scattered ones (--values K); ncu DRAM bytes and
# hit rates of both DIA kernels on the 7-point stencil 160^3 (f64, first runs).
#   bench/gpu_dia.sh BIN_DIR OUT_DIR      (writes OUT_DIR/gpu_dia.txt)
set -uo pipefail
B=${1:?bin dir}; O=${2:?out}
export PATH=$B:$PATH
W=/dev/shm/rvs-dia; mkdir -p "$W" "$O" || exit 1
T=$O/gpu_dia.txt; IT=${ITERS:-30}
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{ echo "# rvskit coded DIA  $(date -u +%Y-%m-%dT%H:%MZ)  device: $dev"
  echo "# command: bench/gpu_dia.sh $*  (ITERS=$IT); ms = median of $IT after a checked run"
  echo "# matrix prec format rows nnz ms gflops gbs frac_copy ratio_alg1 ratio_alg2 check"; } > "$T"
for s in "stencil7 160" "stencil7 100" "stencil27 100"; do
  set -- $s; [ -s "$W/$1_$2.rvs" ] || rvsgen "$1" "$2" -o "$W/$1_$2.rvs"
done
F=dia,dia@rows-per-thread=1,dia@rows-per-thread=4,dia@dia-values=1,hyb-dia,hyb-dia@dia-values=1,csr
for m in stencil7_160 stencil27_100 stencil7_100; do
  bench_gpu_spmv --iters "$IT" --precision both --formats $F --label $m "$W/$m.rvs" 2>>"$O/bench.err" | grep -v '^# matrix'
done | tee -a "$T"
for k in 16 64; do
  bench_gpu_spmv --iters "$IT" --precision both --values $k --formats dia,dia@dia-values=1 --label stencil7_160-K$k \
    "$W/stencil7_160.rvs" 2>>"$O/bench.err" | grep -v '^# matrix\|^# best'
done | tee -a "$T"
NCU="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct"
echo "# ncu stencil7_160 f64 (first runs): kernel metric value" >> "$T"
timeout 90 ncu --metrics "$NCU" -k "regex:dia_" --launch-count 4 --csv \
  bench_gpu_spmv --iters 1 --precision f64 --formats dia,dia@dia-values=1 "$W/stencil7_160.rvs" 2>>"$O/bench.err" |
  grep -E '^"[0-9]' | awk -F'","' '{k=$5; sub(/\(.*/,"",k); sub(/^void /,"",k); print "#   " k, $(NF-2), $NF}' | tr -d '"' |
  tee -a "$T"
rm -f "$W"/*.rvs

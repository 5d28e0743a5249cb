#!/usr/bin/env bash
# spgemm.sh - the SpGEMM benchmark of the spgemm issue: C = A*A for the larger shared matrices
# and generated R-MAT graphs; GFLOP/s (2 * products / end-to-end time), the GPU pipeline
# against cuSPARSE end-to-end, peak GPU memory, and the CPU kernel against GraphBLAS.
#   bench/spgemm.sh BUILD_DIR MATRICES_DIR OUT_DIR [quick|cpu]
# quick: small inputs only; cpu: CPU columns only (no GPU, hybrid or cuSPARSE).
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; mode=${4:-}
mkdir -p "$O" bench/work
W=bench/work
export PATH="$B:$PATH"
T=$O/spgemm.txt
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# rvskit SpGEMM benchmark  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}  cpu: $(nproc) threads"
  echo "# command: bench/spgemm.sh $*"
  echo "# times in seconds, end-to-end from host CSR to host CSR; ratios > 1 mean rvskit is faster"
  bench_spgemm --header
} >"$T"

gen() { # name, then rvsgen arguments
  local name=$1; shift
  [ -s "$W/$name.rvs" ] || rvsgen "$@" -o "$W/$name.rvs"
}
flags=()
reps=3
case "$mode" in
  quick) gen rmat12 rmat 12 8; inputs="$M/wiki-Vote.mtx $M/bcsstk29.mtx $W/rmat12.rvs" ;;
  cpu) flags=(--no-gpu); reps=1
       gen rmat14 rmat 14 8
       inputs="$M/memplus.mtx $M/email-Enron.mtx $M/wiki-Vote.mtx $M/bcsstk29.mtx $W/rmat14.rvs" ;;
  *) gen rmat16 rmat 16 16; gen rmat17 rmat 17 16; gen rmat18 rmat 18 16
     inputs="$M/memplus.mtx $M/email-Enron.mtx $M/wiki-Vote.mtx $M/bcsstk29.mtx $M/bcsstk16.mtx"
     inputs="$inputs $M/ca-CondMat.mtx $M/usroads.mtx $W/rmat16.rvs $W/rmat17.rvs $W/rmat18.rvs" ;;
esac
for f in $inputs; do
  name=$(basename "$f"); name=${name%.*}
  for p in f64 f32; do
    bench_spgemm "${flags[@]}" --reps "$reps" --precision "$p" --label "$name" "$f" | tee -a "$T"
  done
done
# geometric means of the two ratios over the rows that have them
awk '!/^#/ { if ($11 != "-") { g += log($11); ng++ } if ($17 != "-") { c += log($17); nc++ } }
     END { printf "# geomean cpu_vs_graphblas %s  gpu_vs_cusparse_e2e %s\n",
           ng ? sprintf("%.3f", exp(g / ng)) : "-", nc ? sprintf("%.3f", exp(c / nc)) : "-" }' "$T" | tee -a "$T"

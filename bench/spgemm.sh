#!/usr/bin/env bash
# spgemm.sh - the SpGEMM benchmark of issue 10: C = A*A, ours (automatic choice, GPU end to end
# and kernel-only, CPU, hybrid) against cuSPARSE (ALG1, ALG3 where ALG1 fails) and GraphBLAS,
# every side warm and timed as a median (bench_spgemm), on four shared matrices, two stencils
# and R-MAT 16..19 (edge factor 16), generated here.
#   bench/spgemm.sh BUILD_DIR MATRICES_DIR OUT_DIR [full|quick|cpu]
# (RVS_WORK: folder of the generated inputs [bench/work]; BENCH_FLAGS: more bench_spgemm
# options for every row, e.g. --trace)
# full: f64 on all ten inputs (R-MAT 18 and 19 timed once each: too large to repeat; cuSPARSE
# on R-MAT 19 in a process of its own, limited to 150 s), f32 on the six smaller ones; quick:
# the four shared matrices and R-MAT 16, f64; cpu: CPU columns only.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; mode=${4:-full}
W=${RVS_WORK:-bench/work}
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
T=$O/spgemm.txt
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# rvskit SpGEMM benchmark  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}  cpu: $(nproc) threads"
  echo "# command: bench/spgemm.sh $*"
  echo "# times in seconds, medians of warm runs, end to end from host CSR to host CSR unless"
  echo "# *_kernel_s (A and B on the device to C on the device); ratios > 1: rvskit is faster"
  bench_spgemm --header
} >"$T"

gen() { # name, then rvsgen arguments
  local name=$1; shift
  [ -s "$W/$name.rvs" ] || rvsgen "$@" -o "$W/$name.rvs"
}
row() { # label file reps [bench_spgemm options]
  local label=$1 f=$2 reps=$3; shift 3
  bench_spgemm --reps "$reps" --label "$label" ${BENCH_FLAGS:-} "$@" "$f" | tee -a "$T"
}
flags=()
[ "$mode" = cpu ] && flags=(--no-gpu)
small="memplus email-Enron wiki-Vote bcsstk29"
for m in $small; do row "$m" "$M/$m.mtx" 5 "${flags[@]}"; done
if [ "$mode" = quick ]; then
  gen rmat16 rmat 16 16
  row rmat16 "$W/rmat16.rvs" 3 "${flags[@]}"
else
  gen stencil7_64 stencil7 64; gen stencil27_40 stencil27 40
  row stencil7_64 "$W/stencil7_64.rvs" 5 "${flags[@]}"
  row stencil27_40 "$W/stencil27_40.rvs" 5 "${flags[@]}"
  gen rmat16 rmat 16 16; gen rmat17 rmat 17 16
  row rmat16 "$W/rmat16.rvs" 3 "${flags[@]}"
  row rmat17 "$W/rmat17.rvs" 3 "${flags[@]}"
  if [ "$mode" = full ]; then
    for m in $small; do row "$m" "$M/$m.mtx" 5 --precision f32; done
    row stencil7_64 "$W/stencil7_64.rvs" 5 --precision f32
    row stencil27_40 "$W/stencil27_40.rvs" 5 --precision f32
    rm -f "$W/rmat16.rvs" "$W/rmat17.rvs"
    gen rmat18 rmat 18 16
    row rmat18 "$W/rmat18.rvs" 1 --big
    rm -f "$W/rmat18.rvs"
    gen rmat19 rmat 19 16
    row rmat19 "$W/rmat19.rvs" 1 --big --no-cusparse
    # cuSPARSE on R-MAT 19 alone, in its own process with a time limit: whether it completes
    timeout 150 bench_spgemm --big --cusparse-only --label rmat19-cusparse "$W/rmat19.rvs" | tee -a "$T" ||
      echo "# rmat19: cuSPARSE did not finish (status $?; 124: 150 s limit)" | tee -a "$T"
  fi
fi
# geometric means of the ratios over the rows that have them
awk '!/^#/ { if ($10 != "-") { g += log($10); ng++ }
             if ($19 != "-") { e += log($19); ne++ }
             if ($20 != "-") { k += log($20); nk++ }
             if ($21 != "-") { a += log($21); na++ } }
     function gm(s, n) { return n ? sprintf("%.3f (%d rows)", exp(s / n), n) : "-" }
     END { printf "# geomean cpu_vs_graphblas %s  gpu_vs_cusparse_e2e %s  gpu_vs_cusparse_kernel %s  auto_vs_cusparse_e2e %s\n",
           gm(g, ng), gm(e, ne), gm(k, nk), gm(a, na) }' "$T" | tee -a "$T"

#!/usr/bin/env bash
# spgemm.sh - the SpGEMM table (issue 33): C = A*A, ours (the engine's choice, the GPU end to end
# and kernel-only, the CPU) against cuSPARSE (ALG1, ALG3 where ALG1 fails), both sides warm and
# timed as medians (bench_spgemm), in f64 and f32, on
#   real  every square real shared matrix with at least 10^4 entries, as it is
#   suite the issue-10 inputs generated here: 7- and 27-point stencils 64^3 and 40^3, R-MAT
#         16 and 17 (edge factor 16), then R-MAT 18 and 19 (f64, one timed run; cuSPARSE on
#         R-MAT 19 in a process of its own, limited to 60 s)
#   rep2m, rep20m  block replicas of the real ones at 2M and 20M entries (20M: f64, one timed
#         run, the CPU only up to 3e8 products)
#   bench/spgemm.sh BUILD_DIR MATRICES_DIR OUT_DIR [SECTIONS]
# SECTIONS: a space-separated list from real suite rep2m big rep20m [all of them, in that order].
# DEADLINE=S stops starting rows S seconds after the start (the table says what was cut);
# RVS_WORK: folder of the generated inputs [bench/work]; REPS: timed runs of small rows [3];
# BENCH_FLAGS: more bench_spgemm options for the rows of real, suite and rep2m (e.g. --trace).
# ONLY=REGEX: of the real matrices (real, rep2m, rep20m), only those whose names match.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; sections=${4:-real suite rep2m big rep20m}
W=${RVS_WORK:-bench/work}; reps=${REPS:-3}; deadline=${DEADLINE:-0}
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
T=$O/spgemm.txt
start=$SECONDS
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# rvskit SpGEMM benchmark  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}  cpu: $(nproc) threads"
  echo "# command: bench/spgemm.sh $*  (DEADLINE=$deadline REPS=$reps)"
  echo "# times in seconds, medians of warm runs, end to end from host CSR to host CSR unless"
  echo "# *_kernel_s (A and B on the device to C on the device); gpu_setup_s: the device's start-up"
  echo "# as the process's first GPU call paid it (not in gpu_s); ratios > 1: rvskit is faster;"
  echo "# auto_vs_best: the better of cpu_s and gpu_s over auto_s"
  bench_spgemm --header
} >"$T"

late() { [ "$deadline" -gt 0 ] && [ $((SECONDS - start)) -ge "$deadline" ]; }
cut=()
row() { # label file [bench_spgemm options]
  local label=$1 f=$2; shift 2
  if late; then cut+=("$label"); return; fi
  bench_spgemm --label "$label" ${BENCH_FLAGS:-} "$@" "$f" | tee -a "$T"
}
gen() { # file, then rvsgen arguments
  local f=$1; shift
  late && return 1
  [ -s "$f" ] || rvsgen "$@" -o "$f"
}
# every square real (or pattern) shared matrix with at least 10^4 entries, smallest first
real=$(awk -F'\t' 'NR > 1 && $2 == $3 && $4 >= 10000 && $5 != "complex" {print $4, $1}' "$M/INDEX.tsv" |
       sort -n | awk '{print $2}' | grep -E "${ONLY:-.}")
mtx() { for x in "$M/$1.mtx" "$M/$1.mtx.gz"; do [ -e "$x" ] && { echo "$x"; return; }; done; }

for s in $sections; do
  case $s in
  real)
    for m in $real; do row "$m" "$(mtx "$m")" -p f64,f32 -r "$reps"; done ;;
  suite)
    gen "$W/stencil7_64.rvs" stencil7 64 && row stencil7_64 "$W/stencil7_64.rvs" -p f64,f32 -r "$reps"
    gen "$W/stencil27_40.rvs" stencil27 40 && row stencil27_40 "$W/stencil27_40.rvs" -p f64,f32 -r "$reps"
    gen "$W/rmat16.rvs" rmat 16 16 && row rmat16 "$W/rmat16.rvs" -p f64,f32 -r "$reps"
    gen "$W/rmat17.rvs" rmat 17 16 && row rmat17 "$W/rmat17.rvs" -p f64,f32 -r 1
    rm -f "$W/rmat16.rvs" "$W/rmat17.rvs" ;;
  rep2m)
    for m in $real; do
      gen "$W/r2m.rvs" replica "$(mtx "$m")" 2000000 && row "${m}_2m" "$W/r2m.rvs" -p f64,f32 -r "$reps"
      rm -f "$W/r2m.rvs"
    done ;;
  big)
    gen "$W/rmat18.rvs" rmat 18 16 && BENCH_FLAGS= row rmat18 "$W/rmat18.rvs" --big
    rm -f "$W/rmat18.rvs"
    if gen "$W/rmat19.rvs" rmat 19 16; then
      BENCH_FLAGS= row rmat19 "$W/rmat19.rvs" --big --no-cusparse --cpu-max 3e9
      # cuSPARSE on R-MAT 19 alone, in its own process with a time limit: whether it completes
      if ! late; then
        timeout 60 bench_spgemm --big --cusparse-only --label rmat19-cusparse "$W/rmat19.rvs" | tee -a "$T" ||
          echo "# rmat19: cuSPARSE did not finish (status $?; 124: the 60 s limit)" | tee -a "$T"
      fi
    fi
    rm -f "$W/rmat19.rvs" ;;
  rep20m)
    for m in $real; do
      gen "$W/r20m.rvs" replica "$(mtx "$m")" 20000000 && BENCH_FLAGS= row "${m}_20m" "$W/r20m.rvs" --big --cpu-max 3e8
      rm -f "$W/r20m.rvs"
    done ;;
  esac
done
[ ${#cut[@]} -gt 0 ] && echo "# cut by DEADLINE=$deadline: ${cut[*]}" | tee -a "$T"
# geometric means and the targets over the rows that have them (kernel: products >= 1e5)
awk '!/^#/ && $2 != "-" {
       if ($16 != "-" && $5 >= 100000) { k += log($16); nk++; if ($16 < 1) kl++ }
       if ($17 != "-") { e += log($17); ne++ }
       if ($18 != "-") { a += log($18); na++; if ($18 < 1) al++ }
       if ($19 != "-") { if ($19 < 0.9) bl++; nb++ } }
     function gm(s, n) { return n ? sprintf("%.3f (%d rows)", exp(s / n), n) : "-" }
     END { printf "# geomean kernel_vs_cusparse %s, %d below 1.0 (products >= 1e5)\n", gm(k, nk), kl
           printf "# geomean e2e_vs_cusparse %s\n", gm(e, ne)
           printf "# geomean auto_vs_cusparse %s, %d below 1.0\n", gm(a, na), al
           printf "# auto_vs_best below 0.9: %d of %d rows\n", bl, nb }' "$T" | tee -a "$T"

#!/usr/bin/env bash
# engine_spmv.sh - partitioned SpMV through the engine against cuSPARSE, in one run on a GPU machine.
# For every input, in the same run: cuSPARSE CSR ALG1; every fixed format on the whole matrix
# (bench_gpu_spmv); `spmv --gpu A` (the advisor's format, no partition); the card's pipeline
# exactly as typed, `pmf < A | partition --alg pmf | spmv --gpu`; the same partition with
# --hybrid; time, GFLOP/s, ratio to cuSPARSE, fraction of the copy bandwidth, peak RSS.
#   bench/engine_spmv.sh BUILD_DIR MATRICES_DIR OUT_DIR [full|full1|full2|scalefree|small|tiny]
# full: the suite (7- and 27-point stencils 160^3 and 100^3, R-MAT 20/22/24, replicas of
# six real matrices of at least 20M entries), the largest last; full1 and full2: the same in two
# calls (full2: stencils 160^3, R-MAT 22 and 24); scalefree: the replicas of memplus, email-Enron
# and wiki-Vote (where the pipeline trailed cuSPARSE); small: one stencil, R-MAT 20, one replica;
# tiny: seconds-sized inputs, to try the script (runs without a GPU too: GPU rows then say so).
# DEADLINE (s, default 480): inputs not started by then are listed as not run.
# Partitions use the machine's calibration (partition --calibrate runs first), f64, 20 runs.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; size=${4:-full}
W=${RVS_BENCH_WORK:-/tmp/rvs-engine-bench}
mkdir -p "$O" "$W"
export PATH="$B:$PATH" RVS_CALIBRATION="$W/calibration" XDG_CACHE_HOME="$W/cache"
N=${ITERS:-20}
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T=$O/engine_spmv.txt L=$O/engine_spmv.log
TIME=/usr/bin/time; [ -x $TIME ] || TIME=
big="stencil7_160:stencil7,160 rmat22:rmat,22,16 stencil27_160:stencil27,160 rmat24:rmat,24,16"
case $size in
  full|full1) inputs="stencil7_100:stencil7,100 stencil27_100:stencil27,100 rmat20:rmat,20,16"
        reps="memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat"; min=20000000 ;;
  full2) inputs=$big; reps= ;;
  scalefree) inputs=; reps="memplus email-Enron wiki-Vote"; min=20000000 ;;
  small) inputs="stencil27_100:stencil27,100 rmat20:rmat,20,16"; reps="email-Enron"; min=20000000 ;;
  tiny) inputs="stencil27_24:stencil27,24 rmat14:rmat,14,16"; reps="wiki-Vote"; min=300000 ;;
  *) echo "engine_spmv.sh: size '$size' is not full, full1, full2, scalefree, small or tiny" >&2; exit 64 ;;
esac
for r in $reps; do inputs="$inputs ${r}_rep:replica,$M/$r.mtx,$min"; done
[ "$size" = full ] && inputs="$inputs $big" # the largest last: the deadline below names any left
{
  echo "# rvskit partitioned SpMV  $stamp  device: ${dev:-none}  f64, median of $N runs"
  echo "# command: bench/engine_spmv.sh $*"
  echo "# cus: cuSPARSE CSR ALG1 ms (events around each call); auto: spmv --gpu A, its format and time"
  echo "# (events around each launch, as bench_gpu_spmv and cuSPARSE); best: fastest fixed format"
  echo "# (bench_gpu_spmv); pipe: pmf < A | partition --alg pmf | spmv --gpu (the plan's CUDA graph,"
  echo "# parts, items run); call: a whole call (x in, SpMV, y out) of that partition with --gpu and"
  echo "# --hybrid (tee keeps that partition), and --hybrid on partition --alg nnz (contiguous rows: a"
  echo "# CPU part's y stays on the host);"
  echo "# x_cus = cus/time (above 1 beats cuSPARSE); frac = fraction of the copy bandwidth; rss MiB of spmv"
  echo "# matrix rows nnz cus_ms auto_fmt auto_ms auto_x_cus best_fmt best_ms auto/best pipe_ms pipe_x_cus pipe/auto parts items pipe_gflops pipe_frac gpu_call_ms hyb_call_ms hyb/gpu hyb_cpu_items nnz_hyb_call_ms nnz_hyb/gpu nnz_cpu_items rss_mb"
} > "$T"
: > "$L"

# field N of the line of file F starting with P
get() { awk -v p="$1" -v n="$3" '$1 == p { print $n; exit }' "$2"; }
# peak RSS (MiB) from /usr/bin/time -v output in F
rss() { awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$1" 2>/dev/null; }
run() { # label, then the command (logged, time-limited, /usr/bin/time -v into $W/time)
  local label=$1; shift
  echo "## $label: $*" >> "$L"
  if [ -n "$TIME" ]; then timeout 300 $TIME -v -o "$W/time" "$@" 2>> "$L"; else timeout 300 "$@" 2>> "$L"; fi
}

partition --calibrate > "$O/calibration.txt" 2>> "$L"
echo "# calibration: $(tr '\n' ' ' < "$O/calibration.txt")" >> "$T"
start=$(date +%s)
for spec in $inputs; do
  name=${spec%%:*}; args=$(echo "${spec#*:}" | tr ',' ' ')
  if [ $(($(date +%s) - start)) -gt ${DEADLINE:-480} ]; then # one call must end: say what was left
    echo "# $name: not run, the run had used its ${DEADLINE:-480} s" >> "$T"; continue
  fi
  A=$W/$name.rvs
  [ -s "$A" ] || run "gen $name" rvsgen $args -o "$A" >> "$L" || { echo "# $name: rvsgen failed" >> "$T"; continue; }
  run "formats $name" bench_gpu_spmv --iters $N --precision f64 --label "$name" "$A" > "$W/fmt.txt"
  cat "$W/fmt.txt" >> "$L"
  cus=$(awk '$3 == "cusparse-csr-alg1" { print $6 }' "$W/fmt.txt")
  read -r best_fmt best_ms < <(awk '$3 !~ /^cusparse/ && $12 == "ok" && $6 != "-" { print $3, $6 }' "$W/fmt.txt" | sort -g -k2 | head -1)
  run "auto $name" spmv --gpu -n $N "$A" > "$W/auto.txt"; cat "$W/auto.txt" >> "$L"
  # auto's format(s) from the plan's item lines (a matrix over 8M entries runs as row blocks,
  # each an item), its time from the graph of all of them, as the pipeline's
  auto_fmt=$(awk '/^# [0-9]+ / && $4 == "gpu" && !seen[$5]++ { f = f (f ? "+" : "") $5 } END { print f }' "$W/auto.txt")
  auto_ms=$(get kernels "$W/auto.txt" 6)
  run "pipeline $name" sh -c "pmf < '$A' | partition --alg pmf | tee '$W/part.rvs' | spmv --gpu -n $N" > "$W/pipe.txt"
  cat "$W/pipe.txt" >> "$L"; mb=$(rss "$W/time")
  pipe_ms=$(get kernels "$W/pipe.txt" 6); pipe_gf=$(get kernels "$W/pipe.txt" 7); pipe_frac=$(get kernels "$W/pipe.txt" 9)
  gpu_call=$(get total "$W/pipe.txt" 6)
  parts=$(sed -n 's/.*partition pmf of \([0-9]*\) parts.*/\1/p' "$W/pipe.txt" | head -1)
  items=$(sed -n 's/^# plan: mode gpu, f64, \([0-9]*\) item.*/\1/p' "$W/pipe.txt" | head -1)
  run "hybrid $name" spmv --hybrid -n $N "$W/part.rvs" > "$W/hyb.txt"; cat "$W/hyb.txt" >> "$L"
  hyb_call=$(get total "$W/hyb.txt" 6); hyb_cpu=$(grep -c '^# [0-9]* [0-9,]* cpu ' "$W/hyb.txt")
  run "hybrid nnz $name" sh -c "pmf < '$A' | partition --alg nnz | spmv --hybrid -n $N" > "$W/hybn.txt"
  cat "$W/hybn.txt" >> "$L"
  nhyb_call=$(get total "$W/hybn.txt" 6); nhyb_cpu=$(grep -c '^# [0-9]* [0-9,]* cpu ' "$W/hybn.txt")
  awk -v m="$name" -v r="$(get kernels "$W/pipe.txt" 4)" -v z="$(get kernels "$W/pipe.txt" 5)" -v c="${cus:--}" \
      -v af="${auto_fmt:--}" -v a="${auto_ms:--}" -v bf="${best_fmt:--}" -v b="${best_ms:--}" -v p="${pipe_ms:--}" \
      -v np="${parts:--}" -v ni="${items:--}" -v pg="${pipe_gf:--}" -v pf="${pipe_frac:--}" -v gc="${gpu_call:--}" \
      -v hc="${hyb_call:--}" -v hp="$hyb_cpu" -v nc="${nhyb_call:--}" -v npc="$nhyb_cpu" -v mb="${mb:--}" \
      'function q(x, y) { return x + 0 > 0 && y + 0 > 0 ? sprintf("%.3f", x / y) : "-" }
      BEGIN { print m, r, z, c, af, a, q(c, a), bf, b, q(a, b), p, q(c, p), q(p, a), np, ni, pg, pf, gc, hc, q(hc, gc), hp,
                    nc, q(nc, gc), npc, mb }' >> "$T"
  rm -f "$W/part.rvs"
  [ "$size" = full ] && rm -f "$A" # the disk holds one input at a time
done
cat "$T"

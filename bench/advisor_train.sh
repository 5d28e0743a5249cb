#!/usr/bin/env bash
# advisor_train.sh - what the advisor's model is fitted to, measured on the device it will run on:
# every candidate format of every input timed whole (bench_advisor), f64 and f32, with cuSPARSE
# CSR ALG1 beside on the GPU. bench/advisor_fit.py turns the table into engine/advisor_coef.h.
#   bench/advisor_train.sh BUILD_DIR MATRICES_DIR OUT_DIR [gpu|cpu]
# Inputs: the shared matrices that are square, real or pattern, with at least 10^4 entries
# (INDEX.tsv; without it every .mtx[.gz] in MATRICES_DIR), as they are and as block replicas of
# NNZ entries [16M: past the L2 cache of an H100 or H200 in f32 too], then 3-D stencils and R-MAT
# graphs. DEADLINE seconds [420]: inputs not started by then are listed as not run.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; dev=${4:-gpu}
W=${RVS_BENCH_WORK:-/tmp/rvs-advisor-train}
NNZ=${NNZ:-16000000}
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
T=$O/advisor-$dev.txt
if [ -s "$M/INDEX.tsv" ]; then
  names=$(awk -F'\t' 'NR > 1 && $2 == $3 && $4 >= 10000 && $5 != "complex" { print $1 }' "$M/INDEX.tsv")
else
  names=$(ls "$M" | sed -n 's/\.mtx\(\.gz\)\{0,1\}$//p')
fi
file_of() { if [ -e "$M/$1.mtx" ]; then echo "$M/$1.mtx"; else echo "$M/$1.mtx.gz"; fi; }
# generated and replicas first: a deadline leaves out some of the small, quick inputs
inputs="stencil7_100:stencil7,100 stencil27_80:stencil27,80 rmat20:rmat,20,16 rmat22_4:rmat,22,4"
for n in $names; do inputs="$inputs ${n}_rep:replica:$(file_of "$n")"; done
for n in $names; do inputs="$inputs $n:file:$(file_of "$n")"; done
{
  echo "# advisor training table  $(date -u +%Y-%m-%dT%H:%MZ)  device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo cpu) ($dev)  cores: $(nproc)"
  echo "# command: bench/advisor_train.sh $*  (NNZ=$NNZ)"
  bench_advisor --header
} > "$T"
start=$(date +%s)
for spec in $inputs; do
  name=${spec%%:*}; rest=${spec#*:}; kind=${rest%%:*}; arg=${rest#*:}
  if [ $(($(date +%s) - start)) -gt "${DEADLINE:-420}" ]; then
    echo "# $name: not run, the run had used its ${DEADLINE:-420} s" >> "$T"; continue
  fi
  case $kind in
    file) A=$arg ;;
    replica) A=$W/$name.rvs; [ -s "$A" ] || rvsgen replica "$arg" "$NNZ" -o "$A" 2>> "$O/train.log" ;;
    *) A=$W/$name.rvs; [ -s "$A" ] || rvsgen $(echo "$arg" | tr ',' ' ') -o "$A" 2>> "$O/train.log" ;;
  esac
  timeout 120 bench_advisor --device "$dev" --iters 9 --label "$name" "$A" >> "$T" 2>> "$O/train.log" ||
    echo "# $name: bench_advisor failed ($?)" >> "$T"
  [ "$kind" = file ] || rm -f "$A"
done
echo "# done in $(($(date +%s) - start)) s" >> "$T"
tail -3 "$T"

#!/usr/bin/env bash
# cpu_spmv.sh - CPU SpMV per format against SuiteSparse:GraphBLAS GrB_mxv at the same thread
# count, on the larger shared matrices and on generated ones; writes the
# table and its picture (plots/formats.gp).
#   bench/cpu_spmv.sh BUILD_DIR MATRICES_DIR OUT_DIR [THREADS] [ITERS]
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}
threads=${4:-$(nproc)}; iters=${5:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
W=$here/bench/work
mkdir -p "$O" "$W"
export PATH="$B:$PATH"
T=$O/cpu_spmv.txt
{
  echo "# rvskit CPU SpMV benchmark  $(date -u +%Y-%m-%dT%H:%MZ)  cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')  threads: $threads"
  echo "# command: bench/cpu_spmv.sh $*"
} >"$T"

gen() { # name, then rvsgen arguments
  local name=$1; shift
  [ -s "$W/$name.rvs" ] || rvsgen -o "$W/$name.rvs" "$@" || exit 1
}
gen stencil7-60 stencil7 60
gen stencil27-40 stencil27 40
gen rmat-18-16 rmat 18 16

# the eight largest real (or pattern/integer) shared matrices by declared entries
inputs=$(awk -F'\t' 'NR > 1 && $5 != "complex" { print $4, $1 }' "$M/INDEX.tsv" | sort -k1,1nr | head -8 \
         | while read -r _ name; do echo "$M/$name.mtx"; done)
first=1
for f in $inputs "$W/stencil7-60.rvs" "$W/stencil27-40.rvs" "$W/rmat-18-16.rvs"; do
  if [ $first = 1 ]; then hdr=; first=0; else hdr=--no-header; fi
  OMP_PROC_BIND=close bench_cpu_spmv $hdr --threads "$threads" --iters "$iters" "$f" | tee -a "$T"
done
gnuplot -e "in='$T';out='$O/cpu_spmv.png'" "$here/plots/formats.gp" && echo "picture: $O/cpu_spmv.png"

#!/bin/bash
# peak_memory.sh - peak resident memory of every program on one big matrix, against the matrix's bytes.
# Usage: bench/peak_memory.sh [N] [BUILD_DIR]   (N: the 7-point stencil N^3, default 200; RVS_BENCH_DIR:
# where the inputs go, default bench/work). Needs GNU time (/usr/bin/time -v).
# Columns: program, peak RSS in MB, the stream it read in MB, peak over that stream, the command.
# The spmv rows on q.rvs (4 pmf parts of scattered rows) build one item from those rows. The
# last two rows build ELLR from the hub in the library (bench_rows): whole, and in row blocks of
# 8M entries that give the hub's pages back as they go (rvs_fmt_build_rows).
# "matrix MB" in the header is the CSR hub's bytes (row pointers, columns, values).
set -eu
n=${1:-200}
here=$(cd "$(dirname "$0")" && pwd)
bin=${2:-$here/../build}
dir=${RVS_BENCH_DIR:-$here/work}
mkdir -p "$dir"
[ -x /usr/bin/time ] || { echo "peak_memory.sh: needs /usr/bin/time (GNU time)" >&2; exit 69; }
s="$dir/s$n.rvs"
"$bin/rvsgen" stencil7 "$n" >"$s"
"$bin/rvsgen" -o "$dir/s$n.mtx" stencil7 "$n"
"$bin/pmf" "$s" >"$dir/p.rvs"
"$bin/partition" --alg pmf --cp 1,1,1,1 "$dir/p.rvs" >"$dir/q.rvs"
"$bin/convert" --to ellr "$s" >"$dir/e.rvs"
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1e6 }'; }
echo "# peak RSS, 7-point stencil $n^3 (stream $(mb "$s") MB); host $(hostname), $(nproc) cores, $(date -u +%Y-%m-%d)"
printf "%-22s %9s %10s %8s  %s\n" program peak_MB input_MB ratio command
run() {   # run NAME INPUT COMMAND...
  local name=$1 input=$2
  shift 2
  /usr/bin/time -v -o "$dir/time.txt" "$@" >/dev/null 2>"$dir/err.txt" || { cat "$dir/err.txt" >&2; exit 1; }
  local kb
  kb=$(awk -F: '/Maximum resident set size/ { print $2 + 0 }' "$dir/time.txt")
  awk -v n="$name" -v k="$kb" -v i="$(mb "$input")" -v c="$(echo "$*" | sed "s|$bin/||; s|$dir/||g")" \
    'BEGIN { printf "%-22s %9.1f %10.1f %8.2f  %s\n", n, k * 1024 / 1e6, i, k * 1024 / 1e6 / i, c }'
}
run "pmf" "$s" "$bin/pmf" "$s"
run "pmf (.mtx)" "$s" "$bin/pmf" "$dir/s$n.mtx"
run "partition" "$dir/p.rvs" "$bin/partition" --alg pmf --cp 1,1,1,1 "$dir/p.rvs"
run "convert --to ellr" "$s" "$bin/convert" --to ellr "$s"
run "convert (4 parts)" "$dir/q.rvs" "$bin/convert" --to ellr "$dir/q.rvs"
run "spmv --cpu" "$s" "$bin/spmv" --cpu -n 2 "$s"
run "spmv --cpu --check" "$s" "$bin/spmv" --cpu -n 2 --check "$s"
run "spmv --cpu (ellr)" "$dir/e.rvs" "$bin/spmv" --cpu -n 2 "$dir/e.rvs"
# the 4 pmf parts (scattered rows) fused into one item built from the hub's rows: ELLR, PELLR
run "spmv --cpu -f ellr (q)" "$dir/q.rvs" "$bin/spmv" --cpu -n 2 -f ellr "$dir/q.rvs"
run "spmv --cpu -f pellr (q)" "$dir/q.rvs" "$bin/spmv" --cpu -n 2 -f pellr "$dir/q.rvs"
# the library alone: ELLR of the whole hub beside it, and in row blocks giving the hub back
run "lib: ellr whole" "$s" "$bin/bench_rows" ellr whole 8388608 "$s"
run "lib: ellr row blocks" "$s" "$bin/bench_rows" ellr rows 8388608 "$s"
rm -f "$s" "$dir/s$n.mtx" "$dir/p.rvs" "$dir/q.rvs" "$dir/e.rvs" "$dir/time.txt" "$dir/err.txt"

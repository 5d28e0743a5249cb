#!/usr/bin/env bash
# peak_memory_gpu.sh - peak host RSS (/usr/bin/time -v) of spmv --gpu on the 7-point stencil 200^3: the whole
# stream (first with a fresh trial cache, then with the decision the first run cached), and
# pmf-partitioned as the card types it (pmf | partition --alg pmf), and in four pmf parts of about
# 14M entries each (partition --alg pmf --cp 1,1,1,1), fresh and cached.
#   bench/peak_memory_gpu.sh OUT_DIR [BUILD_DIR]   (from the project root; BUILD_DIR [build];
#   RVS_BENCH_WORK: where the inputs go [/dev/shm/rss])
# peak_MB is GNU time's KiB / 1024: MiB, as in every table this script has written.
set -uo pipefail
O=${1:?out dir}; B=$(cd "${2:-build}" && pwd); mkdir -p "$O"
export PATH=$B:$PATH XDG_CACHE_HOME=$(mktemp -d) RVS_TRACE_MEM=1; W=${RVS_BENCH_WORK:-/dev/shm/rss}; mkdir -p $W; t0=$(date +%s)
[ -s $W/s200.rvs ] || rvsgen stencil7 200 -o $W/s200.rvs
[ -s $W/q.rvs ] || { pmf $W/s200.rvs > $W/p.rvs && partition --alg pmf $W/p.rvs > $W/q.rvs; }
[ -s $W/q4.rvs ] || partition --alg pmf --cp 1,1,1,1 $W/p.rvs > $W/q4.rvs
ls -l $W | tee $O/gpurss.txt
run() { local l=$1; shift; /usr/bin/time -v "$@" > $O/out.txt 2> $O/time.txt; rc=$?
  printf '%-28s rc %d peak_MB %8.1f  %s\n' "$l" $rc "$(awk '/Maximum resident/{print $6/1024}' $O/time.txt)" "$*" | tee -a $O/gpurss.txt
  grep -E "^# (plan|spmv)" $O/out.txt | head -3 >> $O/gpurss.txt
  sed -n 's/^rvs: memory: /#   memory: /p' $O/time.txt >> $O/gpurss.txt; }   # the steps (RVS_TRACE_MEM)
run "spmv --gpu s200" spmv --gpu -n 5 $W/s200.rvs
run "spmv --gpu s200 (cached)" spmv --gpu -n 5 $W/s200.rvs   # the decision from the trial cache: no advisor
run "spmv --gpu q (pmf parts)" spmv --gpu -n 5 $W/q.rvs
run "spmv --gpu q (cached)" spmv --gpu -n 5 $W/q.rvs
run "spmv --gpu --check q" spmv --gpu -n 5 --check $W/q.rvs
run "spmv --gpu -f ellr q" spmv --gpu -n 5 -f ellr $W/q.rvs
run "spmv --gpu q4 (4 pmf parts)" spmv --gpu -n 5 $W/q4.rvs
run "spmv --gpu q4 (cached)" spmv --gpu -n 5 $W/q4.rvs
echo "# gpurss $(( $(date +%s) - t0 )) s" | tee -a $O/gpurss.txt

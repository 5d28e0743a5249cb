#!/usr/bin/env bash
# big_matrix.sh - past 2^31 non-zeros through the whole pipeline, larger
# than the device budget, with peak host memory of every program and the device's memory.
#   bench/big_matrix.sh SECTION BUILD
# SECTION: pipe   rvsgen stencil7 N | pmf | partition (4 GPU parts by nnz) | convert (f32, ELLR) |
#                 spmv --gpu --check, peak RSS of each program (BIG_N, default 680: 2.2e9 entries)
#          stream rvsgen stencil7 N | spmv --gpu --gpu-mem BIG_MEM --check (f32 ELLR: row blocks
#                 that fit stay, the rest are streamed in chunks)
#          spgemm C = A*A of the 27-point stencil SPG_N^3 (default 150: 3.4M rows, 2.46e9 products,
#                 past 2^31) on the GPU, C written block by block to a stream file, checked
#                 against CSparse; peak RSS and device memory
#          small  a matrix that fits (SMALL_N, default 300): resident against streamed calls, row
#                 blocks against one kernel, peak RSS of spmv on the 200^3 stencil (the first
#                 GPU and CPU runs try formats; gpu2 and the --check runs find the trial cache)
# Peak RSS: GNU time where present, else the children's ru_maxrss through python3. Device memory:
# nvidia-smi sampled every 200 ms (the largest 'memory.used' while the section ran). The summary
# goes to stdout; logs and inputs to BIG_WORK (default /tmp/big).
set -uo pipefail
sec=${1:?section}; B=${2:?build dir}
N=${BIG_N:-680}; MEM=${BIG_MEM:-8G}; SN=${SMALL_N:-300}; W=${BIG_WORK:-/tmp/big}; O=$W/logs
export PATH=$B:$PATH
mkdir -p "$O" "$W"

# peak FILE CMD...: run CMD, its peak RSS in kB into FILE as GNU time words it.
peak() {
  local f=$1; shift
  if [ -x /usr/bin/time ]; then /usr/bin/time -v -o "$f" "$@"; return; fi
  python3 -c 'import resource, subprocess, sys, time
t = time.time(); r = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("Maximum resident set size (kbytes): %d\nElapsed (wall clock) time (s): %.1f\n"
            % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.time() - t))
sys.exit(r)' "$f" "$@"
}
kb() { awk -F: '/Maximum resident set size/ { print $2 + 0 }' "$1"; }
gpu_watch() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$1" 2>/dev/null & echo $!; }
gpu_peak() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; sort -n "$2" | tail -1; }
# table NAME... : peak RSS of each program (files $O/rss-NAME.txt) over the hub's bytes HUB.
table() {
  printf "%-10s %10s %8s\n" program peak_GB x_hub
  for p in "$@"; do
    awk -v p="$p" -v k="$(kb "$O/rss-$p.txt")" -v h="$HUB" 'BEGIN { printf "%-10s %10.2f %8.2f\n", p, k * 1024 / 1e9, k * 1024 / h }'
  done
}

case "$sec" in
  pipe)
    rows=$((N * N * N)); nnz=$((7 * rows - 6 * N * N))
    HUB=$((rows * 8 + 8 + nnz * 8)) # f32 hub: row pointers, columns, values
    echo "# stencil7 $N: $rows rows, $nnz entries (2^31 = 2147483648), f32 hub $((HUB / 1000000)) MB"
    g=$(gpu_watch "$O/gpumem-pipe.log")
    t0=$(date +%s)
    peak "$O/rss-rvsgen.txt" rvsgen stencil7 "$N" | peak "$O/rss-pmf.txt" pmf |
      peak "$O/rss-partition.txt" partition --alg nnz --cp 1:gpu,1:gpu,1:gpu,1:gpu |
      peak "$O/rss-convert.txt" convert -p f32 --gpu-format ellr |
      peak "$O/rss-spmv.txt" spmv --gpu --check -n 5 > "$O/pipe-spmv.txt" 2> "$O/pipe-spmv.err"
    echo "# pipeline status ${PIPESTATUS[*]}, $(($(date +%s) - t0)) s; device memory peak $(gpu_peak "$g" "$O/gpumem-pipe.log") MiB"
    echo "# command: rvsgen stencil7 $N | pmf | partition --alg nnz --cp 1:gpu,1:gpu,1:gpu,1:gpu | convert -p f32 --gpu-format ellr | spmv --gpu --check -n 5"
    table rvsgen pmf partition convert spmv
    cat "$O/pipe-spmv.txt" "$O/pipe-spmv.err" ;;
  stream)
    rows=$((N * N * N)); nnz=$((7 * rows - 6 * N * N))
    HUB=$((rows * 8 + 8 + nnz * 12)) # the f64 hub spmv reads
    g=$(gpu_watch "$O/gpumem-stream.log")
    t0=$(date +%s)
    rvsgen stencil7 "$N" | peak "$O/rss-spmvstream.txt" spmv --gpu -f ellr -p f32 --gpu-mem "$MEM" --check -n 5 \
      > "$O/stream-spmv.txt" 2> "$O/stream-spmv.err"
    echo "# status ${PIPESTATUS[*]}, $(($(date +%s) - t0)) s; device memory peak $(gpu_peak "$g" "$O/gpumem-stream.log") MiB"
    echo "# command: rvsgen stencil7 $N | spmv --gpu -f ellr -p f32 --gpu-mem $MEM --check -n 5"
    table spmvstream
    cat "$O/stream-spmv.txt" "$O/stream-spmv.err" ;;
  small)
    rvsgen stencil7 "$SN" > "$W/s$SN.rvs"
    for run in "resident:" "streamed:--gpu-mem 1G" "oneblock:--baseline"; do
      name=${run%%:*}
      # shellcheck disable=SC2086
      spmv --gpu -f ellr -p f32 -n 20 ${run#*:} "$W/s$SN.rvs" > "$O/small-$name.txt" 2>&1
      echo "## $name: spmv --gpu -f ellr -p f32 -n 20 ${run#*:} s$SN.rvs"
      grep -E '^# plan|^kernels|^gpu |^total|^cusparse' "$O/small-$name.txt"
    done
    rvsgen stencil7 200 > "$W/s200.rvs"
    HUB=$(stat -c %s "$W/s200.rvs")
    for c in "gpu:--gpu" "gpu2:--gpu" "gpucheck:--gpu --check" "cpu:--cpu" "cpucheck:--cpu --check"; do
      # shellcheck disable=SC2086
      peak "$O/rss-${c%%:*}.txt" spmv ${c#*:} -n 5 "$W/s200.rvs" > /dev/null
    done
    echo "## peak RSS of spmv on the 200^3 stencil (x_hub: over the stream's $HUB bytes)"
    table gpu gpu2 gpucheck cpu cpucheck
    rm -f "$W/s$SN.rvs" "$W/s200.rvs" ;;
  spgemm)
    SN=${SPG_N:-150}
    rvsgen stencil27 "$SN" -o "$W/a.rvs" || exit 1
    g=$(gpu_watch "$O/gpumem-spgemm.log")
    t0=$(date +%s)
    peak "$O/rss-spgemm.txt" spgemm --gpu --check -o "$W/c.rvs" "$W/a.rvs" > "$O/spgemm.txt" 2>&1
    echo "# spgemm status $?, $(($(date +%s) - t0)) s; device memory peak $(gpu_peak "$g" "$O/gpumem-spgemm.log") MiB"
    echo "# command: rvsgen stencil27 $SN -o a.rvs; spgemm --gpu --check -o c.rvs a.rvs; C stream $(stat -c %s "$W/c.rvs" 2>/dev/null) bytes"
    echo "# spgemm peak RSS $(kb "$O/rss-spgemm.txt") kB (A stream $(stat -c %s "$W/a.rvs") bytes)"
    cat "$O/spgemm.txt"
    t0=$(date +%s)   # the same without --check: C goes to the file block by block
    peak "$O/rss-spgemm-nocheck.txt" spgemm --gpu -o "$W/c.rvs" "$W/a.rvs" > "$O/spgemm-nocheck.txt" 2>&1
    echo "# spgemm --gpu -o c.rvs a.rvs (no --check): status $?, $(($(date +%s) - t0)) s, peak RSS $(kb "$O/rss-spgemm-nocheck.txt") kB"
    rm -f "$W/a.rvs" "$W/c.rvs" ;;
esac

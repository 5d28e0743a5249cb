#!/bin/bash
# compressed_read.sh - reading compressed Matrix Market and SNAP edge lists: pmf on the file (decoded
# inside, as it arrives) against the pipe a user would write otherwise (`xz -dc F | pmf -`) and
# against the decompressor alone (`xz -dc F >/dev/null`, the floor for a one-threaded decoder);
# the plain file and the same matrix as an edge list (--edges) beside them.
# Usage: bench/compressed_read.sh [SCALE] [BUILD_DIR] [RUNS]   (an R-MAT graph of 2^SCALE vertices,
# 16 edges each, default 20; RUNS: median of, default 3; RVS_BENCH_DIR: where the inputs go,
# default bench/work). Needs GNU time (/usr/bin/time) and the gzip, bzip2, xz, zstd commands.
# Columns: input, its MB, then seconds (median) of pmf on the file, of the pipe, of the decoder
# alone, pmf's peak RSS in MB on the file, and pipe / file (> 1: the built-in read is faster).
set -eu
scale=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
bin=${2:-$here/../build}
runs=${3:-3}
dir=${RVS_BENCH_DIR:-$here/work}
mkdir -p "$dir"
m=$dir/rmat$scale.mtx
[ -s "$m" ] || "$bin/rvsgen" -o "$m" rmat "$scale" 16
[ -s "$dir/rmat$scale.txt" ] || awk 'NR > 2 && !/^%/ { print ($1 - 1) "\t" ($2 - 1) "\t" $3 }' "$m" >"$dir/rmat$scale.txt"
for z in gzip:gz bzip2:bz2 xz:xz zstd:zst; do
  [ -s "$m.${z#*:}" ] || "${z%%:*}" -c "$m" >"$m.${z#*:}"
done

# median SECONDS of RUNS runs of the command line $1 (bash -c)
median() {
  local t=()
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f %e -o "$dir/time" bash -c "$1" >/dev/null 2>&1
    t+=("$(tail -1 "$dir/time")")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}
# peak RSS in MB of the command line $1
rss() { /usr/bin/time -f %M -o "$dir/time" bash -c "exec $1" >/dev/null 2>&1; echo $(($(tail -1 "$dir/time") / 1024)); }
mb() { echo "scale=1; $(stat -c %s "$1") / 1000000" | bc; }

echo "# compressed_read.sh $scale $runs  $(date -u +%Y-%m-%d)  $(nproc) cores  $(uname -m)  $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "# R-MAT $scale x 16 ($(sed -n 2p "$m")), pmf -o /dev/null; seconds are medians of $runs runs"
printf '%-14s %8s %8s %8s %8s %8s %8s\n' "#input" MB file_s pipe_s decode_s rss_MB pipe/file
for z in none gzip:gz bzip2:bz2 xz:xz zstd:zst; do
  if [ "$z" = none ]; then f=$m pipe="cat $m | $bin/pmf -o /dev/null -" dec="cat $m"; else
    f=$m.${z#*:} pipe="${z%%:*} -dc $f | $bin/pmf -o /dev/null -" dec="${z%%:*} -dc $f"; fi
  a=$(median "$bin/pmf -o /dev/null $f") b=$(median "$pipe") c=$(median "$dec")
  printf '%-14s %8s %8s %8s %8s %8s %8.2f\n' "$(basename "$f")" "$(mb "$f")" "$a" "$b" "$c" \
    "$(rss "$bin/pmf -o /dev/null $f")" "$(echo "$b / $a" | bc -l)"
done
e=$dir/rmat$scale.txt
a=$(median "$bin/pmf --edges -o /dev/null $e")
printf '%-14s %8s %8s %8s %8s %8s %8s\n' "$(basename "$e")" "$(mb "$e")" "$a" - - "$(rss "$bin/pmf --edges -o /dev/null $e")" -

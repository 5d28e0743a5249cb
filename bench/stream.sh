#!/bin/bash
# stream.sh - RVS stream throughput against cat through real pipes: prints "what bytes seconds
# GB_per_s" rows (medians of REPEAT runs) and the ratios to `cat | cat`.
# Usage: bench/stream.sh [NNZ] [f32|f64] [REPEAT]   (RVS_BIN: folder of bench_stream, default
# ./build; RVS_BENCH_DIR: where the stream file goes, default bench/work)
#   write_file   bench_stream write > FILE            the writer alone, into the page cache
#   read_file    bench_stream read < FILE             the reader alone, from the page cache
#   write|cat    bench_stream write | cat >/dev/null  the writer's rate into a pipe
#   cat|read     cat FILE | bench_stream read         the reader's rate from a pipe
#   write|read   bench_stream write | bench_stream read   both ends ours (the reader's clock)
#   cat|cat      cat FILE | cat >/dev/null            the bar (wall clock)
set -u
nnz=${1:-50000000}
vt=${2:-f64}
rep=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
bin=${RVS_BIN:-$here/../build}
dir=${RVS_BENCH_DIR:-$here/work}
mkdir -p "$dir"
file="$dir/stream-$nnz-$vt.rvs"
B="$bin/bench_stream"
[ -x "$B" ] || { echo "stream.sh: $B not built" >&2; exit 66; }

# seconds of wall-clock time a command line takes
wall() { local t0 t1; t0=$(date +%s.%N); bash -c "$1"; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
row() { awk -v w="$1" -v b="$2" -v s="$3" 'BEGIN { printf "%-12s %14.0f %10.4f %10.3f\n", w, b, s, b / s / 1e9 }'; }
# seconds column of bench_stream's own report line
secs() { awk '{ print $3 }'; }

echo "# stream of a generated CSR: nnz $nnz ($vt values, 32-bit columns, 10 per row); median of $rep runs"
echo "# host $(hostname), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
printf "%-12s %14s %10s %10s\n" what bytes seconds GB_per_s
"$B" crc 512 2>&1 >/dev/null
"$B" write "$nnz" "$vt" 2>/dev/null >"$file"
bytes=$(wc -c <"$file")
cat "$file" >/dev/null   # warm the page cache
declare -A t
for i in $(seq "$rep"); do
  t[write_file]+="$("$B" write "$nnz" "$vt" 2>&1 >"$dir/w.rvs" | secs) "
  t[read_file]+="$("$B" read <"$file" 2>&1 | secs) "
  t[write_cat]+="$( { "$B" write "$nnz" "$vt" | cat >/dev/null; } 2>&1 | secs) "
  t[cat_read]+="$(cat "$file" | "$B" read 2>&1 | secs) "
  t[write_read]+="$("$B" write "$nnz" "$vt" 2>/dev/null | "$B" read 2>&1 | secs) "
  t[cat_cat]+="$(wall "cat '$file' | cat >/dev/null") "
done
rm -f "$dir/w.rvs"
for k in write_file read_file write_cat cat_read write_read cat_cat; do
  m=$(echo "${t[$k]}" | tr ' ' '\n' | grep . | median)
  t[$k]=$m
  row "$(echo "$k" | sed 's/_cat$/|cat/; s/_read$/|read/; s/^cat_/cat|/; s/write|read/write|read/')" "$bytes" "$m"
done
awk -v c="${t[cat_cat]}" -v w="${t[write_cat]}" -v r="${t[cat_read]}" -v b="${t[write_read]}" 'BEGIN {
  printf "# ratio to cat|cat (rate over rate): writer %.2f  reader %.2f  writer|reader %.2f\n", c / w, c / r, c / b }'
rm -f "$file"

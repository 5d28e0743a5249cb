#!/bin/bash
# stream.sh - RVS stream throughput against cat: prints "what bytes seconds GB_per_s".
# Usage: bench/stream.sh [NNZ] [f32|f64]   (RVS_BIN: folder of bench_stream, default ./build;
# RVS_BENCH_DIR: where the stream file goes, default bench/work)
set -u
nnz=${1:-50000000}
vt=${2:-f64}
here=$(cd "$(dirname "$0")" && pwd)
bin=${RVS_BIN:-$here/../build}
dir=${RVS_BENCH_DIR:-$here/work}
mkdir -p "$dir"
file="$dir/stream-$nnz-$vt.rvs"
B="$bin/bench_stream"
[ -x "$B" ] || { echo "stream.sh: $B not built" >&2; exit 66; }

# seconds of wall-clock time a command line takes
wall() { local t0 t1; t0=$(date +%s.%N); bash -c "$1"; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
row() { awk -v w="$1" -v b="$2" -v s="$3" 'BEGIN { printf "%-12s %14.0f %10.4f %10.3f\n", w, b, s, b / s / 1e9 }'; }

echo "# stream of a generated CSR: nnz $nnz ($vt values, 32-bit columns, 10 per row)"
printf "%-12s %14s %10s %10s\n" what bytes seconds GB_per_s
"$B" crc 512 2>&1 >/dev/null
"$B" write "$nnz" "$vt" >"$file" 2>"$dir/w.txt" && sed 's/^write /write_file/' "$dir/w.txt"
bytes=$(wc -c <"$file")
cat "$file" >/dev/null                       # warm the page cache
"$B" read <"$file" 2>&1 | sed 's/^read /read_file/'
for i in 1 2 3; do                            # the writer generates first; the reader times from its first byte
  "$B" write "$nnz" "$vt" 2>/dev/null | "$B" read 2>&1 | sed 's/^read /pipe_w|r/'
done
for i in 1 2 3; do
  row "cat|cat" "$bytes" "$(wall "cat '$file' | cat >/dev/null")"
done
row "cat|read" "$bytes" "$(wall "cat '$file' | '$B' read 2>/dev/null")"
row "dd_1M|dd" "$bytes" "$(wall "dd if='$file' bs=1M status=none | dd of=/dev/null bs=1M status=none")"
rm -f "$file" "$dir/w.txt"

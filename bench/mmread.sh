#!/bin/bash
# mmread.sh - Matrix Market read throughput: rvskit (bench_mmread) against scipy.io.mmread.
# usage: bench/mmread.sh [ENTRIES] [BUILD_DIR]
#   ENTRIES   size of the generated matrix (default 20000000; 100000000 on a large machine)
#   BUILD_DIR where bench_mmread was built (default build)
# RVS_MMREAD_REPEAT: runs of each reader, best kept (default 3, 1 for files over 100 MB)
# Prints: file MB rvskit_MB_per_s scipy_MB_per_s ratio
set -eu
here=$(cd "$(dirname "$0")" && pwd)
entries=${1:-20000000}
build=${2:-$here/../build}
bin=$build/bench_mmread
matrices=${RVS_MATRICES:-$here/../../shared/matrices}
work=$here/work
python=${PYTHON:-/usr/bin/python3}
[ -x "$bin" ] || { echo "mmread.sh: $bin not built" >&2; exit 66; }
mkdir -p "$work"

gen=$work/random_$entries.mtx
[ -s "$gen" ] || "$bin" --generate "$gen" "$entries"

files=()
if [ -d "$matrices" ]; then
  while read -r f; do files+=("$matrices/$f"); done < <(cd "$matrices" && ls -S -- *.mtx | head -3)
fi
files+=("$gen")

# how many runs of each reader: RVS_MMREAD_REPEAT, else 3 (1 for files over 100 MB)
runs() {
  if [ -n "${RVS_MMREAD_REPEAT:-}" ]; then echo "$RVS_MMREAD_REPEAT"
  elif [ "$(stat -c %s "$1")" -gt 100000000 ]; then echo 1
  else echo 3; fi
}

# rvskit: best of runs
rvskit_rate() {
  local n
  n=$(runs "$1")
  "$bin" -n "$n" "$1" | awk 'NR == 2 { print $4 }'
}

# scipy: best of the same number of runs, MB/s
scipy_rate() {
  local n
  n=$(runs "$1")
  "$python" - "$1" "$n" <<'PY'
import os, sys, time
import scipy.io
path, n = sys.argv[1], int(sys.argv[2])
best = None
for _ in range(n):
    t = time.perf_counter()
    scipy.io.mmread(path)
    t = time.perf_counter() - t
    best = t if best is None or t < best else best
print("%.1f" % (os.path.getsize(path) / 1e6 / best))
PY
}

echo "# host $(hostname), $(nproc) cores, OMP_NUM_THREADS=${OMP_NUM_THREADS:-all}, $(date -u +%Y-%m-%dT%H:%MZ);" \
  "scipy $("$python" -c 'import scipy; print(scipy.__version__)' 2>/dev/null || echo missing)"
printf '%-24s %10s %16s %15s %8s\n' file MB rvskit_MB_per_s scipy_MB_per_s ratio
for f in "${files[@]}"; do
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
  r=$(rvskit_rate "$f")
  s=$(scipy_rate "$f")
  printf '%-24s %10s %16s %15s %8s\n' "$(basename "$f")" "$mb" "$r" "$s" \
    "$(awk -v r="$r" -v s="$s" 'BEGIN { printf "%.1f", r / s }')"
done

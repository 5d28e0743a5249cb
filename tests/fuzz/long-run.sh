#!/usr/bin/env bash
# long-run.sh - the fuzz targets of tests/fuzz for a long run on another machine (one without
# clang): stage what they need here, run them there on every core, and report.
#
#   tests/fuzz/long-run.sh stage BUILD DIR
#     Copy the fuzz_* binaries of BUILD (build-fuzz, made by ./setup fuzz), the shared libraries
#     they load that are not the C library's own, the corpora and dictionaries of tests/fuzz and
#     this script into DIR (refused above 40 MB).
#   DIR/long-run.sh run OUT [-n EXECS] [-t SECONDS] [-j CORES] [TARGET...]
#     Run every staged target (or those named) at once on CORES [all], shared among them by what
#     an execution of each costs (libFuzzer's -fork; crashes, time-outs and out-of-memory inputs
#     are kept and the run goes on), each until it has done EXECS executions [10000000] or run
#     SECONDS [21600]. Then, per target: executions, exec/s, new inputs, crashes (inputs in
#     OUT/crashes/TARGET/; the first 200 replayed for the line that says why, in
#     OUT/crashes/TARGET/why.txt, and the kinds of line counted under the table), and
#     OUT/corpus/TARGET/: the new inputs that add coverage to the staged corpus (-merge=1),
#     streams with their CRCs made right (fix-crc.py), to copy into tests/fuzz/corpus/TARGET/.
#     The table is also OUT/summary.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

# the dictionary of a target: its own, else that of its input (as tests/fuzz.cmake)
dict_of() {
  local d=$1 t=$2
  if [ -f "$d/$t.dict" ]; then echo "$d/$t.dict"
  elif [[ $t == mm* ]]; then echo "$d/mm.dict"
  else echo "$d/rvs.dict"; fi
}

stage() {
  local build=${1:?build folder} dir=${2:?stage folder}
  local bins=("$build"/tests/fuzz_*)
  if [ ! -x "${bins[0]}" ]; then
    echo "long-run.sh: no fuzz_* binaries in $build/tests (./setup fuzz builds them)" >&2
    exit 66
  fi
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/lib" "$dir/dict" "$dir/corpus"
  cp "${bins[@]}" "$dir/bin/"
  # every library a binary loads except the C library's (libc, libm, libpthread, libdl, librt,
  # the loader): the other machine has its own, newer glibc, which runs what was linked here
  ldd "${bins[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$dir/lib/"; done
  cp "$here"/*.dict "$dir/dict/"
  cp -r "$here/corpus/." "$dir/corpus/"
  cp "$here/long-run.sh" "$here/fix-crc.py" "$dir/"
  local kb
  kb=$(du -sk "$dir" | cut -f1)
  if [ "$kb" -gt 40960 ]; then
    echo "long-run.sh: $dir holds $((kb / 1024)) MB, more than 40 MB" >&2
    exit 65
  fi
  echo "long-run.sh: staged $(ls "$dir/bin" | tr '\n' ' ')in $dir ($((kb / 1024)) MB;" \
    "libraries: $(ls "$dir/lib" | tr '\n' ' '))" >&2
}

# Core-seconds per 1000 executions of each target (a short run on the H100 host's Xeon: the
# Matrix Market targets' stdin path maps 8 MB a call, and fuzz_mm_tokens reaches it more often),
# so that the cores are shared for the targets to reach EXECS at about the same time.
declare -A cost=([stream_struct]=45 [spmv]=34 [stream]=32 [mm_tokens]=130 [mm]=42 [mm_value]=9)
declare -A share

# share[t]: cores for each target, in proportion to its cost, at least one each (largest remainders).
share_cores() {
  local cores=$1 t total=0 given=0; shift
  declare -A rest
  for t in "$@"; do total=$((total + ${cost[$t]:-40})); done
  for t in "$@"; do
    share[$t]=$((cores * ${cost[$t]:-40} / total))
    rest[$t]=$((cores * ${cost[$t]:-40} % total))
    [ "${share[$t]}" -gt 0 ] || { share[$t]=1; rest[$t]=0; }
    given=$((given + share[$t]))
  done
  while [ "$given" -lt "$cores" ]; do
    local best=""
    for t in "$@"; do
      if [ -z "$best" ] || [ "${rest[$t]}" -gt "${rest[$best]}" ]; then best=$t; fi
    done
    share[$best]=$((share[$best] + 1))
    rest[$best]=-1
    given=$((given + 1))
  done
}

# The last fork-mode progress line of a log: "#EXECS: cov: C ft: F corp: N exec/s: E oom/timeout/crash: O/T/C ..."
last_progress() { grep -E '^#[0-9]+: cov:' "$1" | tail -1; }

run() {
  local out=${1:?output folder}; shift
  local execs=10000000 seconds=21600 cores
  cores=$(nproc)
  while getopts "n:t:j:" o; do
    case $o in
    n) execs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    j) cores=$OPTARG ;;
    *) usage ;;
    esac
  done
  shift $((OPTIND - 1))
  local targets=("$@")
  if [ ${#targets[@]} -eq 0 ]; then
    for b in "$here"/bin/fuzz_*; do targets+=("${b##*/fuzz_}"); done
  fi
  for t in "${targets[@]}"; do
    [ -x "$here/bin/fuzz_$t" ] || { echo "long-run.sh: no staged target $t in $here/bin" >&2; exit 66; }
  done
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1
  local pids=() t0=$SECONDS
  share_cores "$cores" "${targets[@]}"
  for t in "${targets[@]}"; do
    local jobs=${share[$t]}
    rm -rf "${out:?}/$t" "$out/crashes/$t" "$out/corpus/$t"
    mkdir -p "$out/$t/new" "$out/crashes/$t"
    echo "long-run.sh: $t on $jobs cores, until $execs executions or $seconds s" >&2
    (cd "$out/$t" && exec "$here/bin/fuzz_$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -runs="$execs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 -max_len=32768 \
      -dict="$(dict_of "$here/dict" "$t")" -artifact_prefix="$out/crashes/$t/" \
      "$out/$t/new" "$here/corpus/$t" >"$out/$t/log" 2>&1) &
    pids+=($!)
  done
  local status=0
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  local elapsed=$((SECONDS - t0))
  [ $status -eq 0 ] || echo "long-run.sh: a fuzzer ended with an error (see OUT/TARGET/log)" >&2
  for t in "${targets[@]}"; do finish "$out" "$t"; done
  {
    printf '# long-run.sh run: %s cores (%s), %s s, until %s executions or %s s\n' "$cores" \
      "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$elapsed" "$execs" "$seconds"
    printf '%-14s %10s %8s %8s %6s %6s %6s %8s %8s %6s %6s\n' target executions exec/s seconds cov ft \
      new crashes timeouts ooms added
    for t in "${targets[@]}"; do cat "$out/$t/row"; done
    for t in "${targets[@]}"; do # why they failed, numbers left out, most frequent first
      [ -s "$out/crashes/$t/why.txt" ] || continue
      echo "# $t, why the crash inputs fail (of the first 200):"
      sed -E 's/^[^:]*: //; s/[0-9]+/N/g' "$out/crashes/$t/why.txt" | sort | uniq -c | sort -rn | head -8 |
        sed 's/^/#  /'
    done
  } | tee "$out/summary.txt"
}

# Per target: the figures of its log, one line per crash input, the merged corpus.
finish() {
  local out=$1 t=$2 line execs rate secs cov ft
  line=$(last_progress "$out/$t/log" || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$line")
  cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$line")
  ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$line")
  secs=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<<"$line")
  execs=${execs:-0} secs=${secs:-0}
  rate=$((secs > 0 ? execs / secs : 0))
  local crashes timeouts ooms
  crashes=$(find "$out/crashes/$t" -name 'crash-*' -o -name 'leak-*' | wc -l)
  timeouts=$(find "$out/crashes/$t" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)
  ooms=$(find "$out/crashes/$t" -name 'oom-*' | wc -l)
  # why each input failed: the first line that says (a harness finding, a sanitizer, libFuzzer)
  : >"$out/crashes/$t/why.txt"
  local replayed=0
  for f in "$out/crashes/$t"/*-*; do
    [ -f "$f" ] && [ $replayed -lt 200 ] || continue
    replayed=$((replayed + 1))
    local why
    why=$({ timeout 60 "$here/bin/fuzz_$t" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 "$f" 2>&1 || true; } |
      grep -m1 -E '^finding:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' || true)
    echo "$(basename "$f"): ${why:-no failure on replay}" >>"$out/crashes/$t/why.txt"
  done
  # the new inputs that add coverage to the staged corpus
  mkdir -p "$out/$t/merged" "$out/corpus/$t"
  cp -r "$here/corpus/$t/." "$out/$t/merged/"
  "$here/bin/fuzz_$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 -max_len=32768 \
    "$out/$t/merged" "$out/$t/new" \
    >"$out/$t/merge.log" 2>&1 || echo "long-run.sh: $t: merge failed (see $out/$t/merge.log)" >&2
  for f in "$out/$t/merged"/*; do
    [ -e "$here/corpus/$t/$(basename "$f")" ] || mv "$f" "$out/corpus/$t/"
  done
  local added
  added=$(find "$out/corpus/$t" -type f | wc -l)
  if [[ $t != mm* && $added -gt 0 ]]; then
    if command -v python3 >/dev/null; then
      python3 "$here/fix-crc.py" "$out/corpus/$t"/* >/dev/null
    else
      echo "long-run.sh: $t: no python3 here, run tests/fuzz/fix-crc.py on OUT/corpus/$t/* before keeping them" >&2
    fi
  fi
  printf '%-14s %10s %8s %8s %6s %6s %6s %8s %8s %6s %6s\n' "$t" "$execs" "$rate" "$secs" "${cov:--}" "${ft:--}" \
    "$(find "$out/$t/new" -type f | wc -l)" "$crashes" "$timeouts" "$ooms" "$added" >"$out/$t/row"
}

case "${1:-}" in
stage) shift; stage "$@" ;;
run) shift; run "$@" ;;
*) usage ;;
esac

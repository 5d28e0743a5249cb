#!/usr/bin/env bash
# long-run.sh - the fuzz targets of tests/fuzz for a long run on another machine (one without
# clang): stage what they need here, run them there on every core, and report.
#
#   tests/fuzz/long-run.sh stage BUILD DIR
#     Copy the fuzz_* binaries of BUILD (build-fuzz, made by ./setup fuzz), the shared libraries
#     they load that are not the C library's own, the corpora and dictionaries of tests/fuzz and
#     this script into DIR (refused above 40 MB).
#   DIR/long-run.sh run OUT [-n EXECS] [-t SECONDS] [-j CORES] [TARGET[:EXECS]...]
#     Run every staged target (or those named, each to its own EXECS if given) at once on CORES [all], shared among them by what
#     an execution of each costs: per core a worker that runs the target again and again (one
#     libFuzzer process at a time, all of a target's workers on one corpus folder, each picking
#     up what the others find), so that a crash, time-out or out-of-memory input is kept and the
#     run goes on; each target until its workers have done EXECS executions [10000000] or SECONDS
#     [21600] have passed (a worker whose target is done helps the costliest one not yet done). Then, per target: executions, exec/s, new inputs, crashes (inputs in
#     OUT/crashes/TARGET/; the first 100 replayed for the line that says why, in
#     OUT/crashes/TARGET/why.txt, and the kinds of line counted under the table), and
#     OUT/corpus/TARGET/: the fewest new inputs that add edges to the staged corpus
#     (-set_cover_merge=1 -use_counters=0),
#     streams with their CRCs made right (fix-crc.py), to copy into tests/fuzz/corpus/TARGET/.
#     The table is also OUT/summary.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

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

# Core-microseconds per execution of each target, as 64 workers on the 64 cores of an H200 host
# ran them (the Matrix Market targets' after the reader's buffers started small, scaled by the
# speed-up that change gave on one core), so that the cores are shared for the targets to end
# together; a worker whose target is done moves on, so the figures need not be exact.
declare -A cost=([stream_struct]=760 [spmv]=560 [stream]=685 [mm_tokens]=970 [mm]=570 [mm_value]=130)
declare -A share want

# share[t]: cores for each target, in proportion to its cost, at least one each (largest remainders).
share_cores() {
  local cores=$1 t total=0 given=0; shift
  declare -A rest
  # a target's cost: an execution's times the executions it is to do, in thousands
  declare -A c
  for t in "$@"; do c[$t]=$((${cost[$t]:-400} * (${want[$t]} / 1000 + 1))); total=$((total + c[$t])); done
  for t in "$@"; do
    share[$t]=$((cores * c[$t] / total))
    rest[$t]=$((cores * c[$t] % total))
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

# Executions done so far by a target's workers (a line per finished libFuzzer process).
done_execs() { awk '{ n += $1 } END { print n + 0 }' "$1/done" 2>/dev/null || echo 0; }

# One worker, first of target t, then of the targets not yet done, the costliest first:
# libFuzzer processes of about chunk executions each, one after another, until every target's
# workers have done their executions or the time is up; each process's executions (its final
# stats, printed on a crash too) go to OUT/TARGET/done, its output to OUT/TARGET/log-K.
worker() {
  local out=$1 t=$2 k=$3 chunk=$4 end=$5 log n left u
  shift 5
  while :; do
    left=$((end - SECONDS))
    [ "$left" -gt 0 ] || break
    if [ "$(done_execs "$out/$t")" -ge "${want[$t]}" ]; then
      t=""
      for u in "$@"; do [ "$(done_execs "$out/$u")" -ge "${want[$u]}" ] || { t=$u; break; }; done
      [ -n "$t" ] || break
    fi
    log=$out/$t/log-$k
    "$here/bin/fuzz_$t" -runs="$chunk" -max_total_time="$left" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=2048 -malloc_limit_mb=128 -max_len=32768 -dict="$(dict_of "$here/dict" "$t")" \
      -artifact_prefix="$out/crashes/$t/" "$out/$t/new" "$here/corpus/$t" >"$log.now" 2>&1 || true
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.now" | tail -1)
    echo "${n:-0}" >>"$out/$t/done"
    grep -E '^#[0-9]+|^stat::|ERROR|SUMMARY|^finding' "$log.now" | tail -40 >>"$log" || true
    rm -f "$log.now"
    [ -n "$n" ] || { echo "long-run.sh: $t: worker $k: a run ended without its statistics" >>"$log"; sleep 1; }
  done
}

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
  local targets=() spec
  for spec in "$@"; do
    targets+=("${spec%%:*}")
    want[${spec%%:*}]=$execs
    [[ $spec != *:* ]] || want[${spec%%:*}]=${spec#*:}
  done
  if [ ${#targets[@]} -eq 0 ]; then
    for b in "$here"/bin/fuzz_*; do targets+=("${b##*/fuzz_}"); want[${b##*/fuzz_}]=$execs; done
  fi
  for t in "${targets[@]}"; do
    [ -x "$here/bin/fuzz_$t" ] || { echo "long-run.sh: no staged target $t in $here/bin" >&2; exit 66; }
  done
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1
  local pids=() t0=$SECONDS k=0 bycost
  share_cores "$cores" "${targets[@]}"
  # the targets by cost, the costliest first: where a worker goes once its own is done
  mapfile -t bycost < <(for t in "${targets[@]}"; do echo "${cost[$t]:-400} $t"; done | sort -rn | cut -d' ' -f2)
  for t in "${targets[@]}"; do
    rm -rf "${out:?}/$t" "$out/crashes/$t" "$out/corpus/$t"
    mkdir -p "$out/$t/new" "$out/crashes/$t"
    : >"$out/$t/done"
  done
  for t in "${targets[@]}"; do
    local jobs=${share[$t]} chunk j
    # a process of about a tenth of a worker's share: crashes cost little, restarts stay rare
    chunk=$(((want[$t] + 10 * jobs - 1) / (10 * jobs)))
    echo "long-run.sh: $t on $jobs cores, until ${want[$t]} executions or $seconds s" >&2
    for ((j = 0; j < jobs; j++, k++)); do
      worker "$out" "$t" "$k" "$chunk" $((t0 + seconds)) "${bycost[@]}" &
      pids+=($!)
    done
  done
  local status=0
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  local elapsed=$((SECONDS - t0))
  [ $status -eq 0 ] || echo "long-run.sh: a worker ended with an error (see OUT/TARGET/log-K)" >&2
  for t in "${targets[@]}"; do finish "$out" "$t" "$elapsed" & done
  wait
  {
    printf '# long-run.sh run: %s cores (%s), %s s, until TARGET:EXECUTIONS %sor %s s\n' "$cores" \
      "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$elapsed" \
      "$(for t in "${targets[@]}"; do printf '%s:%s ' "$t" "${want[$t]}"; done)" "$seconds"
    printf '%-14s %10s %8s %8s %6s %6s %6s %8s %8s %6s %6s\n' target executions exec/s seconds cov ft \
      new crashes timeouts ooms added
    for t in "${targets[@]}"; do cat "$out/$t/row"; done
    for t in "${targets[@]}"; do # why they failed, numbers left out, most frequent first
      [ -s "$out/crashes/$t/why.txt" ] || continue
      echo "# $t, why the crash inputs fail (of the first 100):"
      sed -E 's/^[^:]*: //; s/[0-9]+/N/g' "$out/crashes/$t/why.txt" | sort | uniq -c | sort -rn | head -8 |
        sed 's/^/#  /'
    done
  } | tee "$out/summary.txt"
}

# Per target: its executions and rate over the run's wall time, the most coverage one of its
# processes reached, one line per crash input, the merged corpus.
finish() {
  local out=$1 t=$2 secs=$3 execs rate cov ft
  execs=$(done_execs "$out/$t")
  # the most coverage and features any of its processes reached
  read -r cov ft < <(cat "$out/$t"/log-* 2>/dev/null | awk '/^#[0-9]+.* cov: / {
      for (i = 1; i < NF; i++) { if ($i == "cov:" && $(i+1) > c) c = $(i+1); if ($i == "ft:" && $(i+1) > f) f = $(i+1) } }
    END { print (c ? c : "-"), (f ? f : "-") }')
  rate=$((secs > 0 ? execs / secs : 0))
  local crashes timeouts ooms
  crashes=$(find "$out/crashes/$t" -name 'crash-*' -o -name 'leak-*' | wc -l)
  timeouts=$(find "$out/crashes/$t" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)
  ooms=$(find "$out/crashes/$t" -name 'oom-*' | wc -l)
  # why each input failed: the first line that says (a harness finding, a sanitizer, libFuzzer)
  : >"$out/crashes/$t/why.txt"
  local replayed=0
  for f in "$out/crashes/$t"/*-*; do
    [ -f "$f" ] && [ $replayed -lt 100 ] || continue
    replayed=$((replayed + 1))
    local why
    why=$({ timeout 30 "$here/bin/fuzz_$t" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 "$f" 2>&1 || true; } |
      grep -m1 -E '^finding:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' || true)
    echo "$(basename "$f"): ${why:-no failure on replay}" >>"$out/crashes/$t/why.txt"
  done
  # the new inputs that add edges to the staged corpus: a small set (hit counts left out) that
  # the tree can keep and every build replay
  mkdir -p "$out/$t/merged" "$out/corpus/$t"
  cp -r "$here/corpus/$t/." "$out/$t/merged/"
  "$here/bin/fuzz_$t" -set_cover_merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 -max_len=32768 \
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

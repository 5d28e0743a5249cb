#!/usr/bin/env bash
# spgemm_device.sh - one call on the GPU machine for the SpGEMM work (issue 33), from the
# project root after `source .deps/env.sh`:
#   bench/spgemm_device.sh check OUT   build, the SpGEMM GPU tests, the device's start-up as
#                                      spgemm reports it (cold, one process per input), the
#                                      calibration, one pass against two, and as much of the
#                                      table (SECTIONS [real suite]) as the call allows
#   bench/spgemm_device.sh table OUT   build, the tests, the cold runs, then bench/spgemm.sh
#                                      (SECTIONS) within the call
# BUDGET: seconds the whole call may take [300]; the table stops starting rows 25-30 s before.
# Matrices: RVS_MATRICES [.carry/matrices], gzip'd Matrix Market under their .mtx names.
set -uo pipefail
phase=${1:?phase} O=${2:?output dir} M=${RVS_MATRICES:-$PWD/.carry/matrices} B=$PWD/build-dev t0=$SECONDS
mkdir -p "$O" && export PATH=$B:$PATH
BUILD_TARGETS="spgemm bench_spgemm rvsgen test_spgemm_gpu" RVS_BUILD=$B RVS_MATRICES=$M bench/run.sh build "$O" || exit 1
echo "# build: $((SECONDS - t0)) s"
left() { echo $(( ${BUDGET:-300} - (SECONDS - t0) )); }   # seconds of the call left
tests() {   # the SpGEMM GPU tests, within TEST_LIMIT seconds
  (cd "$B" && RVS_TEST_MATRICES_MAX=${TEST_MAX:-400} timeout "${TEST_LIMIT:-120}" ctest -R 'spgemm_gpu' \
    --output-on-failure) > "$O/tests.log" 2>&1
  tail -6 "$O/tests.log"; grep -E 'FAIL|fail' "$O/tests.log" | head -20
  echo "# tests done: $((SECONDS - t0)) s"
}
cold() {   # cold runs as users make them: the device's start-up is its own stage
  for m in ${COLD:-wiki-Vote bcsstk29 email-Enron}; do
    for mode in --gpu ""; do
      spgemm $mode --json "$M/$m.mtx" 2>&1 | tr ',' '\n' |
        grep -E '"(device|setup_s|pre_s|transfer_s|multiply_s|compress_s|kernel_s|total_s|gpu_blocks|choice)"' |
        tr '\n' ' ' | sed "s/^/cold $m ${mode:-auto}: /"; echo
    done
  done > "$O/cold.txt" 2>&1
}
case "$phase" in
  check)
    tests
    cold
    RVS_SPGEMM_CALIBRATION=/tmp/spgemm-cal spgemm --calibrate >> "$O/cold.txt" 2>&1; cat "$O/cold.txt"
    # one pass against two on a few products, then the table as far as the call allows
    for f in ${TWO:-wiki-Vote email-Enron bcsstk29}; do
      bench_spgemm -r 3 --passes 2 --no-cusparse --cpu-max 1 -p f64 --label "${f}_p2" "$M/$f.mtx"
    done > "$O/passes.txt" 2>&1
    REPS=3 BENCH_FLAGS=${BENCH_FLAGS:-} DEADLINE=$(( $(left) - 25 )) RVS_WORK=/tmp/sgw \
      bench/spgemm.sh "$B" "$M" "$O" "${SECTIONS:-real suite}" > "$O/bench.log" 2>&1
    tail -8 "$O/spgemm.txt" ;;
  table)
    tests
    cold; cat "$O/cold.txt"
    RVS_WORK=/tmp/sgw DEADLINE=$(( $(left) - 30 )) bench/spgemm.sh "$B" "$M" "$O" \
      "${SECTIONS:-real suite rep2m big rep20m}" > "$O/bench.log" 2>&1
    tail -8 "$O/spgemm.txt" ;;
esac
echo "# done: $((SECONDS - t0)) s"

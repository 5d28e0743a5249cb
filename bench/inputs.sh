# inputs.sh - the generated inputs of the SpMV benchmarks that run under a deadline; sourced by
# a script that sets W (work folder), T (table), L (log) and start (date +%s when it began).
# input_path NAME SPEC VT: the stream $W/NAME.rvs, made by rvsgen from SPEC (its arguments,
# comma-separated) unless there; prints its path. Fails, with a line in the table, when the run
# is past DEADLINE [540] seconds or rvsgen fails.
input_path() {
  local name=$1 vt=$3 args
  args=$(echo "$2" | tr ',' ' ')
  if [ $(($(date +%s) - start)) -gt "${DEADLINE:-540}" ]; then
    echo "# $name $vt: not run, the run had used its ${DEADLINE:-540} s" >> "$T"; return 1
  fi
  [ -s "$W/$name.rvs" ] || rvsgen $args -o "$W/$name.rvs" 2>> "$L" || { echo "# $name: rvsgen failed" >> "$T"; return 1; }
  echo "## $name $vt" >> "$L"
  echo "$W/$name.rvs"
}

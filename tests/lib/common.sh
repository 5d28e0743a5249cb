# common.sh - helpers for the shell tests; source it. Uses RVS_BIN, RVS_DATA, RVS_MATRICES, RVS_TMP.
set -u
: "${RVS_BIN:?run through ctest}"
PATH="$RVS_BIN:$PATH"
export PATH
unset RVS_TRACE_MEM # the tests count stderr lines: a memory trace from the caller's environment adds some
T=$(mktemp -d "${RVS_TMP:-/tmp}/t.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
checks=0

ok()   { checks=$((checks + 1)); }
bad()  { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# expect_fail STATUS REGEX -- cmd...: cmd must exit STATUS, print one stderr line matching
# REGEX, and write nothing to stdout.
expect_fail() {
  local want=$1 re=$2; shift 3
  "$@" >"$T/out" 2>"$T/err" </dev/null
  local st=$?
  if [ "$st" -ne "$want" ]; then bad "$*: status $st, want $want ($(head -c 300 "$T/err"))"; return; fi
  if [ -s "$T/out" ]; then bad "$*: wrote $(wc -c <"$T/out") bytes to stdout"; return; fi
  if ! grep -Eq -- "$re" "$T/err"; then bad "$*: stderr '$(head -c 300 "$T/err")' does not match '$re'"; return; fi
  if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$*: stderr has $(wc -l <"$T/err") lines, want 1"; return; fi
  ok
}

# expect_fail_in STATUS REGEX INPUTFILE -- cmd...: the same, with INPUTFILE on stdin.
expect_fail_in() {
  local want=$1 re=$2 in=$3; shift 4
  "$@" >"$T/out" 2>"$T/err" <"$in"
  local st=$?
  if [ "$st" -ne "$want" ]; then bad "$* <$in: status $st, want $want ($(head -c 300 "$T/err"))"; return; fi
  if [ -s "$T/out" ]; then bad "$* <$in: wrote $(wc -c <"$T/out") bytes to stdout"; return; fi
  if ! grep -Eq -- "$re" "$T/err"; then bad "$* <$in: stderr '$(head -c 300 "$T/err")' does not match '$re'"; return; fi
  if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$* <$in: stderr has $(wc -l <"$T/err") lines, want 1"; return; fi
  ok
}

# expect_ok -- cmd...: cmd must exit 0.
expect_ok() {
  shift
  if "$@" >"$T/out" 2>"$T/err" </dev/null; then ok; else bad "$*: status $? ($(head -c 300 "$T/err"))"; fi
}

# expect_eq WHAT GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }

# json_get KEY.PATH < JSON: the value at a dotted path (list indices as numbers), booleans as
# true/false; needs python3 (PY, empty when there is none: callers skip their JSON checks).
PY=$(command -v python3 || true)
json_get() { "$PY" -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d if not isinstance(d, bool) else str(d).lower())' "$1"; }

# python_loads_librvskit: in a sanitized build a python3 that loads librvskit needs the
# sanitizers' runtimes loaded first, and python3's own allocations are not ours to call leaks
# (the last detect_leaks wins); call it in the subshell that runs python3.
python_loads_librvskit() {
  [ "${RVS_SANITIZED:-OFF}" = ON ] || return 0
  export LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

have_matrices() { [ -n "${RVS_MATRICES:-}" ] && [ -f "$RVS_MATRICES/INDEX.tsv" ]; }

# finish: print the tally and exit (a test with no check fails).
finish() {
  echo "$checks checks, $fails failed"
  [ "$checks" -gt 0 ] || { echo "no checks ran" >&2; exit 1; }
  [ "$fails" -eq 0 ]
  exit $?
}

# fault.sh - helpers for fault and regression tests; source after common.sh.

# ulimit -v MB, except in a sanitizer build (RVS_SANITIZED=ON): AddressSanitizer reserves
# terabytes of address space for its shadow, so there the memory claims get the same limit
# through RVS_MEMORY_LIMIT (rvs_mem.h) and the time limit bounds the run.
mem_limit() {
  if [ "${RVS_SANITIZED:-OFF}" = ON ]; then echo "export RVS_MEMORY_LIMIT=${1}M"; else echo "ulimit -v $(($1 * 1024))"; fi
}

# expect_fail_sh STATUS REGEX MEM_MB SECONDS -- 'shell command': run the command (a pipeline may
# be given; its status is the last non-zero one) under `ulimit -v MEM_MB` MB and a time limit.
# It must exit STATUS, print exactly one stderr line matching REGEX and nothing on stdout.
expect_fail_sh() {
  local want=$1 re=$2 mem=$3 secs=$4 cmd=$6
  timeout -k 5 "$secs" bash -c "$(mem_limit "$mem"); set -o pipefail; $cmd" >"$T/out" 2>"$T/err" </dev/null
  local st=$?
  if [ "$st" -eq 124 ] || [ "$st" -eq 137 ]; then bad "$cmd: did not finish in ${secs}s under ${mem} MB"; return; fi
  if [ "$st" -ne "$want" ]; then bad "$cmd: status $st, want $want ($(head -c 300 "$T/err"))"; return; fi
  if [ -s "$T/out" ]; then bad "$cmd: wrote $(wc -c <"$T/out") bytes to stdout"; return; fi
  if ! grep -Eq -- "$re" "$T/err"; then bad "$cmd: stderr '$(head -c 300 "$T/err")' does not match '$re'"; return; fi
  if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$cmd: stderr has $(wc -l <"$T/err") lines, want 1"; return; fi
  ok
}

# expect_ok_sh MEM_MB SECONDS -- 'shell command': the command must exit 0 under the same limits.
expect_ok_sh() {
  local mem=$1 secs=$2 cmd=$4
  timeout -k 5 "$secs" bash -c "$(mem_limit "$mem"); set -o pipefail; $cmd" >"$T/out" 2>"$T/err" </dev/null
  local st=$?
  if [ "$st" -eq 0 ]; then ok; else bad "$cmd: status $st ($(head -c 300 "$T/err"))"; fi
}

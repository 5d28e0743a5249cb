# regress_stream.sh CASE - regression tests for streams a buggy or hostile writer made (valid CRCs,
# wrong contents) and for the wording of messages, one case per finding (below)
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
command -v rvsinfo >/dev/null 2>&1 || { echo "rvsinfo not built: skipped"; exit 77; }
A=$RVS_DATA/pmf20.mtx
edit() { "$RVS_BIN/tests/stream_edit" "$@" || bad "stream_edit $*"; }
# py: a python3 with numpy and scipy for the module's cases, else those cases are skipped
py=""
for p in "${RVS_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$p" ] && "$p" -c 'import numpy, scipy' 2>/dev/null; then py=$p; break; fi
done

# rvsinfo_fails STATUS REGEX FILE: rvsinfo reports FILE on stdout, then one error line and STATUS
rvsinfo_fails() {
  rvsinfo "$3" >"$T/out" 2>"$T/err"
  local st=$?
  expect_eq "rvsinfo $3: status" "$st" "$1"
  grep -Eq -- "$2" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] && ok || bad "rvsinfo $3: stderr '$(cat "$T/err")'"
}

case "${1:-}" in
# auto_part_missing: an 'auto' chunk whose fingerprint matched and which named a part the stream
# lacks built its message from a record it had just freed: rvsinfo, convert and spmv died of
# SIGSEGV with nothing said. It is bad data (65), as rvs(5) says.
auto_part_missing)
  pmf "$A" >"$T/plain.rvs"
  edit auto=0 "$T/plain.rvs" "$T/a0.rvs"
  re="chunk 'auto': a decision for part 1, and the stream has no partition\$"
  rvsinfo_fails 65 "^rvsinfo: $T/a0\\.rvs: $re" "$T/a0.rvs"
  expect_fail 65 "^convert: $T/a0\\.rvs: $re" -- convert "$T/a0.rvs"
  expect_fail 65 "^spmv: $T/a0\\.rvs: $re" -- spmv --cpu "$T/a0.rvs"
  partition --alg rows --cp 1,1 "$A" >"$T/two.rvs"
  edit auto=5 "$T/two.rvs" "$T/a5.rvs"
  re="chunk 'auto': a decision for part 6 of a 2-part partition\$"
  rvsinfo_fails 65 "^rvsinfo: $T/a5\\.rvs: $re" "$T/a5.rvs"
  expect_fail 65 "^spmv: $T/a5\\.rvs: $re" -- spmv --cpu "$T/a5.rvs"
  # a decision for a part the stream has is read and shown
  edit auto=1 "$T/two.rvs" "$T/a1.rvs"
  expect_ok -- rvsinfo "$T/a1.rvs"
  grep -q '^auto         1 decision, current' "$T/out" && ok || bad "rvsinfo: the decision for part 2 not shown"
  ;;
# plac_malformed_valid: rvsinfo called a stream "valid" (exit 0) whose 'plac' chunk bound a part
# to processor 70000, was of the wrong length, or came twice - what spmv-mpi refuses (65).
plac_malformed_valid)
  partition --alg rows --cp 1,1 "$A" >"$T/two.rvs"
  edit plac=bind:70000 "$T/two.rvs" "$T/bind.rvs"
  edit plac=short "$T/two.rvs" "$T/short.rvs"
  edit plac=twice "$T/two.rvs" "$T/twice.rvs"
  rvsinfo_fails 65 "^rvsinfo: $T/bind\\.rvs: chunk 'plac': part 1 is bound to processor 70000 \\(-1\\.\\.65535\\)\$" "$T/bind.rvs"
  grep -q "^plac         MALFORMED: chunk 'plac': part 1 is bound" "$T/out" && ok || bad "rvsinfo: no MALFORMED line for plac"
  rvsinfo_fails 65 "^rvsinfo: $T/short\\.rvs: chunk 'plac': 36 bytes do not hold the 2 part records it announces\$" "$T/short.rvs"
  rvsinfo_fails 65 "^rvsinfo: $T/twice\\.rvs: chunk 'plac' appears twice\$" "$T/twice.rvs"
  rvsinfo --json "$T/bind.rvs" >"$T/j" 2>/dev/null
  grep -q '"plac":{"valid":false,"error":"chunk '"'"'plac'"'"': part 1 is bound' "$T/j" && ok || bad "rvsinfo --json: plac not marked invalid"
  # spmv-mpi refuses the same files (a singleton, where MPI is built)
  if command -v spmv-mpi >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
    for f in bind short twice; do
      spmv-mpi --cpu "$T/$f.rvs" >"$T/out" 2>"$T/err"
      expect_eq "spmv-mpi $f.rvs: status" "$?" 65
      grep -q "^spmv-mpi: rank 0: $T/$f.rvs: chunk 'plac'" "$T/err" && ok || bad "spmv-mpi $f.rvs: $(cat "$T/err")"
    done
  fi
  # a valid binding is shown, and the stream stays valid
  partition --alg rows --cp 1:cpu0,1:cpu1 "$A" >"$T/good.rvs"
  expect_ok -- rvsinfo "$T/good.rvs"
  ;;
# warning_before_error: a Matrix Market integer beyond 2^53 got its warning line, then the error
# that ended the program (a second line for one error); a program that fails says one line.
warning_before_error)
  printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 9007199254740993\n2 2 1\n' >"$T/big.mtx"
  expect_fail 74 "^pmf: $T/no/x\\.rvs: cannot create $T/no/x\\.rvs: No such file or directory\$" -- pmf -o "$T/no/x.rvs" "$T/big.mtx"
  printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n' >"$T/c.mtx"
  expect_fail 65 "^spgemm: $T/c\\.mtx: dimension mismatch" -- spgemm --cpu "$T/big.mtx" "$T/c.mtx"
  # on success the warning still comes, once
  pmf "$T/big.mtx" >/dev/null 2>"$T/err" || bad "pmf"
  expect_eq "warning" "$(cat "$T/err")" "pmf: $T/big.mtx: warning: line 3: 1 integer value beyond 2^53 in magnitude, rounded to the nearest double"
  ;;
*) echo "regress_stream.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish

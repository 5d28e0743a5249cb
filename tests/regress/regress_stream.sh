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
# name_control_characters: a matrix name with a newline or ESC (from the input file's name, kept
# in the stream) was printed raw by rvsinfo, pmf -r and partition -r: the report split into
# extra lines and terminal escapes reached the terminal. Text reports escape it as JSON does.
name_control_characters)
  name=$(printf 'a\nb\033[31mc\td\\e')
  cp "$A" "$T/$name.mtx"
  pmf "$T/$name.mtx" >"$T/n.rvs"
  want='a\nb\x1b[31mc\td\\e.mtx'
  rvsinfo "$T/n.rvs" >"$T/info" || bad "rvsinfo"
  expect_eq "rvsinfo matrix line" "$(grep '^matrix ' "$T/info")" "matrix       $want"
  pmf -r "$T/n.rvs" >"$T/rep" || bad "pmf -r"
  expect_eq "pmf -r matrix line" "$(grep '^matrix ' "$T/rep")" "matrix       $want"
  partition --cp 1,1 -r "$T/n.rvs" >"$T/part" || bad "partition -r"
  case "$(head -1 "$T/part")" in "# matrix $want  alg "*) ok ;; *) bad "partition -r header: $(head -1 "$T/part")" ;; esac
  pmf --table "$T/n.rvs" >"$T/tab" || bad "pmf --table"
  expect_eq "pmf --table header" "$(head -1 "$T/tab" | awk '{ print $3 }')" "$want"
  for f in info rep part tab; do
    if LC_ALL=C grep -q "$(printf '\033')" "$T/$f"; then bad "$f: raw ESC"; else ok; fi
  done
  expect_eq "pmf -r lines" "$(wc -l <"$T/rep")" "$(pmf -r "$A" | wc -l)"
  # the JSON was already escaped, and stays so
  pmf --json "$T/n.rvs" | grep -q '"matrix":"a\\nb\\u001b\[31mc\\td\\\\e.mtx"' && ok || bad "pmf --json name"
  ;;
# ell_padding_nonzero: an ELL or ELLR block whose padding slot (column -1) held 7.0 was accepted,
# though rvskit-formats(7) says padding is zero and the DIA validator refuses its analogue (65).
ell_padding_nonzero)
  for f in ell ellr; do
    convert --to $f "$A" >"$T/$f.rvs"
    edit pad=7 "$T/$f.rvs" "$T/$f-pad.rvs"
    re="$f: stored row [0-9]+, slot [0-9]+ \\(col -1\\): padding holds a non-zero value\$"
    rvsinfo_fails 65 "^rvsinfo: $T/$f-pad\\.rvs: format block 1 \\($f, the whole matrix\\): $re" "$T/$f-pad.rvs"
    expect_fail 65 "^spmv: $T/$f-pad\\.rvs: format block 1 \\($f, the whole matrix\\): $re" -- spmv --cpu "$T/$f-pad.rvs"
    expect_fail 65 "^convert: $T/$f-pad\\.rvs: format block 1 \\($f, the whole matrix\\): $re" -- convert --to mtx "$T/$f-pad.rvs"
    edit pad=-0 "$T/$f.rvs" "$T/$f-neg.rvs"
    expect_ok -- rvsinfo "$T/$f-neg.rvs"
  done
  ;;
# python_part_after_whole_block: rvskit.read refused "chunk 'PART' out of place" after a
# whole-matrix format block, which the C reader and rvs(5) accept.
python_part_after_whole_block)
  [ -n "$py" ] || { echo "no python3 with numpy and scipy: skipped"; exit 77; }
  convert --to csr "$A" >"$T/whole.rvs"
  partition --alg rows --cp 1,2 "$A" >"$T/part.rvs"
  # the PART chunk of part.rvs spliced in after the whole-matrix block of whole.rvs
  PYTHONPATH="$RVS_SRC/python" "$py" - "$T/whole.rvs" "$T/part.rvs" "$T/late.rvs" <<'PY' || bad "splice"
import struct, sys
from rvskit.crc32c import crc32c
def chunks(d):
    at = 16
    while at < len(d):
        n = struct.unpack_from("<Q", d, at + 4)[0]
        yield d[at:at + 4], d[at:at + 16 + n]
        at += 16 + n
w, p = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
part = [c for t, c in chunks(p) if t == b"PART"][0]
out = [c for t, c in chunks(w) if t != b"REND"] + [part]
rend = b"REND" + struct.pack("<QQ", 8, len(out))
open(sys.argv[3], "wb").write(w[:16] + b"".join(out) + rend + struct.pack("<I", crc32c(rend)))
PY
  expect_ok -- rvsinfo "$T/late.rvs"
  PYTHONPATH="$RVS_SRC/python" "$py" - "$T/late.rvs" <<'PY' && ok || bad "rvskit.read refused a PART after a whole-matrix block"
import sys, rvskit
s = rvskit.read(sys.argv[1])
assert len(s.partition.parts) == 2 and s.formats[0].part is None and s.formats[0].format == "csr"
PY
  # a format block of a part before the PART chunk stays refused, as the C reader refuses it
  ;;
# python_complex_stream: rvskit.read refused every complex stream ("chunk 'MHDR': bad fields"),
# which the C programs write since stream 1.3.
python_complex_stream)
  [ -n "$py" ] || { echo "no python3 with numpy and scipy: skipped"; exit 77; }
  printf '%%%%MatrixMarket matrix coordinate complex general\n2 3 3\n1 1 1.5 -2\n2 3 0 1\n1 2 3 4\n' >"$T/c.mtx"
  pmf "$T/c.mtx" >"$T/c.rvs"
  convert --to coo -p f32 "$T/c.mtx" >"$T/c64.rvs"
  PYTHONPATH="$RVS_SRC/python" "$py" - "$T/c.rvs" "$T/c64.rvs" "$T/back.rvs" <<'PY' && ok || bad "rvskit.read of complex streams"
import sys, numpy as np, rvskit
want = np.array([[1.5 - 2j, 3 + 4j, 0], [0, 0, 1j]])
s = rvskit.read(sys.argv[1])
assert s.matrix.dtype == np.complex128 and np.array_equal(s.matrix.toarray(), want)
t = rvskit.read(sys.argv[2])
assert t.matrix.dtype == np.complex64 and np.array_equal(t.matrix.toarray(), want.astype(np.complex64))
assert t.formats[0].format == "coo" and t.formats[0].vtype == "c64"
rvskit.write(sys.argv[3], s.matrix)
PY
  convert --to mtx "$T/back.rvs" >"$T/back.mtx" || bad "convert of a complex stream rvskit wrote"
  convert --to mtx "$T/c.mtx" | cmp -s - "$T/back.mtx" && ok || bad "complex round trip through python"
  ;;
# part_numbering: messages numbered parts from 0 in some places (a format block's part, the
# PART chunk's fields) and from 1 in others, and showed a stored row -1 as "row 0". Parts, rows
# and blocks are numbered from 1 everywhere; a stored index out of range is shown as stored,
# with the range it must be in (0-based, as rvs(5) stores it), as Matrix Market's are.
part_numbering)
  partition --alg rows --cp 1,1 "$A" >"$T/two.rvs"
  edit row=-1 "$T/two.rvs" "$T/minus.rvs"
  expect_fail 65 "^pmf: $T/minus\\.rvs: chunk 'PART': partition: part 1: row index -1 out of range 0\\.\\.19\$" -- pmf "$T/minus.rvs"
  edit outside "$T/two.rvs" "$T/outside.rvs"
  expect_fail 65 "^pmf: $T/outside\\.rvs: chunk 'PART': partition: part 1: row index 20 out of range 0\\.\\.19\$" -- pmf "$T/outside.rvs"
  convert --to csr "$T/two.rvs" >"$T/csr.rvs"
  edit fmtpart=2 "$T/csr.rvs" "$T/fmt2.rvs"
  expect_fail 65 "^pmf: $T/fmt2\\.rvs: chunk 'FMTB': part index 2 out of range -1\\.\\.1\$" -- pmf "$T/fmt2.rvs"
  convert --to ell "$T/two.rvs" >"$T/ell.rvs"
  edit pad=3 "$T/ell.rvs" "$T/ellpad.rvs"
  expect_fail 65 "^pmf: $T/ellpad\\.rvs: format block 1 \\(ell, part 1\\): ell: stored row [1-9][0-9]*, slot [1-9][0-9]* \\(col -1\\): padding holds a non-zero value\$" -- pmf "$T/ellpad.rvs"
  pmf "$A" >"$T/hub.rvs"
  edit hubcol=25 "$T/hub.rvs" "$T/col.rvs"
  expect_fail 65 "^pmf: $T/col\\.rvs: .*row 1: column index 25 out of range 0\\.\\.19\$" -- pmf "$T/col.rvs"
  ;;
# cp_share_overflow: partition --report with --cp 1e308,1e308 showed every cp_share 0.0000 (the
# sum of the computing powers overflowed); shares are each power over their sum, which is 1/2.
cp_share_overflow)
  partition --alg rows --cp 1e308,1e308 --report "$A" >"$T/r" || bad "partition --report"
  expect_eq "cp_share" "$(awk '!/^#/ { printf "%s ", $NF }' "$T/r")" "0.5000 0.5000 "
  partition --alg rows --cp 1e308,1e308,1e-308 --json "$A" >"$T/j" || bad "partition --json"
  [ -z "$PY" ] || expect_eq "json cp_share" "$(json_get part.0.cp_share <"$T/j")" "0.5"
  ;;
# cp_subnormal: --cp 5e-324,1 was "not a positive number" (strtod reports ERANGE below the
# normal range) though readers accept such a power in a stream; it is a positive number.
cp_subnormal)
  expect_ok -- partition --alg rows --cp 5e-324,1 -o "$T/p.rvs" "$A"
  expect_eq "parts" "$(rvsinfo "$T/p.rvs" | awk '/^# part device/ { p = 1; next } p && /^[0-9]/ { printf "%s ", $4 }')" "4.94066e-324 1 "
  expect_fail 64 "^partition: --cp: computing power 1 of '1e-400,1' is not a positive number" -- partition --cp 1e-400,1 "$A"
  ;;
# hcc_np_usage: convert --hcc-np 65537 was blamed on the input file ("convert: A.mtx: hcc: 65537
# panels, at most 65536"); it is a usage error of the option.
hcc_np_usage)
  expect_fail 64 "^convert: --hcc-np: '65537' is not an integer in 1\\.\\.65536 \\(try 'convert --help'\\)\$" -- \
    convert --to hcc --hcc-np 65537 "$A"
  expect_ok -- convert --to hcc --hcc-np 65536 "$A"
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

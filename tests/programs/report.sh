# report.sh - reports off a terminal and for scripts (pmf --report/--json, rvsinfo), and the
# seams every program shares: option errors, unreadable input (66), a closed pipe (74).
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx

# JSON is checked through json_get (common.sh) when python3 is there
# pmf --report: the terminal summary anywhere, no stream unless -o
pmf --report "$M" >"$T/rep" </dev/null
grep -q "^rows *20$" "$T/rep" && grep -q "^ELL density *45.0%" "$T/rep" &&
  grep -q "^source *Matrix Market coordinate real general$" "$T/rep" && ok || bad "pmf --report: $(head -c 300 "$T/rep")"
pmf --report -o "$T/r.rvs" "$M" >"$T/rep2" </dev/null
cmp -s "$T/rep" "$T/rep2" && [ "$(head -c 4 "$T/r.rvs" | od -An -tx1 | tr -d ' ')" = 89525653 ] && ok ||
  bad "pmf --report -o: report and stream"
pmf --report -o - "$M" </dev/null 2>"$T/rep3" | partition --alg rows --cp 1,1 >"$T/p.rvs" &&
  cmp -s "$T/rep" "$T/rep3" && ok || bad "pmf --report -o -: the report goes to stderr, the stream on"
expect_fail 64 "exclude each other" -- pmf --report --json "$M"

# pmf --json: one object on one line with the statistics and the PMF
pmf --json "$M" >"$T/j" </dev/null
expect_eq "json is one line" "$(wc -l <"$T/j")" 1
if [ -n "$PY" ]; then
  expect_eq "json nnz" "$(json_get nnz <"$T/j")" 117
  expect_eq "json mean" "$(json_get mean <"$T/j")" 5.85
  expect_eq "json k" "$(json_get k <"$T/j")" "[1, 2, 3, 5, 6, 7, 9, 10, 13]"
  expect_eq "json b" "$(json_get b <"$T/j")" "[2, 3, 2, 3, 2, 3, 1, 2, 2]"
  expect_eq "json source" "$(json_get source.field <"$T/j")" real
  pmf "$M" </dev/null | pmf --json >"$T/j2"
  expect_eq "json from a stream keeps the source" "$(json_get source.symmetry <"$T/j2")" general
  # names that need escaping stay valid JSON
  cp "$M" "$T/a \"quoted\" name.mtx"
  expect_eq "json escaping" "$(pmf --json "$T/a \"quoted\" name.mtx" </dev/null | json_get matrix)" 'a "quoted" name.mtx'
fi
# --threads: the same numbers with one thread
expect_eq "pmf --threads 1" "$(pmf --threads 1 --json "$M" </dev/null)" "$(cat "$T/j")"
expect_fail 64 "threads" -- pmf --threads 0 "$M"

# rvsinfo: chunks with offsets, lengths and CRC verdicts; header, PMF, partition, blocks
pmf "$M" </dev/null | partition --alg pmf --cp 1,2,6 | convert --gpu-format ellr --cpu-format csr >"$T/s.rvs"
rvsinfo "$T/s.rvs" >"$T/info" </dev/null || bad "rvsinfo: status $?"
grep -q "^verdict *valid$" "$T/info" && ok || bad "rvsinfo verdict: $(grep verdict "$T/info")"
expect_eq "rvsinfo first chunk" "$(awk '$3 == "MHDR"' "$T/info")" "16 45 MHDR ok 20 x 20, nnz 117, f64, 4-byte columns, name 'pmf20.mtx'"
expect_eq "rvsinfo chunk count" "$(awk '/^chunks/ { print $2 }' "$T/info")" 20
expect_eq "rvsinfo partition" "$(awk '/^# part device entries/ { on = 1; next } on && NF == 9 { printf "%s %s %s %s;", $1, $2, $5, $6 } /^formats/ { on = 0 }' "$T/info")" \
  "1 cpu 7 14;2 cpu 5 27;3 gpu 8 76;"
expect_eq "rvsinfo blocks" "$(awk '/^# part format/ { on = 1; next } on { printf "%s %s %s;", $1, $2, $5 }' "$T/info" | sed 's/ancillary.*//')" \
  "1 csr 14;2 csr 27;3 ellr 76;"
grep -q "^ancillary *mmhd, 30 bytes$" "$T/info" && ok || bad "rvsinfo: mmhd not listed"
# offsets and lengths add up: each chunk starts where the one before ended (12 + L + 4)
expect_eq "rvsinfo offsets" "$(awk '$4 ~ /^(ok|BAD|cut)$/ && $1 ~ /^[0-9]+$/ { if (prev && $1 != prev) bad++; prev = $1 + $2 + 16 } END { print bad + 0, prev }' "$T/info")" \
  "0 $(stat -c %s "$T/s.rvs")"
if [ -n "$PY" ]; then
  rvsinfo --json "$T/s.rvs" >"$T/ij" </dev/null
  expect_eq "rvsinfo json valid" "$(json_get valid <"$T/ij")" true
  expect_eq "rvsinfo json parts" "$(json_get partition.parts <"$T/ij")" 3
  expect_eq "rvsinfo json part 3" "$(json_get partition.part.2.device <"$T/ij") $(json_get partition.part.2.nnz <"$T/ij")" "gpu 76"
  expect_eq "rvsinfo json pmf stored" "$(json_get pmf.stored <"$T/ij")" true
  expect_eq "rvsinfo json chunk 0" "$(json_get chunks.0.type <"$T/ij") $(json_get chunks.0.crc <"$T/ij")" "MHDR ok"
  expect_eq "rvsinfo json formats" "$(json_get formats.2.format <"$T/ij") $(json_get formats.2.n_iter <"$T/ij")" "ellr 13"
fi
# a PMF the stream does not hold is computed, and the report says so (unknown ancillary
# chunks: tests/python/test_python.py writes one)
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 4\n' >"$T/one.mtx"
convert "$T/one.mtx" >"$T/one.rvs" </dev/null
rvsinfo "$T/one.rvs" </dev/null | grep -q "^pmf *computed" && ok || bad "rvsinfo: computed PMF not said"
rvsinfo "$M" </dev/null >"$T/mi" && grep -q "^input .*(Matrix Market)$" "$T/mi" && grep -q "^nnz *117$" "$T/mi" && ok ||
  bad "rvsinfo on Matrix Market: $(head -c 300 "$T/mi")"

# a damaged stream: the report of what could be read, the error on stderr, exit 65
size=$(stat -c %s "$T/s.rvs")
cp "$T/s.rvs" "$T/flip.rvs"
printf '\x55' | dd of="$T/flip.rvs" bs=1 seek=900 conv=notrunc 2>/dev/null
rvsinfo "$T/flip.rvs" >"$T/fo" 2>"$T/fe" </dev/null
expect_eq "rvsinfo damaged status" "$?" 65
expect_eq "rvsinfo damaged chunk" "$(awk '$4 == "BAD" { print $1, $3 }' "$T/fo")" "793 ARRY"
grep -q "^verdict *INVALID: chunk 'ARRY' at byte 793" "$T/fo" && ok || bad "rvsinfo damaged verdict: $(grep verdict "$T/fo")"
expect_eq "rvsinfo damaged stderr" "$(wc -l <"$T/fe") $(grep -c "^rvsinfo: $T/flip.rvs: chunk 'ARRY' at byte 793: CRC" "$T/fe")" "1 1"
head -c $((size / 2)) "$T/s.rvs" >"$T/cut.rvs"
rvsinfo "$T/cut.rvs" >"$T/co" 2>/dev/null </dev/null
expect_eq "rvsinfo cut status" "$?" 65
grep -q " cut " "$T/co" && grep -q "^verdict *INVALID: stream truncated" "$T/co" && ok || bad "rvsinfo cut: $(tail -3 "$T/co")"
expect_fail 65 "^rvsinfo: stdin: empty input" -- rvsinfo -
printf 'not a matrix\n' >"$T/junk"
expect_fail 65 "^rvsinfo: $T/junk: line 1" -- rvsinfo "$T/junk"

# option errors: unknown, missing value, value not taken - one distinct message each
expect_fail 64 "^pmf: unknown option '--nosuch' \(try 'pmf --help'\)$" -- pmf --nosuch "$M"
expect_fail 64 "^pmf: option '--output' needs a value" -- pmf "$M" --output
expect_fail 64 "^pmf: option '-o' needs a value" -- pmf "$M" -o
expect_fail 64 "^pmf: unknown option '-z'" -- pmf -z "$M"
expect_fail 64 "^pmf: option '--table' takes no value" -- pmf --table=3 "$M"
expect_fail 64 "^rvsgen: option '--seed' needs a value" -- rvsgen stencil7 3 --seed
expect_fail 64 "^rvsinfo: unknown option '--nosuch'" -- rvsinfo --nosuch
for p in partition convert spmv spgemm; do
  expect_fail 64 "^$p: (unknown option '--nosuch'|unknown option)" -- "$p" --nosuch "$M"
done
expect_fail 64 "^partition: option '--alg' needs a value" -- partition "$M" --alg

# input that cannot be read at all is 66 in every program, a directory included
for p in pmf partition convert spmv spgemm rvsinfo; do
  expect_fail 66 "^$p: $T: Is a directory$" -- "$p" "$T"
  expect_fail 66 "^$p: $T/missing.mtx: No such file" -- "$p" "$T/missing.mtx"
done
expect_fail 66 "^rvsgen: $T: Is a directory" -- rvsgen replica "$T" 10
if [ "$(id -u)" -ne 0 ]; then
  cp "$M" "$T/secret.mtx" && chmod 000 "$T/secret.mtx"
  expect_fail 66 "Permission denied" -- pmf "$T/secret.mtx"
fi

# a closed pipe: one wording and exit 74, whichever program and whatever it was writing
rvsgen stencil7 40 </dev/null 2>"$T/pipe1" | head -c 10 >/dev/null
st=${PIPESTATUS[0]}
expect_eq "rvsgen closed pipe" "$st $(cat "$T/pipe1")" \
  "74 rvsgen: stdout: write error: broken pipe (the reading program ended)"
rvsgen stencil27 30 </dev/null | convert --to mtx 2>"$T/pipe3" | head -c 10 >/dev/null
st=${PIPESTATUS[1]}
expect_eq "convert --to mtx closed pipe" "$st $(cat "$T/pipe3")" \
  "74 convert: stdout: write error: broken pipe (the reading program ended)"
finish

# rvsinfo.sh - the rvsinfo program: the chunks of a stream laid end to end (each offset the last
# one's plus its length and 16 bytes of framing, the last ending the file), the matrix, partition
# and format blocks it reports against what pmf, partition and convert were asked for, the same
# in JSON, a Matrix Market file, and damaged, truncated, missing input.
. "$RVS_SRC/tests/lib/common.sh"
m=$RVS_DATA/pmf20.mtx
pmf "$m" | partition --alg pmf --cp 1,2 | convert --gpu-format ellr --cpu-format csr >"$T/a.rvs" 2>"$T/err" ||
  bad "the pipeline: $(cat "$T/err")"
rvsinfo "$T/a.rvs" >"$T/info" 2>"$T/err" || bad "rvsinfo: status $? ($(cat "$T/err"))"
# the chunk table: 'offset length type crc contents' between the header line and 'verdict'
awk '/^# offset/ { on = 1; next } /^verdict/ { on = 0 } on' "$T/info" >"$T/chunks"
expect_eq "chunk types" "$(awk '{ printf "%s ", $3 }' "$T/chunks")" \
  "MHDR ARRY ARRY ARRY pmfs PART FMTB ARRY ARRY ARRY FMTB ARRY ARRY ARRY mmhd REND "
expect_eq "every CRC" "$(awk '$4 != "ok"' "$T/chunks")" ""
expect_eq "chunks end to end" "$(awk 'NR > 1 && $1 != end { print "chunk at " $1 ", want " end } { end = $1 + $2 + 16 }
  END { print end }' "$T/chunks")" "$(wc -c <"$T/a.rvs")"
expect_eq "chunks counted" "$(awk '/^chunks/ { print $2 }' "$T/info")" "$(wc -l <"$T/chunks")"
grep -q '^verdict *valid$' "$T/info" && ok || bad "verdict: $(grep verdict "$T/info")"
expect_eq "rows columns nnz" "$(awk '$1 == "rows" || $1 == "columns" || $1 == "nnz" { printf "%s ", $2 }' "$T/info")" "20 20 117 "
grep -q '^partition *pmf, 2 parts' "$T/info" && ok || bad "partition: $(grep '^partition' "$T/info")"
# the format blocks: part 1 CSR on the CPU, part 2 ELLR on the GPU, their rows and entries
# adding up to the matrix
awk '/^# part format/ { on = 1; next } /^ancillary/ { on = 0 } on' "$T/info" >"$T/blocks"
expect_eq "block formats" "$(awk '{ printf "%s:%s ", $1, $2 }' "$T/blocks")" "1:csr 2:ellr "
expect_eq "blocks' rows and nnz" "$(awk '{ r += $4; n += $5 } END { print r, n }' "$T/blocks")" "20 117"
if [ -n "$PY" ]; then
  rvsinfo --json "$T/a.rvs" >"$T/j" 2>"$T/err" || bad "rvsinfo --json: $(cat "$T/err")"
  expect_eq "json kind" "$(json_get kind <"$T/j")" stream
  expect_eq "json chunks" "$("$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["chunks"]))' <"$T/j")" "$(wc -l <"$T/chunks")"
  expect_eq "json last chunk" "$(json_get chunks.15.type <"$T/j") $(json_get chunks.15.offset <"$T/j")" "REND $(awk 'END { print $1 }' "$T/chunks")"
fi
# a Matrix Market file: its header and statistics
rvsinfo "$m" >"$T/mm" 2>"$T/err" || bad "rvsinfo of a .mtx: $(cat "$T/err")"
expect_eq "mtx rows nnz" "$(awk '$1 == "rows" || $1 == "nnz" { printf "%s ", $2 }' "$T/mm")" "20 117 "
# damaged: a byte of the rowptr array's header flipped; the report goes as far as it can, the
# status is 65 and stderr one line
"$PY" -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[100] ^= 0xff; open(sys.argv[2], "wb").write(b)' \
  "$T/a.rvs" "$T/bad.rvs" 2>/dev/null || head -c 8000 "$T/a.rvs" >"$T/bad.rvs"
rvsinfo "$T/bad.rvs" >"$T/out" 2>"$T/err"
expect_eq "damaged: status" "$?" 65
expect_eq "damaged: stderr lines" "$(wc -l <"$T/err")" 1
grep -q "^rvsinfo: $T/bad.rvs: " "$T/err" && ok || bad "damaged: stderr '$(cat "$T/err")'"
grep -q '^verdict *INVALID' "$T/out" && ok || bad "damaged: no INVALID verdict: $(grep verdict "$T/out")"
head -c 3000 "$T/a.rvs" >"$T/cut.rvs"
rvsinfo "$T/cut.rvs" >"$T/out" 2>"$T/err"
expect_eq "truncated: status" "$?" 65
expect_eq "truncated: stderr lines" "$(wc -l <"$T/err")" 1
expect_fail 66 "^rvsinfo: $T/none.rvs: " -- rvsinfo "$T/none.rvs"
expect_fail 64 "^rvsinfo: " -- rvsinfo --spy 0x0 "$T/a.rvs"
expect_fail 64 "^rvsinfo: " -- rvsinfo "$T/a.rvs" "$T/a.rvs"
finish
